package managers

// View is what a consumer's managers see in one poll round: the
// coordinator, the metadata, the member and the assignment. The consumer
// builds it on the loop goroutine before each round; managers read it and
// never keep it. group.View and share.View are defined from it (distinct
// types: each consumer's managers take their own), and each says what
// InGroup and Polling mean for its consumer.
type View struct {
	// Coordinator is the group coordinator; CoordinatorKnown says whether
	// it is known.
	Coordinator      Broker
	CoordinatorKnown bool
	// Meta is the metadata manager, read-only during the poll (through its
	// getters only).
	Meta *Metadata
	// GroupID is the configured group.id ("" without one).
	GroupID string
	// InGroup says the member takes part in the group; MemberID and
	// MemberEpoch are its identity.
	InGroup     bool
	MemberID    string
	MemberEpoch int32
	// Assignment is the set of partitions the consumer owns now, sorted,
	// and its version, which increments on every change.
	Assignment        []TopicPartition
	AssignmentVersion uint64
	// Closing is set once Close has started.
	Closing bool
	// Polling says an application Poll is waiting on the engine.
	Polling bool
}
