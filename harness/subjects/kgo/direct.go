package kgo

// Manual assignment (Java's assign) on kgo's direct consumer. kgo's group
// client cannot consume assigned partitions (ConsumePartitions with
// ConsumerGroup is rejected), and its direct client has no group: with a
// group id, the starting offsets and the commits go through kadm on the
// same client, as a kgo application does it (OffsetFetch; OffsetCommit
// with generation -1 and no member id, as Java's assign mode sends).

import (
	"context"
	"errors"
	"slices"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	franz "github.com/twmb/franz-go/pkg/kgo"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
)

// direct is the manual-assignment state; application goroutine only.
type direct struct {
	// pending: assigned partitions whose starting offset is not known yet
	// (the group's commit is fetched at the next Poll).
	pending map[managers.TopicPartition]struct{}
	// positions: the offset after the last record each Poll returned, and
	// that record's leader epoch (what CommitSync commits).
	positions map[managers.TopicPartition]franz.EpochOffset
	// committed: the last position this consumer committed, or fetched.
	committed map[managers.TopicPartition]franz.EpochOffset
	// lastAsync is closed when the latest CommitAsync finished: each one
	// waits for the one before it, so commits stay in call order (as kgo
	// orders its own group commits).
	lastAsync chan struct{}
}

func newDirect() *direct {
	done := make(chan struct{})
	close(done)
	return &direct{
		pending:   map[managers.TopicPartition]struct{}{},
		positions: map[managers.TopicPartition]franz.EpochOffset{},
		committed: map[managers.TopicPartition]franz.EpochOffset{},
		lastAsync: done,
	}
}

// reassign replaces the manual assignment with partitions (sorted,
// unique): removed partitions stop (RemoveConsumePartitions, and are
// resumed so a later assignment starts unpaused, as in Java); new ones
// wait in pending for their starting offset.
func (c *Consumer) reassign(partitions []managers.TopicPartition) {
	d := c.direct
	c.mu.Lock()
	var removed []managers.TopicPartition
	for tp := range c.assigned {
		if _, found := slices.BinarySearchFunc(partitions, tp, managers.CompareTopicPartition); !found {
			removed = append(removed, tp)
			delete(c.assigned, tp)
		}
	}
	var added []managers.TopicPartition
	for _, tp := range partitions {
		if _, ok := c.assigned[tp]; !ok {
			added = append(added, tp)
			c.assigned[tp] = struct{}{}
		}
	}
	c.mu.Unlock()
	if len(removed) > 0 {
		m := byTopic(removed)
		c.cl.RemoveConsumePartitions(m)
		c.cl.ResumeFetchPartitions(m)
		for _, tp := range removed {
			delete(d.pending, tp)
			delete(d.positions, tp)
			delete(d.committed, tp)
		}
	}
	for _, tp := range added {
		d.pending[tp] = struct{}{}
	}
}

// initPositions gives every pending partition its starting offset: the
// group's commit if there is one, else auto.offset.reset, and starts
// consuming it (AddConsumePartitions). ctx is the Poll's: a commit fetch
// still failing at its deadline leaves the partitions pending. Errors:
// ctx.Err(), kadm's error, a *group.PartitionError for a partition the
// fetch failed for, *NoOffsetError (reset "none" and no commit).
func (c *Consumer) initPositions(ctx context.Context) error {
	d := c.direct
	if len(d.pending) == 0 {
		return nil
	}
	var commits kadm.OffsetResponses
	if c.cfg.GroupID != "" {
		resp, err := c.adm.FetchOffsets(ctx, c.cfg.GroupID)
		switch {
		case errors.Is(err, kerr.GroupIDNotFound):
			// No commits. (kfake answers this for a group that never
			// committed; Kafka answers offset -1.)
		case err != nil:
			return err
		}
		commits = resp
	}
	pending := make([]managers.TopicPartition, 0, len(d.pending))
	for tp := range d.pending {
		pending = append(pending, tp)
	}
	slices.SortFunc(pending, managers.CompareTopicPartition)
	start := map[string]map[int32]franz.Offset{}
	var owed error
	for _, tp := range pending {
		var o franz.Offset
		r, ok := commits.Lookup(tp.Topic, tp.Partition)
		switch {
		case ok && r.Err != nil:
			if owed == nil {
				owed = &group.PartitionError{TP: tp, Err: r.Err}
			}
			continue
		case ok && r.At >= 0:
			o = franz.NewOffset().At(r.At).WithEpoch(r.LeaderEpoch)
			d.committed[tp] = franz.EpochOffset{Epoch: r.LeaderEpoch, Offset: r.At}
		case c.cfg.AutoOffsetReset == group.ResetEarliest:
			o = franz.NewOffset().AtStart()
		case c.cfg.AutoOffsetReset == group.ResetLatest:
			o = franz.NewOffset().AtEnd()
		default:
			if owed == nil {
				owed = &NoOffsetError{TP: tp}
			}
			continue
		}
		if start[tp.Topic] == nil {
			start[tp.Topic] = map[int32]franz.Offset{}
		}
		start[tp.Topic][tp.Partition] = o
		delete(d.pending, tp)
	}
	if len(start) > 0 {
		c.cl.AddConsumePartitions(start)
	}
	return owed
}

// track records the position after the last record of each partition in
// fetched (records of one partition are in offset order).
func (d *direct) track(tp managers.TopicPartition, last *franz.Record) {
	d.positions[tp] = franz.EpochOffset{Epoch: last.LeaderEpoch, Offset: last.Offset + 1}
}

// uncommitted is what a commit sends: every position not yet committed.
func (d *direct) uncommitted() kadm.Offsets {
	var os kadm.Offsets
	for tp, pos := range d.positions {
		if d.committed[tp] == pos {
			continue
		}
		if os == nil {
			os = kadm.Offsets{}
		}
		os.Add(kadm.Offset{Topic: tp.Topic, Partition: tp.Partition, At: pos.Offset, LeaderEpoch: pos.Epoch})
	}
	return os
}

// commit sends os to the group and returns the first partition error (in
// topic, partition order) or kadm's error. Safe off the application
// goroutine: it touches no consumer state.
func commitDirect(ctx context.Context, adm *kadm.Client, groupID string, os kadm.Offsets) error {
	resp, err := adm.CommitOffsets(ctx, groupID, os)
	if err != nil {
		return err
	}
	for _, r := range resp.Sorted() {
		if r.Err != nil {
			return &group.PartitionError{TP: managers.TopicPartition{Topic: r.Topic, Partition: r.Partition}, Err: r.Err}
		}
	}
	return nil
}

// commitDirectSync commits every uncommitted position and waits.
func (c *Consumer) commitDirectSync(ctx context.Context) error {
	d := c.direct
	select {
	case <-d.lastAsync: // commits stay ordered behind earlier CommitAsyncs
	case <-ctx.Done():
		return ctx.Err()
	}
	c.cbs.run() // their outcomes, and their committed positions, first
	os := d.uncommitted()
	if len(os) == 0 {
		return nil
	}
	err := commitDirect(ctx, c.adm, c.cfg.GroupID, os)
	if err == nil {
		os.Each(func(o kadm.Offset) {
			d.committed[managers.TopicPartition{Topic: o.Topic, Partition: o.Partition}] = franz.EpochOffset{Epoch: o.LeaderEpoch, Offset: o.At}
		})
	}
	return err
}

// commitDirectAsync commits every uncommitted position on its own goroutine
// after the previous CommitAsync; cb and the committed positions are
// applied on the application goroutine (callback queue).
func (c *Consumer) commitDirectAsync(cb func(error)) {
	d := c.direct
	os := d.uncommitted()
	if len(os) == 0 {
		c.cbs.push(func() { callback(cb, nil) })
		return
	}
	prev, done := d.lastAsync, make(chan struct{})
	d.lastAsync = done
	adm, groupID := c.adm, c.cfg.GroupID
	ctx, cancel := context.WithTimeout(c.clCtx, c.cfg.DefaultAPITimeout)
	c.async.add()
	go func() {
		defer c.async.done()
		defer cancel()
		defer close(done)
		var err error
		select {
		case <-prev:
			err = commitDirect(ctx, adm, groupID, os)
		case <-ctx.Done():
			err = ctx.Err()
		}
		c.cbs.push(func() {
			if err == nil && c.direct == d {
				os.Each(func(o kadm.Offset) {
					d.committed[managers.TopicPartition{Topic: o.Topic, Partition: o.Partition}] = franz.EpochOffset{Epoch: o.LeaderEpoch, Offset: o.At}
				})
			}
			callback(cb, commitFailed(err))
		})
	}()
}

// callback runs cb (may be nil) with err.
func callback(cb func(error), err error) {
	if cb != nil {
		cb(err)
	}
}
