package group

// Commit.
//
// Kafka API: OffsetCommit (key 8) v9+ with the member id and member epoch
// (KIP-848) in GenerationIDOrMemberEpoch, to the group coordinator; one
// commit in flight at a time so commits apply in the order made.
// Answers: KAFKA-20253 (a pending commit with the coordinator unknown is an
// Await(coordinator), not a zero wait), KAFKA-20970 (the auto-commit timer is
// reset when a commit is queued, not when it is sent), KAFKA-19357 (a pending
// commit fails with a clear error at its deadline, never silently kept),
// KAFKA-18641 (auto-commit commits only positions the application has
// received from a completed Poll). Java's contract (CONTRACT-*): commits complete in the order
// made, so a CommitSync completes after every commit made before it (with
// nothing to commit it waits for them as a barrier), and the callbacks of
// earlier CommitAsync calls are queued before its completion (Java's
// commitSync awaits the last pending commitAsync and runs its callbacks).

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/internal/mutant"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// ConsumedSource gives the positions the application has consumed (received
// from completed Polls); the fetch manager implements it.
type ConsumedSource interface {
	Consumed() map[managers.TopicPartition]managers.Position
}

type commit struct {
	offsets  map[managers.TopicPartition]managers.Position
	deadline time.Time
	auto     bool
	queued   time.Time
	done     func(err error, version uint64) // run as an effect with the state version of the completion; may be nil
	inEngine func(tx *reactor.Tx, err error) // run on the engine at the completion (EnqueueInEngine); may be nil
	attempts int
	lastErr  error
	// barrier marks an entry with nothing to send: it completes once every
	// commit queued before it has (a CommitSync with nothing new).
	barrier bool
	// completed is set when done has been queued: a commit completes once.
	// FailAll (the close deadline) completes the one in flight too; its
	// answer arriving later is then dropped (invariant 8), not run as a
	// second completion (explore found a CommitAsync callback run
	// twice, with the close-deadline error and then with nil).
	completed bool
}

// CommitConfig configures the commit manager.
type CommitConfig struct {
	AutoCommit         bool          // enable.auto.commit
	AutoCommitInterval time.Duration // auto.commit.interval.ms
	Backoff            managers.Backoff
}

// Commit queues and sends offset commits. Loop goroutine only.
type Commit struct {
	cfg      CommitConfig
	group    string
	coord    *managers.Coordinator
	consumed ConsumedSource

	pending   []*commit
	inFlight  bool
	next      time.Time // retry backoff
	nextAuto  time.Time // next auto-commit; zero until the first assignment
	committed map[managers.TopicPartition]managers.Position
	sent      int // OffsetCommit requests sent, for figures
}

// NewCommit returns the commit manager of group.
func NewCommit(cfg CommitConfig, group string, coord *managers.Coordinator, consumed ConsumedSource) *Commit {
	return &Commit{cfg: cfg, group: group, coord: coord, consumed: consumed, committed: map[managers.TopicPartition]managers.Position{}}
}

// Name is "commit".
func (c *Commit) Name() string { return "commit" }

// Enqueue queues a commit of offsets that must complete by deadline; done
// runs as an effect (after publication) with nil or a *CommitError and the
// state version at which the commit completed. Commits complete in the
// order queued (a later one never before an earlier one, unless the earlier
// one's deadline passes first). An empty offsets map completes with nil at
// once when nothing is queued, else as a barrier once every earlier commit
// has completed (or with a *CommitError wrapping ErrCommitTimeout at its
// deadline).
func (c *Commit) Enqueue(tx *reactor.Tx, offsets map[managers.TopicPartition]managers.Position, deadline time.Time, done func(err error, version uint64)) {
	if len(offsets) == 0 {
		if len(c.pending) > 0 {
			c.pending = append(c.pending, &commit{deadline: deadline, done: done, barrier: true})
			return
		}
		if done != nil {
			v := tx.Version
			tx.Effect(func() { done(nil, v) })
		}
		return
	}
	c.pending = append(c.pending, &commit{offsets: maps.Clone(offsets), deadline: deadline, done: done})
}

// Pending is the number of commits queued or in flight.
func (c *Commit) Pending() int { return len(c.pending) }

// NeedsCoordinator reports whether commits wait for the coordinator.
func (c *Commit) NeedsCoordinator() bool { return len(c.pending) > 0 }

// Committed returns the last offsets the coordinator accepted.
func (c *Commit) Committed() map[managers.TopicPartition]managers.Position { return c.committed }

// Sent is the number of OffsetCommit requests sent so far.
func (c *Commit) Sent() int { return c.sent }

// FailAll completes every pending commit with err (close deadline passed).
func (c *Commit) FailAll(tx *reactor.Tx, err error) {
	for _, p := range c.pending {
		c.complete(tx, p, &CommitError{Partitions: len(p.offsets), Attempts: p.attempts, Err: errors.Join(err, p.lastErr)})
	}
	c.pending = nil
}

func (c *Commit) complete(tx *reactor.Tx, p *commit, err error) {
	if p.completed {
		return
	}
	p.completed = true
	if p.inEngine != nil {
		p.inEngine(tx, err)
	}
	if p.done != nil {
		done, v := p.done, tx.Version
		tx.Effect(func() { done(err, v) })
	}
}

// Poll answers what the commit manager can do now.
func (c *Commit) Poll(tx *reactor.Tx, v View) reactor.Result {
	now := tx.Now
	// Expire commits whose deadline passed (never keep them silently); the
	// one in flight (the head) waits for its answer.
	// A commit never attempted that could go now is sent once even when
	// its deadline has passed (commitSync(Duration.ZERO): Java's network
	// thread sends the request it was handed; the caller has timed out).
	sendable := !c.inFlight && v.CoordinatorKnown && !(v.InGroup && v.MemberEpoch <= 0) && !now.Before(c.next)
	kept := c.pending[:0]
	for i, p := range c.pending {
		if sendable && len(kept) == 0 && p.attempts == 0 && !p.barrier {
			kept = append(kept, p)
			continue
		}
		if !now.Before(p.deadline) && !(c.inFlight && i == 0) {
			c.complete(tx, p, &CommitError{Partitions: len(p.offsets), Attempts: p.attempts, Err: errors.Join(ErrCommitTimeout, p.lastErr)})
			continue
		}
		kept = append(kept, p)
	}
	clear(c.pending[len(kept):])
	c.pending = kept
	if !c.inFlight {
		c.releaseBarriers(tx)
	}
	autoActive := c.cfg.AutoCommit && len(v.Assignment) > 0 && !v.Closing
	if c.cfg.AutoCommit && c.nextAuto.IsZero() {
		c.nextAuto = now.Add(c.cfg.AutoCommitInterval) // the timer starts with the consumer
	}
	if c.cfg.AutoCommit && !v.Closing && !v.CoordinatorKnown && !now.Before(c.nextAuto) && mutant.On("auto-commit-timer-stale") {
		return reactor.RetryAt(c.nextAuto, "auto-commit interval")
	}
	if autoActive {
		if !now.Before(c.nextAuto) {
			// Reset the timer when the commit is queued, not when it is
			// sent (KAFKA-20970).
			c.nextAuto = now.Add(c.cfg.AutoCommitInterval)
			c.enqueueAuto(now)
		}
	}
	if len(c.pending) == 0 {
		if autoActive && !c.consumedSinceCommit() {
			// Nothing was consumed since the last commit: the timer could
			// only wake the loop to find nothing to send (a spurious
			// wakeup). What changes that is the application receiving
			// records (an application event); a due timer then commits at
			// once.
			return reactor.Await(reactor.InputApplication, "auto-commit: nothing consumed since the last commit")
		}
		if autoActive {
			return reactor.RetryAt(c.nextAuto, "auto-commit interval")
		}
		return reactor.Idle("no commit pending")
	}
	// The earliest deadline still ahead (the head in flight may be past
	// its own: it completes with its answer, bounded by request.timeout.ms).
	var deadline time.Time
	for _, p := range c.pending {
		if p.deadline.After(now) && (deadline.IsZero() || p.deadline.Before(deadline)) {
			deadline = p.deadline
		}
	}
	if failure, _ := c.coord.Failure(); failure != nil && !c.inFlight && !v.CoordinatorKnown {
		// Discovery failed with an error the application must see
		// (GROUP_AUTHORIZATION_FAILED, ...): the commits waiting for the
		// coordinator fail with it (Java's
		// CommitRequestManager.maybeFailOnCoordinatorFatalError).
		c.FailAll(tx, failure)
		if autoActive {
			return reactor.RetryAt(c.nextAuto, "auto-commit interval")
		}
		return reactor.Idle("commits failed: coordinator discovery failed")
	}
	switch {
	case c.inFlight:
		return reactor.Await(reactor.InputResponse, "OffsetCommit in flight").Until(deadline)
	case !v.CoordinatorKnown:
		return reactor.Await(reactor.InputCoordinator, "commit pending, coordinator unknown").Until(deadline)
	case v.InGroup && v.MemberEpoch <= 0:
		return reactor.Await(reactor.InputMembership, "commit pending, member has no epoch yet").Until(deadline)
	case now.Before(c.next):
		return reactor.RetryAt(minTime(c.next, deadline), "OffsetCommit backoff")
	}
	return c.send(tx, v, c.pending[0])
}

// releaseBarriers completes the barriers at the head of the queue: every
// commit queued before them has completed.
func (c *Commit) releaseBarriers(tx *reactor.Tx) {
	for len(c.pending) > 0 && c.pending[0].barrier {
		p := c.pending[0]
		c.pending = c.pending[1:]
		c.complete(tx, p, nil)
	}
}

// minTime is the earlier of a and b; a zero b (no deadline) is ignored.
func minTime(a, b time.Time) time.Time {
	if !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}

// enqueueAuto queues an auto-commit of the consumed positions that differ
// from the last committed ones, unless one is already queued.
func (c *Commit) enqueueAuto(now time.Time) {
	for _, p := range c.pending {
		if p.auto {
			return
		}
	}
	offsets := c.uncommitted()
	if len(offsets) == 0 {
		return
	}
	c.pending = append(c.pending, &commit{offsets: offsets, deadline: now.Add(max(c.cfg.AutoCommitInterval, 5*time.Second)), auto: true, queued: now})
}

// uncommitted returns the consumed positions that differ from the last
// committed ones.
func (c *Commit) uncommitted() map[managers.TopicPartition]managers.Position {
	offsets := map[managers.TopicPartition]managers.Position{}
	for tp, pos := range c.consumed.Consumed() {
		if prev, ok := c.committed[tp]; !ok || prev.Offset != pos.Offset {
			offsets[tp] = pos
		}
	}
	return offsets
}

// consumedSinceCommit reports whether an auto-commit would have anything to
// send.
func (c *Commit) consumedSinceCommit() bool { return len(c.uncommitted()) > 0 }

func (c *Commit) send(tx *reactor.Tx, v View, p *commit) reactor.Result {
	req := kmsg.NewPtrOffsetCommitRequest()
	req.Group = c.group
	req.MemberID, req.Generation = v.CommitIdentity()
	byTopic := map[string][]managers.TopicPartition{}
	for tp := range p.offsets {
		byTopic[tp.Topic] = append(byTopic[tp.Topic], tp)
	}
	for _, topic := range slices.Sorted(maps.Keys(byTopic)) {
		t := kmsg.NewOffsetCommitRequestTopic()
		t.Topic = topic
		if tm, ok := v.Meta.Topic(topic); ok {
			t.TopicID = tm.ID
		}
		tps := byTopic[topic]
		slices.SortFunc(tps, func(a, b managers.TopicPartition) int { return int(a.Partition - b.Partition) })
		for _, tp := range tps {
			pp := kmsg.NewOffsetCommitRequestTopicPartition()
			pp.Partition = tp.Partition
			pp.Offset = p.offsets[tp].Offset
			pp.LeaderEpoch = p.offsets[tp].LeaderEpoch
			t.Partitions = append(t.Partitions, pp)
		}
		req.Topics = append(req.Topics, t)
	}
	c.inFlight = true
	c.sent++
	p.attempts++
	node := v.Coordinator.Node
	return reactor.Ready("commit pending", &reactor.Request{
		Payload: &managers.Call{Node: node, Addr: v.Coordinator.Addr, Req: req},
		OnComplete: func(tx *reactor.Tx, resp any, err error) {
			c.onResponse(tx, node, v.Meta, p, resp, err)
		},
	})
}

func (c *Commit) onResponse(tx *reactor.Tx, node int32, meta *managers.Metadata, p *commit, resp any, err error) {
	c.inFlight = false
	var r *kmsg.OffsetCommitResponse
	if err == nil {
		r, err = managers.As[*kmsg.OffsetCommitResponse](kmsg.OffsetCommit, node, resp)
	}
	scope := managers.ScopeResponse // a transport failure
	if err == nil {
		// OffsetCommit answers per partition; the first error decides, as
		// in Java's OffsetCommitRequestState.onResponse.
		scope = managers.ScopePartition
		err = firstPartitionError(r, meta)
	}
	if err == nil {
		for tp, pos := range p.offsets {
			c.committed[tp] = pos
		}
		c.coord.Confirm()
		c.remove(p)
		c.complete(tx, p, nil)
		c.releaseBarriers(tx)
		return
	}
	p.lastErr = err
	switch managers.Class(kmsg.OffsetCommit, scope, err) {
	case managers.ClassCoordinator:
		c.coord.MarkUnknown(node, err)
	case managers.ClassRetriable, managers.ClassMetadata:
		// retry after the backoff, with the member's newer epoch if any
	default: // failed, authorization, fatal: the commit fails with the error
		c.remove(p)
		c.complete(tx, p, &CommitError{Partitions: len(p.offsets), Attempts: p.attempts, Err: err})
		c.releaseBarriers(tx)
		return
	}
	c.next = tx.Now.Add(c.cfg.Backoff.Delay(p.attempts))
}

// firstPartitionError is the first partition error of r (naming the
// partition), or nil.
func firstPartitionError(r *kmsg.OffsetCommitResponse, meta *managers.Metadata) error {
	for _, t := range r.Topics {
		for _, pp := range t.Partitions {
			if perr := kerr.ErrorForCode(pp.ErrorCode); perr != nil {
				topic := t.Topic
				if topic == "" { // v10+ answers name topics by id
					topic, _ = meta.TopicName(t.TopicID)
				}
				return fmt.Errorf("%s/%d: %w", topic, pp.Partition, perr)
			}
		}
	}
	return nil
}

func (c *Commit) remove(p *commit) {
	c.pending = slices.DeleteFunc(c.pending, func(q *commit) bool { return q == p })
}

// LocalTimer is the auto-commit timer as today's commit manager reports it
// (package baseline): the next auto-commit, except that an auto-commit that
// is due but not yet sent keeps the timer expired, because today's timer is
// reset only when a commit is sent (the KAFKA-20970 shape); an auto-commit
// still in flight when the next is due also reads 0 (KAFKA-20253).
//
// Today's timer runs whenever auto-commit is on with a group, assignment or
// not, and a due auto-commit that cannot be sent (coordinator unknown) keeps
// it expired.
func (c *Commit) LocalTimer() (time.Time, bool) {
	if !c.cfg.AutoCommit || c.group == "" {
		return time.Time{}, false
	}
	for _, p := range c.pending {
		if p.auto && p.attempts == 0 {
			return p.queued, true
		}
	}
	// Without an assignment nothing is queued and the timer is never reset:
	// once due it stays expired.
	return c.nextAuto, true
}
