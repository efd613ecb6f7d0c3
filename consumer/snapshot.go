package consumer

import (
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
)

// Snapshot is the application-visible state published with every decision
// (DESIGN.md "snapshot"): the application reads it, never manager state.
type Snapshot struct {
	Assignment     []managers.TopicPartition // owned partitions, sorted
	MemberState    group.MemberState
	MemberEpoch    int32
	Buffered       int  // records buffered for the application
	PendingCommits int  // commits queued or in flight
	InFlight       int  // requests sent and not yet completed
	Closing        bool // Close has started
	Closed         bool // the loop has stopped
}
