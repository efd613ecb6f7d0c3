package java

import (
	"context"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/managers"
)

// blackBoxConsumer and blackBoxShareConsumer are the harness's black-box
// consumer surfaces (harness.Consumer and harness.ShareConsumer without
// their probes); the assertions below keep the adapters on them.
type blackBoxConsumer interface {
	Subscribe(topics ...string) error
	Assign(partitions ...managers.TopicPartition) error
	Pause(partitions ...managers.TopicPartition) error
	Resume(partitions ...managers.TopicPartition) error
	Poll(ctx context.Context) ([]consumer.Record, error)
	CommitSync(ctx context.Context) error
	CommitAsync(cb func(error))
	Wakeup()
	Close(ctx context.Context) error
	Assignment() []managers.TopicPartition
}

type blackBoxShareConsumer interface {
	Subscribe(topics ...string) error
	Poll(ctx context.Context) ([]consumer.ShareRecord, error)
	Acknowledge(r consumer.ShareRecord, typ consumer.AcknowledgeType) error
	CommitSync(ctx context.Context) (map[managers.TopicPartition]error, error)
	CommitAsync() error
	SetAcknowledgementCommitCallback(cb consumer.AcknowledgementCommitCallback)
	Wakeup()
	Close(ctx context.Context) error
	Assignment() []managers.TopicPartition
}

var (
	_ blackBoxConsumer      = (*Consumer)(nil)
	_ blackBoxShareConsumer = (*ShareConsumer)(nil)
)
