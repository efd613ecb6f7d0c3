package client

import (
	"errors"
	"fmt"

	"github.com/kreactor/kreactor/managers"
)

// The consumers' errors; package consumer re-exports each under the same
// name and documents where it appears.
var (
	ErrClosed        = errors.New("consumer: closed")
	ErrWakeup        = errors.New("consumer: woken up")
	ErrNoGroup       = errors.New("consumer: no group.id configured")
	ErrCloseDeadline = errors.New("consumer: close deadline passed with work outstanding")
	ErrConcurrentUse = errors.New("consumer: not safe for concurrent use (only Wakeup may be called concurrently)")
	ErrSubscribed    = errors.New("consumer: subscribed; unsubscribe before Assign")
)

// InvalidPartitionError is returned by Assign for a partition that cannot
// exist: an empty topic name or a negative partition number. TP is the
// partition refused.
type InvalidPartitionError struct {
	TP managers.TopicPartition
}

func (e *InvalidPartitionError) Error() string {
	return fmt.Sprintf("consumer: invalid partition %q/%d: topic must be non-empty and partition >= 0", e.TP.Topic, e.TP.Partition)
}
