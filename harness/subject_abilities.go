package harness

import "time"

// Versioned is an optional Subject or Target ability: component versions
// the report shows in its provenance, e.g. {"kafka-clients": "4.4.0"} for
// the java subject. Values must not hold absolute paths: a local jar is
// "local:<file name>".
type Versioned interface {
	Versions() map[string]string
}

// Keys of Versioned that the provenance files apart.
const (
	// VersionKafkaImage is the key under which a target reports the Kafka
	// image it runs (reports.Provenance.KafkaImage).
	VersionKafkaImage = "kafka-image"
	// VersionKafkaClients is the key of the kafka-clients release
	// (reports.Provenance.KafkaClients; the report's column variant).
	VersionKafkaClients = "kafka-clients"
)

// RebalanceCall is one call of a consumer's rebalance listener (Java's
// ConsumerRebalanceListener), as the subject reports it.
type RebalanceCall struct {
	// Method is "revoked", "assigned" or "lost" (onPartitionsRevoked,
	// onPartitionsAssigned, onPartitionsLost).
	Method     string
	Partitions []TopicPartition
	// InPoll says the call ran on the application's thread inside Poll,
	// or inside Close for the release of the partitions owned at close
	// (java: the driver saw it during its poll or close command, which
	// run on the application thread; ours: on the goroutine of a Poll or
	// Close under way).
	InPoll bool
	At     time.Time
}

// RebalanceReporter is the ability of a subject's consumer whose
// rebalance listener calls are reported by the subject itself (the java
// subject: the driver subscribes with a listener that reports each call).
type RebalanceReporter interface {
	RebalanceCalls() []RebalanceCall
}

// UnwrapConsumer is implemented by the helpers' consumer wrappers (the
// suite's recorded consumer, consume.Tracked); ProbeOf, Innermost and the
// ability look-ups look through it so optional abilities of the real
// consumer stay visible. A share consumer wrapper has the same method
// returning a ShareConsumer, and a subject wrapper one returning a Subject.
type UnwrapConsumer interface{ Unwrap() Consumer }
