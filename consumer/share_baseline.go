package consumer

// The share consumer's baseline subject: the same share managers on
// reactor/baseline, with an application side modelled on today's
// ShareConsumerImpl: records handed over through a shared buffer with a
// sticky wake flag, the cached maximum wait, completions delivered before
// the iteration's state is published, and close as a sequence of waits on
// separate conditions.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kreactor/kreactor/managers/share"
	"github.com/kreactor/kreactor/reactor"
	"github.com/kreactor/kreactor/reactor/baseline"
)

// NewShareBaseline validates cfg like NewShare (a zero RetryBackoff is
// accepted, as today) and starts a share consumer on the baseline model.
// Its Poll, CommitSync and Close follow today's paths (see package doc of
// reactor/baseline). Errors: *ConfigError.
func NewShareBaseline(cfg ShareConfig) (*ShareConsumer, error) {
	if err := cfg.validate(); err != nil {
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != "RetryBackoff" || cfg.RetryBackoff != 0 {
			return nil, err
		}
	}
	c := newShareConsumer(cfg, "baseline")
	b := &shareBuffer{wake: make(chan struct{}, 1)}
	loop, err := baseline.New(baseline.Config[share.View]{
		Config: reactor.Config[share.View]{Managers: c.managers(), View: c.view, Snapshot: c.snapshot, Transport: c.tr},
		AfterIteration: func(*reactor.Decision) {
			recs := c.consume.Take(max(cfg.MaxBufferedRecords-b.len(), 0))
			errs := c.consume.TakeErrors()
			b.add(recs, errs)
		},
	})
	if err != nil {
		return nil, err
	}
	c.eng = loop
	c.baseline = &shareBaselinePath{c: c, loop: loop, buf: b}
	loop.Start()
	return c, nil
}

// shareBuffer is the fetch buffer today's application thread reads.
type shareBuffer struct {
	mu      sync.Mutex // guards records, errs
	records []share.Record
	errs    []error
	woken   bool          // Wakeup requested
	wake    chan struct{} // buffer 1: the sticky woken flag
}

// wakeup models wakeup(): a sticky flag the next wait sees.
func (b *shareBuffer) wakeup() {
	b.mu.Lock()
	b.woken = true
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

func (b *shareBuffer) len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.records)
}

func (b *shareBuffer) add(recs []share.Record, errs []error) {
	if len(recs) == 0 && len(errs) == 0 {
		return
	}
	b.mu.Lock()
	b.records = append(b.records, recs...)
	b.errs = append(b.errs, errs...) // background events: no signal
	b.mu.Unlock()
	if len(recs) > 0 {
		select {
		case b.wake <- struct{}{}:
		default:
		}
	}
}

func (b *shareBuffer) take(n int) ([]share.Record, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.errs) > 0 {
		err := errors.Join(b.errs...)
		b.errs = nil
		return nil, err
	}
	n = min(n, len(b.records))
	out := b.records[:n:n]
	b.records = b.records[n:]
	return out, nil
}

type shareBaselinePath struct {
	c    *ShareConsumer
	loop *baseline.Loop[share.View]
	buf  *shareBuffer
}

func (p *shareBaselinePath) poll(ctx context.Context) ([]ShareRecord, error) {
	c := p.c
	settled := make(chan error, 1)
	if err := c.submit(ctx, "poll", func(tx *reactor.Tx) {
		c.app.demand = true
		settled <- c.app.settle()
	}); err != nil {
		return nil, ctxResult(err)
	}
	defer func() {
		_ = c.submit(context.Background(), "poll-returned", func(*reactor.Tx) { c.app.demand = false })
	}()
	select {
	case err := <-settled:
		if err != nil {
			return nil, err
		}
	case <-ctx.Done():
		return nil, ctxResult(ctx.Err())
	case <-c.eng.Done():
		return nil, ErrClosed
	}
	for {
		p.buf.mu.Lock()
		woken := p.buf.woken
		p.buf.woken = false
		p.buf.mu.Unlock()
		if woken {
			return nil, ErrWakeup
		}
		recs, err := p.buf.take(c.cfg.MaxPollRecords)
		if err != nil {
			return nil, err
		}
		if len(recs) > 0 {
			out := make([]ShareRecord, len(recs))
			for i, r := range recs {
				out[i] = ShareRecord{Record: fromKgo(r.Record), DeliveryCount: r.DeliveryCount}
			}
			return out, nil
		}
		wait := p.loop.MaximumTimeToWait()
		if d, ok := ctx.Deadline(); ok {
			wait = min(wait, time.Until(d))
		}
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-p.buf.wake:
			case <-t.C:
			case <-ctx.Done():
			case <-c.eng.Done():
				t.Stop()
				return nil, ErrClosed
			}
			t.Stop()
		} else {
			select {
			case <-p.buf.wake:
			default:
			}
		}
		c.appWakeups.Add(1)
		if ctx.Err() != nil {
			return nil, ctxResult(ctx.Err())
		}
	}
}

// close models today's order: final acknowledgements, wait for the sessions
// to close, leave, wait for the leave; each wait bounded by the timer alone.
func (p *shareBaselinePath) close(ctx context.Context) error {
	c := p.c
	deadline := closeDeadline(ctx)
	cctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	_ = c.submit(cctx, "close-acknowledgements", func(*reactor.Tx) {
		c.consume.AcknowledgeAll(share.AckAccept)
		c.consume.Close()
	})
	acked := c.waitDone(cctx, func() bool { return c.consume.Done() })
	_ = c.submit(cctx, "leave-share-group", func(*reactor.Tx) { c.member.Leave() })
	left := c.waitDone(cctx, func() bool { return c.member.Done() })
	if !acked || !left {
		return fmt.Errorf("%w: acknowledgements done %v, left %v", ErrCloseDeadline, acked, left)
	}
	return nil
}

// waitDone polls cond on the engine goroutine after each iteration until it
// holds or ctx ends (today's close loops on the network thread's progress).
func (c *ShareConsumer) waitDone(ctx context.Context, cond func() bool) bool {
	for {
		res := make(chan bool, 1)
		if c.submit(ctx, "check", func(*reactor.Tx) { res <- cond() }) != nil {
			return false
		}
		select {
		case ok := <-res:
			if ok {
				return true
			}
		case <-ctx.Done():
			return false
		}
		select {
		case <-time.After(10 * time.Millisecond):
		case <-ctx.Done():
			return false
		}
	}
}
