package group

import (
	"errors"
	"fmt"
)

// ErrCommitTimeout is wrapped by CommitError when a commit's deadline
// (the CommitSync context, default.api.timeout.ms for CommitAsync, or the
// close deadline) passed before the coordinator accepted it.
var ErrCommitTimeout = errors.New("commit deadline passed before the coordinator accepted it")

// CommitError is what a failed commit completes with: which offsets, how many
// attempts were made, and the cause (a kerr error, a transport error, or
// ErrCommitTimeout joined with the last retriable error).
type CommitError struct {
	Partitions int
	Attempts   int
	Err        error
}

func (e *CommitError) Error() string {
	return fmt.Sprintf("commit of %d partition(s) failed after %d attempt(s): %v", e.Partitions, e.Attempts, e.Err)
}

func (e *CommitError) Unwrap() error { return e.Err }

// ErrNoOffsetForPartition is the error for a partition with no committed
// offset when auto.offset.reset is "none".
var ErrNoOffsetForPartition = errors.New("no committed offset and auto.offset.reset is none")

// ErrCorruptRecords is wrapped (in a *PartitionError from Poll) for a
// fetched record batch whose CRC-32C does not match or whose records cannot
// be read: Java's CorruptRecordException. Records before it are delivered
// first.
var ErrCorruptRecords = errors.New("corrupt record batch")
