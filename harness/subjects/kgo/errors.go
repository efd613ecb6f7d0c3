package kgo

import (
	"errors"
	"fmt"

	settings "github.com/kreactor/kreactor/consumer/config"
	"github.com/kreactor/kreactor/managers"
)

// ErrUnsupported is matched (errors.Is) by every error that says franz-go's
// kgo cannot do what was asked: a setting outside kgo's accepted range, or a
// consumer kind kgo lacks. Specs turn it into a skip with the reason ("n/a
// for kgo"), never a failure of the spec's property.
var ErrUnsupported = errors.New("kgo subject: not supported by franz-go's kgo")

// UnsupportedError names a consumer.Config or consumer.ShareConfig field
// whose value kgo rejects or cannot express, with kgo's own limit. It wraps
// ErrUnsupported. Returned by Subject.New and Subject.NewShare.
type UnsupportedError struct {
	Field  string // Go field name in consumer.Config / consumer.ShareConfig
	Java   string // the Java setting
	Value  any
	Reason string // kgo's rule, naming the kgo option
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("kgo subject: %s (%s) = %v: %s", e.Field, e.Java, e.Value, e.Reason)
}

func (e *UnsupportedError) Unwrap() error { return ErrUnsupported }

// unsupported is the *UnsupportedError for field of T (consumer.Config or
// consumer.ShareConfig), with the Java setting its declaration names
// (consumer/config).
func unsupported[T settings.Consumer | settings.Share](field string, value any, reason string) *UnsupportedError {
	f, ok := settings.Lookup[T](field)
	if !ok {
		panic("kgo subject: no consumer setting " + field)
	}
	return &UnsupportedError{Field: field, Java: f.Java, Value: value, Reason: reason}
}

// InvalidTopicError is returned by Subscribe for an empty topic name (Java:
// IllegalArgumentException).
type InvalidTopicError struct{ Topic string }

func (e *InvalidTopicError) Error() string {
	return fmt.Sprintf("kgo subject: invalid topic %q: must be non-empty", e.Topic)
}

// NoOffsetError is returned by Poll in manual assignment with
// AutoOffsetReset "none" for a partition the group has no committed offset
// for (Java's NoOffsetForPartitionException), on every Poll until the
// partition is unassigned.
type NoOffsetError struct{ TP managers.TopicPartition }

func (e *NoOffsetError) Error() string {
	return fmt.Sprintf("kgo subject: no committed offset for %s and auto.offset.reset is none", e.TP)
}

// CommitError is what CommitSync returns, and a CommitAsync callback gets,
// when kgo's commit failed: kgo's own error (a kerr error, a
// *group.PartitionError, a connection or context error) wrapped, so
// errors.Is and errors.As still reach it, and marked as a commit failure
// (harness.IsCommitFailure), the black-box counterpart of the reactor's
// *group.CommitError and Java's CommitFailedException.
type CommitError struct{ Err error }

func (e *CommitError) Error() string { return "kgo commit failed: " + e.Err.Error() }

// Unwrap returns kgo's error.
func (e *CommitError) Unwrap() error { return e.Err }

// CommitFailure is true: the commit did not happen.
func (e *CommitError) CommitFailure() bool { return true }

// commitFailed wraps a commit's error (nil stays nil).
func commitFailed(err error) error {
	if err == nil {
		return nil
	}
	return &CommitError{Err: err}
}
