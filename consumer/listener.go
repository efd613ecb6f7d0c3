package consumer

import (
	"context"
	"sync"
	"time"

	"github.com/kreactor/kreactor/internal/client"
	"github.com/kreactor/kreactor/internal/mutant"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/reactor"
)

// RebalanceListener is Java's ConsumerRebalanceListener. Its methods run on
// the goroutine that calls Poll, inside Poll, one at a time, in Java's
// order (AbstractMembershipManager.revokeAndAssign): for each new
// assignment, first the auto-commit of the consumed positions (with
// enable.auto.commit), then OnPartitionsRevoked with the partitions taken
// away (only if there are any), then OnPartitionsAssigned with the
// partitions added (always, possibly none); the assignment is acknowledged
// to the coordinator only after OnPartitionsAssigned returned. When the
// member loses its partitions without a revocation (fenced:
// FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID; max.poll.interval.ms passed;
// a fatal error) OnPartitionsLost gets them instead. Partitions are sorted
// by topic, then partition. A method may call the Consumer (CommitSync,
// Seek, Pause, Assignment); while it runs, no record of a revoked
// partition is returned and the revoked partitions are not fetched.
type RebalanceListener interface {
	OnPartitionsRevoked(partitions []managers.TopicPartition)
	OnPartitionsAssigned(partitions []managers.TopicPartition)
	OnPartitionsLost(partitions []managers.TopicPartition)
}

// SubscribeWithListener is Subscribe with a rebalance listener (Java's
// subscribe(Collection, ConsumerRebalanceListener)); a nil listener removes
// it. Errors as Subscribe.
func (c *Consumer) SubscribeWithListener(listener RebalanceListener, topics ...string) error {
	c.rb.set(listener)
	return c.Subscribe(topics...)
}

// rebalance is the application side of reconciliation: the listener and
// the listener calls the engine queued for the next Poll.
type rebalance struct {
	mu       sync.Mutex
	listener RebalanceListener
	queued   []func()
}

func (r *rebalance) set(l RebalanceListener) {
	r.mu.Lock()
	r.listener = l
	r.mu.Unlock()
}

func (r *rebalance) current() RebalanceListener {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.listener
}

// run runs the queued listener calls on the calling (Poll's) goroutine, in
// the order queued, and reports whether it ran any.
func (r *rebalance) run() bool {
	ran := false
	for {
		r.mu.Lock()
		if len(r.queued) == 0 {
			r.mu.Unlock()
			return ran
		}
		fn := r.queued[0]
		r.queued = r.queued[1:]
		r.mu.Unlock()
		fn()
		ran = true
	}
}

func (r *rebalance) queue(fn func()) {
	r.mu.Lock()
	r.queued = append(r.queued, fn)
	r.mu.Unlock()
}

// useRebalance makes g's reconciliation go through the auto-commit before
// revocation and the listener (group.RebalanceHooks).
func useRebalance(g *client.Group, app *application, r *rebalance) {
	if mutant.On("reconcile-at-once") {
		return
	}
	g.Member.UseRebalanceHooks(group.RebalanceHooks{
		Revoking: g.Fetch.Revoke,
		Commit: func(tx *reactor.Tx, deadline time.Time, done func(*reactor.Tx, error)) bool {
			offsets := g.Fetch.Handed()
			if !g.Cfg.EnableAutoCommit || len(offsets) == 0 {
				return false
			}
			// What this commit takes as processed (every record handed,
			// as Java's allConsumed) becomes the consumed position of the
			// partitions the member keeps too: else the next periodic
			// auto-commit sends the older consumed position and the
			// committed offset goes backwards (explore's commit-backwards:
			// 10 before the revocation, then 9).
			g.Fetch.MarkConsumed(offsets)
			g.Commit.EnqueueInEngine(offsets, deadline, done)
			return true
		},
		Listener: func(tx *reactor.Tx, method group.ListenerMethod, tps []managers.TopicPartition, done func(*reactor.Tx)) bool {
			l := r.current()
			if l == nil {
				return false
			}
			call := func() {
				switch method {
				case group.OnPartitionsRevoked:
					l.OnPartitionsRevoked(tps)
				case group.OnPartitionsAssigned:
					l.OnPartitionsAssigned(tps)
				case group.OnPartitionsLost:
					l.OnPartitionsLost(tps)
				}
				_ = g.Submit(context.Background(), "rebalance listener returned", done)
			}
			tx.Effect(func() { r.queue(call) })
			// A Poll waiting returns to run it, then waits again.
			if app.poll.Claim() {
				app.poll.Answer(tx, pollReply{})
			}
			return true
		},
	})
}

// poll is Poll with the listener calls: queued ones run first, and a Poll
// the engine released to run one runs it and waits again until ctx is done.
func (c *Consumer) poll(ctx context.Context) ([]Record, error) {
	for {
		c.rb.run()
		recs, err := c.g.Poll(ctx)
		if err != nil || len(recs) > 0 {
			return recs, err
		}
		if !c.rb.run() || ctx.Err() != nil {
			return recs, err
		}
	}
}

// releaseOnClose runs the listener for the partitions the member owns when
// Close starts, on the calling goroutine (Java's close runs
// onPartitionsRevoked on the application thread before the leave:
// AsyncKafkaConsumer.runRebalanceCallbacksOnClose; onPartitionsLost instead
// for a member that lost them). Java runs it after the final auto-commit;
// here it runs before Close's commit phase, which commits afterwards what
// the listener did not. A consumer with a manual assignment, or none, calls
// nothing; calls queued by the engine and not yet run are dropped (the
// assignment they describe is over).
func (c *Consumer) releaseOnClose() {
	l := c.rb.current()
	c.rb.mu.Lock()
	c.rb.queued = nil
	c.rb.mu.Unlock()
	if l == nil {
		return
	}
	s := c.g.Diagnostics().Snapshot()
	if s == nil || len(s.Assignment) == 0 {
		return
	}
	switch s.MemberState {
	case managers.MemberStable, managers.MemberJoining:
		l.OnPartitionsRevoked(s.Assignment)
	case managers.MemberFatal, managers.MemberStale:
		l.OnPartitionsLost(s.Assignment)
	}
}
