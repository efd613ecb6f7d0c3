package kgo

import (
	"context"
	"errors"

	franz "github.com/twmb/franz-go/pkg/kgo"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
)

// Poll returns up to MaxPollRecords records (kgo's PollRecords with ctx).
// It blocks until records are available, kgo reports an error, Wakeup is
// called, or ctx is done; when ctx's deadline passes with no records it
// returns (nil, nil), as Java's poll(timeout) returns an empty batch (a
// canceled ctx returns ctx.Err()). A ctx already done still returns the
// records kgo has buffered (PollRecords with a nil context), as Java's
// poll(0). Completed CommitAsync callbacks run first, on this goroutine.
// An error kgo returns together with records is owed to the next Poll
// (Java: the exception follows the records fetched before it). Errors:
// consumer.ErrWakeup, consumer.ErrClosed, consumer.ErrConcurrentUse, a
// *group.PartitionError (kgo's partition error, e.g. a kerr error), kgo's
// client-level error, *NoOffsetError, or several joined (errors.Join). A
// Close from another goroutine interrupts it with consumer.ErrClosed.
func (c *Consumer) Poll(ctx context.Context) ([]consumer.Record, error) {
	return pollCall(&c.calls, ctx, nil, c.poll)
}

// poll does one Poll's kgo work under pctx (the caller's ctx, canceled by
// Wakeup too).
func (c *Consumer) poll(pctx context.Context) ([]consumer.Record, error) {
	if c.cl == nil {
		<-pctx.Done() // nothing to consume: wait out the timeout, as the reactor does
		return nil, nil
	}
	switch c.mode {
	case modeAssigned:
		if err := c.initPositions(pctx); err != nil && pctx.Err() == nil {
			return nil, err
		}
	case modeSubscribed:
		if c.cfg.EnableAutoCommit {
			head := c.cl.UncommittedOffsets() // kgo's head once PollRecords starts (see onRevoked)
			c.mu.Lock()
			c.head = head
			c.mu.Unlock()
		}
	}
	return c.collect(pollRecords(c.cl, pctx, c.cfg.MaxPollRecords))
}

// collect converts fetched records (keeping the last position per
// partition under manual assignment) and gathers the errors kgo returned
// with them, leaving out the context errors PollRecords injects when its
// context ends (Poll decides what a timeout or wakeup returns).
func (c *Consumer) collect(fetches franz.Fetches) ([]consumer.Record, error) {
	var out []consumer.Record
	if n := fetches.NumRecords(); n > 0 {
		out = make([]consumer.Record, 0, n)
	}
	err := eachPartition(fetches, func(topic string, p *franz.FetchPartition) {
		if len(p.Records) == 0 {
			return
		}
		for _, r := range p.Records {
			out = out[:len(out)+1] // capacity is NumRecords; the new element is zero
			fillRecord(&out[len(out)-1], r)
		}
		if c.direct != nil {
			c.direct.track(managers.TopicPartition{Topic: topic, Partition: p.Partition}, p.Records[len(p.Records)-1])
		}
	})
	return out, err
}

// eachPartition calls fn with each fetched partition and its topic, and
// returns the errors kgo put in them (fetchError's), joined.
func eachPartition(fetches franz.Fetches, fn func(topic string, p *franz.FetchPartition)) error {
	var errs []error
	for i := range fetches {
		for j := range fetches[i].Topics {
			t := &fetches[i].Topics[j]
			for k := range t.Partitions {
				p := &t.Partitions[k]
				if p.Err != nil {
					if err := fetchError(t.Topic, p.Partition, p.Err); err != nil {
						errs = append(errs, err)
					}
				}
				fn(t.Topic, p)
			}
		}
	}
	return errors.Join(errs...)
}

// fetchError maps one error kgo put in a fetch: nil for the injected
// context errors, consumer.ErrClosed for kgo's ErrClientClosed, the error
// itself for a client-level one (no topic), else a *group.PartitionError.
func fetchError(topic string, partition int32, err error) error {
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return nil
	case errors.Is(err, franz.ErrClientClosed):
		return consumer.ErrClosed
	case topic == "":
		return err
	}
	return &group.PartitionError{TP: managers.TopicPartition{Topic: topic, Partition: partition}, Err: err}
}

// fillRecord copies a kgo record's fields into a zero out, in place (key,
// value and header values are shared, not copied).
func fillRecord(out *consumer.Record, r *franz.Record) {
	out.Topic, out.Partition, out.Offset, out.LeaderEpoch = r.Topic, r.Partition, r.Offset, r.LeaderEpoch
	out.Timestamp, out.Key, out.Value = r.Timestamp, r.Key, r.Value
	if len(r.Headers) > 0 {
		out.Headers = make([]consumer.Header, len(r.Headers))
		for i, h := range r.Headers {
			out.Headers[i] = consumer.Header{Key: h.Key, Value: h.Value}
		}
	}
}
