package kgo

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	franz "github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
)

// CommitSync commits the positions of every record returned by earlier
// Polls and waits for the coordinator's answer, until ctx's deadline
// (DefaultAPITimeout without one). In a group it is kgo's
// CommitUncommittedOffsets (which waits for earlier CommitAsyncs first:
// kgo orders commits); manually assigned, a kadm OffsetCommit to the
// group. Completed CommitAsync callbacks run before it returns. Errors:
// consumer.ErrNoGroup, consumer.ErrClosed, consumer.ErrConcurrentUse,
// ctx.Err(), the first partition's kerr error (a *group.PartitionError
// under manual assignment).
func (c *Consumer) CommitSync(ctx context.Context) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	if c.cfg.GroupID == "" {
		return consumer.ErrNoGroup
	}
	c.cbs.run()
	ctx, cancel := withDefaultTimeout(ctx, c.cfg.DefaultAPITimeout)
	defer cancel()
	var err error
	switch c.mode {
	case modeSubscribed:
		err = c.cl.CommitUncommittedOffsets(ctx)
	case modeAssigned:
		err = c.commitDirectSync(ctx)
	}
	c.cbs.run()
	return commitFailed(err)
}

// CommitAsync commits like CommitSync without waiting (kgo's CommitOffsets
// with UncommittedOffsets; manually assigned, a kadm commit on its own
// goroutine), deadline DefaultAPITimeout. kgo calls its commit callback on
// its own goroutine; cb (may be nil) is queued from there and runs exactly
// once, on the application goroutine, during a later Poll, CommitSync or
// Close (Java's contract). kgo's CommitOffsets may block while kgo runs a
// commit of its own (the revoke commit of a rebalance). Called after Close
// or concurrently, cb runs at once with consumer.ErrClosed or
// consumer.ErrConcurrentUse; without a group id with consumer.ErrNoGroup.
func (c *Consumer) CommitAsync(cb func(error)) {
	if err := c.acquire(); err != nil {
		callback(cb, err)
		return
	}
	defer c.release()
	if c.cfg.GroupID == "" {
		callback(cb, consumer.ErrNoGroup)
		return
	}
	switch c.mode {
	case modeSubscribed:
		ctx, cancel := context.WithTimeout(c.clCtx, c.cfg.DefaultAPITimeout)
		c.async.add()
		c.cl.CommitOffsets(ctx, c.cl.UncommittedOffsets(), func(_ *franz.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
			defer c.async.done()
			cancel()
			if err == nil {
				err = firstCommitError(resp)
			}
			err = commitFailed(err)
			c.cbs.push(func() { callback(cb, err) })
		})
	case modeAssigned:
		c.commitDirectAsync(cb)
	default:
		c.cbs.push(func() { callback(cb, nil) }) // nothing consumed, nothing to commit
	}
}

// firstCommitError is the first partition error in an OffsetCommit
// response, as a *group.PartitionError, or nil.
func firstCommitError(resp *kmsg.OffsetCommitResponse) error {
	if resp == nil {
		return nil
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return &group.PartitionError{TP: managers.TopicPartition{Topic: t.Topic, Partition: p.Partition}, Err: err}
			}
		}
	}
	return nil
}

// Close waits for outstanding CommitAsyncs, then leaves the group and
// closes kgo's client (LeaveGroupContext, Close), all by ctx's deadline
// (30 s without one, as Java's close()). With auto-commit, kgo's leave
// commits first (its revoke commit: the positions of all but the last
// poll, kgo's at-least-once rule; Java commits all). At the deadline the
// client's context is canceled, which fails what kgo still does, and Close
// returns an error wrapping consumer.ErrCloseDeadline. Callbacks run before
// Close returns. A second Close returns consumer.ErrClosed.
func (c *Consumer) Close(ctx context.Context) error {
	return closeCall(&c.calls, ctx, nil, c.stopClient)
}

// withDefaultTimeout gives ctx the deadline d if it has none.
func withDefaultTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, d)
}

// wrapDeadline wraps consumer.ErrCloseDeadline with what was outstanding.
func wrapDeadline(what string, err error) error {
	return fmt.Errorf("%w: %s: %v", consumer.ErrCloseDeadline, what, err)
}
