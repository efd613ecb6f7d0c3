package harness

import (
	"context"
	"errors"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
)

// Record is a consumed record as every subject returns it.
type Record = consumer.Record

// ShareRecord is a record acquired from a share group, with its delivery
// count.
type ShareRecord = consumer.ShareRecord

// TopicPartition names a partition.
type TopicPartition = managers.TopicPartition

// Subject is a consumer implementation under test: ours (reactor,
// baseline, null) or a real client driven from outside (the Java consumer,
// franz-go's kgo). It builds regular consumers; a subject with share
// consumers also implements ShareSubject. A subject with share consumers
// only returns an error wrapping errors.ErrUnsupported from New. New and
// NewShare return an error wrapping errors.ErrUnsupported for a
// configuration the subject cannot run; a spec then reports itself n/a for
// the subject (suite.NewConsumer, suite.NewShareConsumer).
type Subject interface {
	// Name is the subject's name in `subject:` labels and reports
	// ("reactor").
	Name() string
	// New builds a consumer from cfg. The caller must Close it.
	New(cfg consumer.Config) (Consumer, error)
}

// ShareSubject builds share consumers (KIP-932).
type ShareSubject interface {
	Name() string
	NewShare(cfg consumer.ShareConfig) (ShareConsumer, error)
}

// ExplicitShareSubject is an optional ability of a ShareSubject whose share
// consumer must be told when it is built that the application acknowledges
// explicitly: kafka-clients 4.1+ (share.acknowledgement.mode=explicit;
// KIP-932's acknowledgement modes) refuses Acknowledge in the default
// implicit mode. Our share consumers and kgo switch to explicit mode on the
// first Acknowledge and need no such call.
type ExplicitShareSubject interface {
	NewExplicitShare(cfg consumer.ShareConfig) (ShareConsumer, error)
}

// Consumer is the black-box application API of a regular consumer, what
// every subject offers: specs measure first what any client shows (the
// brokers' view of its requests, call durations, callbacks, committed
// offsets). Calls follow Java's KafkaConsumer contract: one application
// goroutine at a time, except Wakeup. What only our consumers show (the
// decision trace, loop counters) is the optional Probe (ProbeOf).
type Consumer interface {
	Subscribe(topics ...string) error
	// Assign takes partitions manually (Java's assign).
	Assign(partitions ...TopicPartition) error
	// Poll returns (nil, nil) when ctx's deadline passes with no records.
	Poll(ctx context.Context) ([]Record, error)
	CommitSync(ctx context.Context) error
	// CommitAsync's cb runs on the application goroutine during a later
	// Poll, CommitSync or Close.
	CommitAsync(cb func(error))
	// Pause and Resume stop and restart fetching of assigned partitions.
	Pause(partitions ...TopicPartition) error
	Resume(partitions ...TopicPartition) error
	Wakeup()
	Close(ctx context.Context) error
	Assignment() []TopicPartition
}

// ShareConsumer is the black-box application API of a share consumer
// (Java's KafkaShareConsumer); its probe is optional too (ShareProbeOf).
type ShareConsumer interface {
	Subscribe(topics ...string) error
	Poll(ctx context.Context) ([]ShareRecord, error)
	Acknowledge(r ShareRecord, typ consumer.AcknowledgeType) error
	CommitSync(ctx context.Context) (map[TopicPartition]error, error)
	CommitAsync() error
	SetAcknowledgementCommitCallback(cb consumer.AcknowledgementCommitCallback)
	Wakeup()
	Close(ctx context.Context) error
	Assignment() []TopicPartition
}

// IsCommitFailure reports whether err is a subject's verdict that a commit
// failed: our consumers' *group.CommitError, or a real client's own (an
// error with a CommitFailure method that says so: the java subject's
// CommitFailedException and RetriableCommitFailedException).
func IsCommitFailure(err error) bool {
	var ce *group.CommitError
	if errors.As(err, &ce) {
		return true
	}
	var cf interface{ CommitFailure() bool }
	return errors.As(err, &cf) && cf.CommitFailure()
}
