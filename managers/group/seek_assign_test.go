package group_test

import (
	"errors"
	"testing"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
)

// A seek applied in the same step as the assign before it (both queued
// while a step ran; the baseline's reply runs at once, so its application
// can queue the seek before the poll round) finds the partition assigned
// once the assignment is synced, as Java's seek after assign does; before
// the sync, the fetch manager has not seen the assignment.
func TestSeekAfterAssignInOneStep(t *testing.T) {
	f := newFetch(newRig(t))
	tp := managers.TopicPartition{Topic: "t", Partition: 0}
	var pe *group.PartitionError
	if err := f.Seek(tp, 4); !errors.As(err, &pe) || !errors.Is(err, group.ErrNotAssigned) {
		t.Fatalf("seek before any assignment: %v, want ErrNotAssigned", err)
	}
	f.SyncAssignment([]managers.TopicPartition{tp}, 1)
	if err := f.Seek(tp, 4); err != nil {
		t.Fatalf("seek after SyncAssignment: %v", err)
	}
	if got := f.Consumed()[tp]; got.Offset != 4 {
		t.Fatalf("consumed position %+v after seek to 4", got)
	}
}
