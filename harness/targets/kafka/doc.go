// Package kafka is the "kafka" target: real Apache Kafka (KRaft) in Docker
// via package containers, behind a recording, fault-injecting proxy per spec
// (containers/proxy), so specs use the same recorder and fault vocabulary as
// on the kfake target (package harness/targets/kfake).
//
// Starting three brokers takes seconds, so clusters are pooled per process
// (one per broker count and configuration): each spec gets a fresh proxy and
// its own topics, which are deleted when it closes, and unique group ids.
// CloseSharedClusters terminates the pool (suites call it through
// targets.CloseShared from AfterSuite, before the leak check).
//
// Admin work (group state, topics, records, coordinators) goes straight to
// the brokers, not through the proxy, so a spec's faults never hide the
// cluster's state from the spec; it uses franz-go's kadm except for group
// configs, which kadm lacks (see SetGroupConfigs).
package kafka
