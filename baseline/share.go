package baseline

// The baseline share consumer: the same share managers as
// consumer.NewShare, built by the same assembly seam, on the baseline Loop,
// with an application side modelled on today's ShareConsumerImpl: records
// handed over through a shared buffer with a sticky wake flag, the cached
// maximum wait, completions delivered before the iteration's state is
// published, and close as a sequence of waits on separate conditions.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/internal/client"
	"github.com/kreactor/kreactor/managers/share"
	"github.com/kreactor/kreactor/reactor"
)

// NewShare validates cfg like consumer.NewShare (a zero RetryBackoff is
// accepted, as today) and starts a share consumer on the baseline model.
// Its Poll, Wakeup and Close follow today's paths (see the package doc).
// Errors: *consumer.ConfigError.
func NewShare(cfg consumer.ShareConfig) (*ShareConsumer, error) {
	if err := zeroBackoffAccepted(cfg.Validate(), cfg.RetryBackoff); err != nil {
		return nil, err
	}
	s := client.NewShare(cfg)
	b := &shareBuffer{wake: make(chan struct{}, 1)}
	loop, err := NewLoop(Config[share.View]{
		Config: s.EngineConfig(),
		AfterIteration: func(*reactor.Decision) {
			recs := s.Consume.Take(max(cfg.MaxBufferedRecords-b.len(), 0))
			errs := append(s.Member.TakeErrors(), s.Consume.TakeErrors()...)
			b.add(recs, errs)
		},
	})
	if err != nil {
		return nil, err
	}
	s.Start(loop, &sharePath{s: s, loop: loop, buf: b})
	return &ShareConsumer{s}, nil
}

// shareBuffer is the fetch buffer today's application thread reads.
type shareBuffer struct {
	mu      sync.Mutex // guards records, errs, woken
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

// takeWoken returns and clears the wakeup flag.
func (b *shareBuffer) takeWoken() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	woken := b.woken
	b.woken = false
	return woken
}

// sharePath is the share consumer's application side as today's
// application thread runs it (client.SharePath).
type sharePath struct {
	s    *client.Share
	loop *Loop[share.View]
	buf  *shareBuffer
}

func (p *sharePath) Poll(ctx context.Context) ([]consumer.ShareRecord, error) {
	s := p.s
	settled := make(chan error, 1)
	if err := s.Submit(ctx, "poll", func(tx *reactor.Tx) {
		s.App.SetDemand(tx.Now, true)
		settled <- s.App.Settle()
	}); err != nil {
		return nil, client.CtxResult(err)
	}
	defer func() {
		_ = s.Submit(context.Background(), "poll-returned", func(tx *reactor.Tx) { s.App.SetDemand(tx.Now, false) })
	}()
	select {
	case err := <-settled:
		s.Woke()
		if err != nil {
			return nil, err
		}
	case <-ctx.Done():
		s.Woke()
		return nil, client.CtxResult(ctx.Err())
	case <-s.Eng.Done():
		s.Woke()
		return nil, consumer.ErrClosed
	}
	for {
		if p.buf.takeWoken() {
			return nil, consumer.ErrWakeup
		}
		recs, err := p.buf.take(s.Cfg.MaxPollRecords)
		if err != nil {
			return nil, err
		}
		if len(recs) > 0 {
			out := make([]consumer.ShareRecord, len(recs))
			for i, r := range recs {
				out[i] = consumer.ShareRecord{Record: client.FromKgo(r.Record), DeliveryCount: r.DeliveryCount}
			}
			return out, nil
		}
		if end, err := waitFetchBuffer(ctx, p.buf.wake, p.loop.MaximumTimeToWait(), s.Eng.Done(), false, s.Woke); end {
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, client.CtxResult(ctx.Err())
		}
	}
}

func (p *sharePath) Wakeup() { p.buf.wakeup() }

// Close models today's order: final acknowledgements, wait for the sessions
// to close, leave, wait for the leave; each wait bounded by the timer alone.
func (p *sharePath) Close(ctx context.Context) error {
	s := p.s
	cctx, cancel := context.WithDeadline(context.Background(), client.CloseDeadline(ctx, s.Cfg.RequestTimeout))
	defer cancel()
	_ = s.Submit(cctx, "close-acknowledgements", func(*reactor.Tx) {
		s.Consume.AcknowledgeAll(share.AckAccept)
		s.Consume.Close()
	})
	acked := waitDone(cctx, s, func() bool { return s.Consume.Done() })
	_ = s.Submit(cctx, "leave-share-group", func(*reactor.Tx) { s.Member.Leave() })
	left := waitDone(cctx, s, func() bool { return s.Member.Done() })
	if !acked || !left {
		return fmt.Errorf("%w: acknowledgements done %v, left %v", consumer.ErrCloseDeadline, acked, left)
	}
	return nil
}

// waitDone polls cond on the engine goroutine after each iteration until it
// holds or ctx ends (today's close loops on the network thread's progress).
func waitDone(ctx context.Context, s *client.Share, cond func() bool) bool {
	for {
		res := make(chan bool, 1)
		if s.Submit(ctx, "check", func(*reactor.Tx) { res <- cond() }) != nil {
			return false
		}
		select {
		case ok := <-res:
			s.Woke()
			if ok {
				return true
			}
		case <-ctx.Done():
			s.Woke()
			return false
		}
		select {
		case <-time.After(10 * time.Millisecond):
			s.Woke()
		case <-ctx.Done():
			s.Woke()
			return false
		}
	}
}
