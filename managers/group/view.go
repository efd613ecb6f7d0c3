package group

import (
	"github.com/kreactor/kreactor/managers"
)

// View is what every regular-consumer manager sees in one poll round. The
// consumer builds it on the loop goroutine before each round; managers read
// it and never keep it. Meta is read through its getters only.
type View struct {
	// Coordinator is the group coordinator; CoordinatorKnown says whether
	// it is known.
	Coordinator      managers.Broker
	CoordinatorKnown bool
	// Meta is the metadata manager, read-only during the poll.
	Meta *managers.Metadata
	// GroupID is the configured group.id ("" without one).
	GroupID string
	// InGroup says the member takes part in a KIP-848 group (subscribed);
	// MemberID and MemberEpoch are its identity (epoch 0 while joining).
	InGroup     bool
	MemberID    string
	MemberEpoch int32
	// Assignment is the set of partitions the consumer owns now (reconciled
	// group assignment or manual assignment) and its version, which
	// increments on every change.
	Assignment        []managers.TopicPartition
	AssignmentVersion uint64
	// Closing is set once Close has started.
	Closing bool
	// Polling says an application Poll is waiting on the engine: Poll
	// activity for max.poll.interval.ms (the reactor; the baseline reports
	// each poll event through Membership.OnPoll instead).
	Polling bool
}

// CommitIdentity returns the member id and epoch an OffsetCommit or
// OffsetFetch must carry: the member's when in a group, else "" and -1 (a
// simple commit for a manually assigned consumer).
func (v View) CommitIdentity() (string, int32) {
	if v.InGroup {
		return v.MemberID, v.MemberEpoch
	}
	return "", -1
}
