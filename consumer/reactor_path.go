package consumer

import (
	"context"
	"time"

	"github.com/kreactor/kreactor/reactor"
)

// reactorPath is the application side on the reactor: every call enqueues
// an event and waits for an effect, which runs only after the decision that
// includes it is published (invariants 4 and 5).
type reactorPath struct {
	c      *Consumer
	app    *application
	pollID uint64 // application goroutine only (calls are serialised)
}

func (p *reactorPath) poll(ctx context.Context) ([]Record, error) {
	c := p.c
	p.pollID++
	pp := &pendingPoll{id: p.pollID, reply: make(chan pollReply, 1)}
	received := c.receivedCopy()
	if err := c.submit(ctx, "poll", func(tx *reactor.Tx) { p.app.onPoll(tx, pp, received) }); err != nil {
		return nil, ctxResult(err)
	}
	select {
	case r := <-pp.reply:
		c.appWakeups.Add(1)
		return p.deliver(r)
	case <-c.eng.Done():
		return p.drain(pp, ErrClosed)
	case <-ctx.Done():
		c.appWakeups.Add(1)
	}
	// Cancel through the loop so records handed over concurrently are
	// returned, never lost.
	acked := make(chan struct{})
	if c.submit(context.Background(), "poll-cancel", func(tx *reactor.Tx) {
		p.app.onCancel(tx, pp.id)
		tx.Effect(func() { close(acked) })
	}) == nil {
		select {
		case <-acked:
		case <-c.eng.Done():
		}
	}
	return p.drain(pp, ctxResult(ctx.Err()))
}

func (p *reactorPath) drain(pp *pendingPoll, err error) ([]Record, error) {
	select {
	case r := <-pp.reply:
		return p.deliver(r)
	default:
		return nil, err
	}
}

func (p *reactorPath) deliver(r pollReply) ([]Record, error) {
	p.c.addReceived(r.positions)
	return r.records, r.err
}

// ctxResult maps a passed deadline to "no records, no error", as Java's
// poll(timeout).
func ctxResult(err error) error {
	if err == context.DeadlineExceeded {
		return nil
	}
	return err
}

func (p *reactorPath) commitDeadline(ctx context.Context) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now().Add(p.c.cfg.DefaultAPITimeout)
}

// CommitResult reports when a commit completed: the state version of the
// completion, for the P4 check that a call never returns before the
// decision containing its completion is published.
type commitResult struct {
	err       error
	version   uint64 // state version at which the commit completed
	published uint64 // version published when the release (the effect) ran
}

func (p *reactorPath) commitSync(ctx context.Context) error {
	c := p.c
	result := make(chan commitResult, 1)
	received := c.receivedCopy()
	deadline := p.commitDeadline(ctx)
	if err := c.submit(ctx, "commit-sync", func(tx *reactor.Tx) {
		c.fetch.MarkConsumed(received)
		c.commit.Enqueue(tx, c.fetch.Consumed(), deadline, func(err error, v uint64) { result <- commitResult{err, v, c.eng.Current().Decision.Version} })
	}); err != nil {
		return err
	}
	select {
	case r := <-result:
		c.appWakeups.Add(1)
		c.noteCommitReturn(r.published, r.version)
		return r.err
	case <-c.eng.Done():
		select {
		case r := <-result:
			return r.err
		default:
			return ErrClosed
		}
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *reactorPath) commitAsync(cb func(error)) {
	c := p.c
	received := c.receivedCopy()
	deadline := time.Now().Add(c.cfg.DefaultAPITimeout)
	if err := c.submit(context.Background(), "commit-async", func(tx *reactor.Tx) {
		c.fetch.MarkConsumed(received)
		c.commit.Enqueue(tx, c.fetch.Consumed(), deadline, func(err error, _ uint64) { c.queueCallback(cb, err) })
	}); err != nil && cb != nil {
		cb(err)
	}
}

func (p *reactorPath) wakeup() {
	_ = p.c.submit(context.Background(), "wakeup", func(tx *reactor.Tx) { p.app.onWakeup(tx) })
}

func (p *reactorPath) close(ctx context.Context) error {
	done := make(chan error, 1)
	deadline := closeDeadline(ctx)
	if err := p.c.submit(context.Background(), "close", func(tx *reactor.Tx) { p.app.onClose(deadline, done) }); err != nil {
		return nil // already stopped
	}
	select {
	case err := <-done:
		return err
	case <-p.c.eng.Done():
		select {
		case err := <-done:
			return err
		default:
			return nil
		}
	}
}
