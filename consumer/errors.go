package consumer

import "github.com/kreactor/kreactor/internal/client"

// ErrClosed is returned by every call made after Close started.
var ErrClosed = client.ErrClosed

// ErrWakeup is returned by a Poll interrupted by Wakeup (Java's
// WakeupException).
var ErrWakeup = client.ErrWakeup

// ErrNoGroup is returned by Subscribe and commits without a group.id.
var ErrNoGroup = client.ErrNoGroup

// ErrCloseDeadline is wrapped by Close's error when work was still
// outstanding at the close deadline; the error lists what.
var ErrCloseDeadline = client.ErrCloseDeadline

// ErrConcurrentUse is returned when two application calls run on the
// consumer at once (Java's ConcurrentModificationException); Wakeup is the
// exception and may be called from any goroutine.
var ErrConcurrentUse = client.ErrConcurrentUse

// ErrSubscribed is returned by Assign while the consumer is subscribed.
var ErrSubscribed = client.ErrSubscribed

// InvalidPartitionError is returned by Assign for a partition that cannot
// exist: an empty topic name or a negative partition number. Its field TP
// (a managers.TopicPartition) is the partition refused.
type InvalidPartitionError = client.InvalidPartitionError
