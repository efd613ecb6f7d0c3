// Package kfake is the "kfake" target: franz-go's in-process kfake cluster
// behind package fakebroker (the wire recorder on kfake's sockets, fault
// helpers). Its clusters listen on 127.0.0.1 random ports and start in
// microseconds, so every spec gets its own.
//
// Group state, configs and topic admin use kfake's in-process APIs
// (fakebroker.Broker.GroupInfo, kfake's SetGroupConfigs, CreateTopic,
// DeleteRecords) rather than the admin requests the kafka target sends with
// kadm: those would pass through the tapped listeners and be recorded next
// to the subject's requests.
//
// The brokers answer as Apache Kafka 4.4 does where kfake's own answer
// differs and clients trip on it (package fakebroker, answers.go; checked
// against a real broker by specs/fidelity). The "kfake-raw" target (Raw)
// is the same without those corrections: run a suite on it to see which
// specs depend on them.
package kfake
