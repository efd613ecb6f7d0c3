// Package targets chooses the target (the broker a subject runs against)
// by name: "kfake" (package harness/targets/kfake, in-process), "kafka"
// (package harness/targets/kafka, real Apache Kafka in Docker behind the
// recording proxy), and "kfake-raw" (kfake without fakebroker's
// corrections towards Kafka's answers, for seeing which specs need them).
// It exists apart from package harness because harness defines the Target
// interface the target packages implement, so it cannot import them.
//
// Suites pick theirs with KREACTOR_TARGET (default "kfake") through
// harness/suite, which also calls CloseShared after the suite; the CLI
// with Lookup.
package targets
