package harness

import "time"

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

// RebalanceCalls returns the java consumer's listener calls: Java runs
// them on its application thread, during the command named in During.
func (c javaConsumer) RebalanceCalls() []RebalanceCall {
	rs := c.Consumer.Rebalances()
	out := make([]RebalanceCall, len(rs))
	for i, r := range rs {
		out[i] = RebalanceCall{Method: r.Kind, Partitions: r.Partitions, InPoll: r.During == "poll" || r.During == "close"}
	}
	return out
}

// GoroutineID is the calling goroutine's id (test harness only: it tells
// two goroutines apart, e.g. whether a listener call ran on Poll's).
func GoroutineID() int64 { return goroutineID() }
