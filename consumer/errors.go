package consumer

import (
	"errors"
	"fmt"

	"github.com/kreactor/kreactor/managers"
)

// ErrClosed is returned by every call made after Close started.
var ErrClosed = errors.New("consumer: closed")

// ErrWakeup is returned by a Poll interrupted by Wakeup (Java's
// WakeupException).
var ErrWakeup = errors.New("consumer: woken up")

// ErrNoGroup is returned by Subscribe and commits without a group.id.
var ErrNoGroup = errors.New("consumer: no group.id configured")

// ErrCloseDeadline is wrapped by Close's error when work was still
// outstanding at the close deadline; the error lists what.
var ErrCloseDeadline = errors.New("consumer: close deadline passed with work outstanding")

// ErrConcurrentUse is returned when two application calls run on the
// consumer at once (Java's ConcurrentModificationException); Wakeup is the
// exception and may be called from any goroutine.
var ErrConcurrentUse = errors.New("consumer: not safe for concurrent use (only Wakeup may be called concurrently)")

// ErrSubscribed is returned by Assign while the consumer is subscribed.
var ErrSubscribed = errors.New("consumer: subscribed; unsubscribe before Assign")

// InvalidPartitionError is returned by Assign for a partition that cannot
// exist: an empty topic name or a negative partition number.
type InvalidPartitionError struct {
	TP managers.TopicPartition
}

func (e *InvalidPartitionError) Error() string {
	return fmt.Sprintf("consumer: invalid partition %q/%d: topic must be non-empty and partition >= 0", e.TP.Topic, e.TP.Partition)
}
