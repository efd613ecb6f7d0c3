package java

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/managers"
)

// ShareConsumer is Java's KafkaShareConsumer (KIP-932) in a driver process,
// on the harness's black-box share consumer surface. Application methods
// are for one goroutine at a time; Wakeup, Metrics, JVMThreads, CPU and the
// logs from any. Always Close it.
type ShareConsumer struct {
	*base
}

// NewShareConsumer starts a driver and creates a
// KafkaShareConsumer<byte[], byte[]> from props (any share consumer
// property, e.g. share.acknowledgement.mode where the release has it).
// client.id, bootstrap.servers and group.id are required. Where records
// start is the group's share.auto.offset.reset, a broker-side group config.
func NewShareConsumer(ctx context.Context, o Options, props map[string]string) (*ShareConsumer, error) {
	if props["group.id"] == "" {
		return nil, fmt.Errorf("java subject: a share consumer needs group.id, got %q", props["group.id"])
	}
	b, err := start(ctx, o, "share", props)
	if err != nil {
		return nil, err
	}
	return &ShareConsumer{b}, nil
}

// Poll returns the acquired records (each with its delivery count) within
// ctx's deadline, or (nil, nil) when none came. Errors as Consumer.Poll.
// Acknowledgement commit callbacks Java ran during the poll run first.
func (s *ShareConsumer) Poll(ctx context.Context) ([]consumer.ShareRecord, error) {
	return poll(s.base, ctx, func(w wireRecord) consumer.ShareRecord {
		dc := int16(-1)
		if w.DC != nil {
			dc = *w.DC
		}
		return consumer.ShareRecord{Record: w.record(), DeliveryCount: dc}
	})
}

// ackTypeNames are Java's AcknowledgeType constants by the harness's type.
var ackTypeNames = map[consumer.AcknowledgeType]string{
	consumer.Accept:  "ACCEPT",
	consumer.Release: "RELEASE",
	consumer.Reject:  "REJECT",
	consumer.Renew:   "RENEW",
}

// Acknowledge acknowledges a record of the last Poll
// (KafkaShareConsumer.acknowledge(record, type)). Errors: an unknown typ;
// ErrUnsupported (errors.Is) when the running release lacks the type
// (RENEW before KIP-1222 reached the client); Java's IllegalStateException
// for a record not from the last poll, or already acknowledged.
func (s *ShareConsumer) Acknowledge(r consumer.ShareRecord, typ consumer.AcknowledgeType) error {
	name, ok := ackTypeNames[typ]
	if !ok {
		return fmt.Errorf("java acknowledge: invalid acknowledgement type %d: want Accept, Release, Reject or Renew", typ)
	}
	return s.call("acknowledge", map[string]any{"t": r.Topic, "p": r.Partition, "o": r.Offset, "type": name})
}

// CommitSync commits the acknowledgements made so far
// (KafkaShareConsumer.commitSync with ctx's deadline as the timeout) and
// returns each partition's result (nil: accepted).
func (s *ShareConsumer) CommitSync(ctx context.Context) (map[managers.TopicPartition]error, error) {
	args, javaTimeout := timeoutArgs(ctx, s.d.opts.MaxCallWait)
	r, err := s.do(ctx, "commitSync", args, javaTimeout, s.Wakeup)
	if err != nil {
		return nil, cancelled(ctx, err)
	}
	var w struct {
		Results []struct {
			T     string     `json:"t"`
			P     int32      `json:"p"`
			Error *JavaError `json:"error"`
		} `json:"results"`
	}
	if err := json.Unmarshal(r.raw, &w); err != nil {
		return nil, fmt.Errorf("java commitSync: %w", err)
	}
	out := make(map[managers.TopicPartition]error, len(w.Results))
	for _, res := range w.Results {
		var perr error
		if res.Error != nil {
			res.Error.Command = "commitSync"
			perr = res.Error
		}
		out[managers.TopicPartition{Topic: res.T, Partition: res.P}] = perr
	}
	return out, nil
}

// CommitAsync starts committing the acknowledgements made so far
// (KafkaShareConsumer.commitAsync); the outcome reaches the acknowledgement
// commit callback.
func (s *ShareConsumer) CommitAsync() error {
	return s.call("commitAsync", nil)
}

// SetAcknowledgementCommitCallback installs cb (nil removes it)
// (KafkaShareConsumer.setAcknowledgementCommitCallback). Java runs it on
// the application thread during a later call; it runs here on the
// goroutine making that call. A failure (closed consumer, dead driver) is
// returned by the next call as well, so it is not reported here.
func (s *ShareConsumer) SetAcknowledgementCommitCallback(cb consumer.AcknowledgementCommitCallback) {
	s.mu.Lock()
	s.ackCB = cb
	s.mu.Unlock()
	_, _ = s.do(context.Background(), "setAcknowledgementCommitCallback", map[string]any{"enabled": cb != nil}, 0, nil)
}

// Assignment returns nil: KafkaShareConsumer has no assignment() (KIP-932
// keeps the share assignment internal). Use the broker's group description.
func (s *ShareConsumer) Assignment() []managers.TopicPartition { return nil }

// Close closes the share consumer (final acknowledgements, leave) with
// ctx's deadline as the close timeout, and always ends the driver.
func (s *ShareConsumer) Close(ctx context.Context) error { return s.close(ctx) }
