package share

import "github.com/kreactor/kreactor/managers"

// View is what every share-consumer manager sees in one poll round; the
// consumer builds it on the loop goroutine. Meta is read through its getters
// only.
type View struct {
	Coordinator      managers.Broker
	CoordinatorKnown bool
	Meta             *managers.Metadata
	GroupID          string
	// InGroup says the member has joined (an epoch > 0) and may fetch.
	InGroup     bool
	MemberID    string
	MemberEpoch int32
	// Assignment is the set of partitions assigned now, sorted, and its
	// version (increments on change).
	Assignment        []managers.TopicPartition
	AssignmentVersion uint64
	Closing           bool
	// Polling says the application is waiting in Poll: share fetches are
	// demand-driven, so records are acquired (and locked) only for an
	// application that is consuming.
	Polling bool
}
