package consumer

// The baseline subject: the same managers on reactor/baseline, with an
// application side that models today's AsyncKafkaConsumer (see
// ../../shared/reference/java-consumer-today.md). It exists so every
// regression spec can be shown to fail where the shape exists. Each
// modelled defect names its Jira.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/reactor"
	"github.com/kreactor/kreactor/reactor/baseline"
)

// NewBaseline validates cfg like New, except that it accepts a zero
// RetryBackoff as today's consumer does (KAFKA-21049), and starts a
// consumer on the baseline model. Errors: *ConfigError.
func NewBaseline(cfg Config) (*Consumer, error) {
	if err := cfg.validate(); err != nil {
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != "RetryBackoff" || cfg.RetryBackoff != 0 {
			return nil, err
		}
	}
	c := newConsumer(cfg, "baseline")
	p := &baselinePath{c: c, shared: &fetchBuffer{wake: make(chan struct{}, 1), consumed: map[managers.TopicPartition]managers.Position{}}}
	c.needsCoord = p.needsCoordinator
	loop, err := baseline.New(baseline.Config[group.View]{
		Config:         reactor.Config[group.View]{Managers: c.managers(p.shared), View: c.view, Snapshot: c.snapshot, Transport: c.tr},
		AfterIteration: p.afterIteration,
	})
	if err != nil {
		return nil, err
	}
	c.eng = loop
	p.loop = loop
	c.path = p
	loop.Start()
	return c, nil
}

// fetchBuffer models the objects today's application and background threads
// share: the fetch buffer with its sticky "woken" flag, the positions the
// application thread advances when it collects (SubscriptionState), the
// background event queue and the metadata error field.
type fetchBuffer struct {
	mu        sync.Mutex // guards the fields below
	records   []*kgo.Record
	consumed  map[managers.TopicPartition]managers.Position
	bgErrors  []error
	metaErr   error
	pollEvent bool            // a poll event is submitted and not yet processed
	prefetch  []chan struct{} // CreateFetchRequests waiters

	wake   chan struct{} // buffer 1: the sticky woken flag
	wakeup atomic.Bool   // Wakeup requested
}

func (b *fetchBuffer) signal() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// Consumed implements group.ConsumedSource: the background auto-commit reads
// the positions the application thread advanced at collect time, before the
// records were returned (KAFKA-18641).
func (b *fetchBuffer) Consumed() map[managers.TopicPartition]managers.Position {
	b.mu.Lock()
	defer b.mu.Unlock()
	return maps.Clone(b.consumed)
}

type baselinePath struct {
	c      *Consumer
	loop   *baseline.Loop[group.View]
	shared *fetchBuffer

	// engine goroutine only
	discoveryStopped bool
	closingPhase     bool
	metaReported     uint64
}

// needsCoordinator models today's rule: discovery runs whenever a group id
// is set, until close stops it; the close-time pass (pollOnClose) runs it
// again regardless (KAFKA-18569), and a commit still pending after the stop
// can never find its coordinator (KAFKA-19357).
func (p *baselinePath) needsCoordinator(group.View) bool {
	return p.c.cfg.GroupID != "" && (!p.discoveryStopped || p.closingPhase)
}

// afterIteration runs on the engine goroutine after each iteration's
// publication.
func (p *baselinePath) afterIteration(d *reactor.Decision) {
	c, b := p.c, p.shared
	b.mu.Lock()
	room := c.cfg.MaxBufferedRecords - len(b.records)
	b.mu.Unlock()
	var recs []*kgo.Record
	if room > 0 {
		recs = c.fetch.Take(room)
	}
	errs := c.fetch.TakeErrors()
	var metaErr error
	if v := c.meta.Version(); v != p.metaReported {
		p.metaReported = v
		for _, t := range c.metadataTopics() {
			if tm, ok := c.meta.Topic(t); ok && tm.Err != nil && !kerr.IsRetriable(tm.Err) {
				metaErr = errors.Join(metaErr, fmt.Errorf("topic %s: %w", t, tm.Err))
			}
		}
	}
	if err := c.member.LastError(); c.member.State() == group.MemberFatal && err != nil {
		errs = append(errs, err)
	}
	fetchResult, _ := d.Result("fetch")
	b.mu.Lock()
	wake := len(recs) > 0
	b.records = append(b.records, recs...)
	b.bgErrors = append(b.bgErrors, errs...) // processed when the application next looks; no signal
	if metaErr != nil {
		b.metaErr = metaErr // set without signalling the fetch buffer (KAFKA-20397)
	}
	if b.pollEvent {
		b.pollEvent = false
		// Fetch preparation came back empty for a no-progress reason
		// (nothing fetchable: paused, no position, leader unknown, node
		// backing off), yet the fetch buffer is woken (KAFKA-20854). The
		// model leaves out "only a fetch in flight": upstream, the lost
		// wakeup of KAFKA-20397 (still open) exists because that case no
		// longer wakes the buffer, and one model cannot have both.
		if fetchResult.Kind != reactor.KindReady && fetchResult.Inputs != reactor.InputResponse {
			wake = true
		}
	}
	waiters := b.prefetch
	b.prefetch = nil
	b.mu.Unlock()
	if wake {
		b.signal()
	}
	for _, w := range waiters {
		close(w)
	}
}

// collect takes up to max.poll.records from the fetch buffer and advances the
// shared positions at once, on the application thread, before the records
// are returned.
func (p *baselinePath) collect() []Record {
	b := p.shared
	b.mu.Lock()
	n := min(len(b.records), p.c.cfg.MaxPollRecords)
	recs := b.records[:n]
	b.records = b.records[n:]
	out := make([]Record, n)
	for i, r := range recs {
		out[i] = fromKgo(r)
		b.consumed[managers.TopicPartition{Topic: r.Topic, Partition: r.Partition}] = managers.Position{Offset: r.Offset + 1, LeaderEpoch: r.LeaderEpoch}
	}
	b.mu.Unlock()
	return out
}

func (p *baselinePath) takeError() error {
	b := p.shared
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.bgErrors) > 0 {
		err := errors.Join(b.bgErrors...)
		b.bgErrors = nil
		return err
	}
	if b.metaErr != nil {
		err := b.metaErr
		b.metaErr = nil
		return err
	}
	return nil
}

// prefetch models sendPrefetches: a CreateFetchRequests event the
// application waits for before returning records; it completes after the
// background iteration that polls the managers (the auto-commit may go out
// in that iteration with the positions collect already advanced).
func (p *baselinePath) prefetch(ctx context.Context) {
	done := make(chan struct{})
	if p.c.submit(ctx, "create-fetch-requests", func(*reactor.Tx) {
		p.shared.mu.Lock()
		p.shared.prefetch = append(p.shared.prefetch, done)
		p.shared.mu.Unlock()
	}) != nil {
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	case <-p.c.eng.Done():
	}
}

func (p *baselinePath) poll(ctx context.Context) ([]Record, error) {
	c, b := p.c, p.shared
	for {
		if b.wakeup.Swap(false) {
			return nil, ErrWakeup
		}
		b.mu.Lock()
		submit := !b.pollEvent
		b.pollEvent = true
		b.mu.Unlock()
		if submit {
			if err := c.submit(ctx, "poll", func(*reactor.Tx) {}); err != nil {
				return nil, ctxResult(err)
			}
		}
		if err := p.takeError(); err != nil {
			return nil, err
		}
		if recs := p.collect(); len(recs) > 0 {
			p.prefetch(ctx)
			return recs, nil
		}
		wait := p.loop.MaximumTimeToWait()
		if d, ok := ctx.Deadline(); ok {
			wait = min(wait, time.Until(d))
		}
		if wait <= 0 {
			select {
			case <-b.wake:
			case <-ctx.Done():
				return nil, ctxResult(ctx.Err())
			case <-c.eng.Done():
				return nil, ErrClosed
			default:
			}
		} else {
			t := time.NewTimer(wait)
			select {
			case <-b.wake:
			case <-t.C:
			case <-ctx.Done():
			case <-c.eng.Done():
				t.Stop()
				return nil, ErrClosed
			}
			t.Stop()
		}
		c.appWakeups.Add(1)
		if recs := p.collect(); len(recs) > 0 {
			p.prefetch(ctx)
			return recs, nil
		}
		if ctx.Err() != nil {
			return nil, ctxResult(ctx.Err())
		}
	}
}

func (p *baselinePath) commitSync(ctx context.Context) error {
	c := p.c
	deadline := time.Now().Add(c.cfg.DefaultAPITimeout)
	if d, ok := ctx.Deadline(); ok {
		deadline = d
	}
	result := make(chan commitResult, 1)
	if err := c.submit(ctx, "commit-sync", func(tx *reactor.Tx) {
		c.commit.Enqueue(tx, p.shared.Consumed(), deadline, func(err error, v uint64) { result <- commitResult{err, v, c.eng.Current().Decision.Version} })
	}); err != nil {
		return err
	}
	select {
	case r := <-result:
		c.appWakeups.Add(1)
		c.noteCommitReturn(r.published, r.version)
		return r.err
	case <-c.eng.Done():
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *baselinePath) commitAsync(cb func(error)) {
	c := p.c
	deadline := time.Now().Add(c.cfg.DefaultAPITimeout)
	if err := c.submit(context.Background(), "commit-async", func(tx *reactor.Tx) {
		c.commit.Enqueue(tx, p.shared.Consumed(), deadline, func(err error, _ uint64) { c.queueCallback(cb, err) })
	}); err != nil && cb != nil {
		cb(err)
	}
}

func (p *baselinePath) wakeup() {
	p.shared.wakeup.Store(true)
	p.shared.signal()
}

// close models today's sequence: a timer of min(timeout, request.timeout.ms);
// commitSync with auto-commit; stop coordinator discovery; leave the group;
// wait for async commits; then the close-time pass, which keeps running
// while anything is in flight or unsent, until the timer expires.
func (p *baselinePath) close(ctx context.Context) error {
	c := p.c
	deadline := closeDeadline(ctx)
	if rt := time.Now().Add(c.cfg.RequestTimeout); rt.Before(deadline) {
		deadline = rt
	}
	cctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	if c.cfg.EnableAutoCommit && c.cfg.GroupID != "" {
		_ = p.commitSync(cctx)
	}
	_ = c.submit(cctx, "stop-coordinator-discovery", func(*reactor.Tx) { p.discoveryStopped = true })
	_ = c.submit(cctx, "leave-group", func(*reactor.Tx) { c.member.Leave(); c.closing = true })
	_ = c.WaitFor(cctx, func(s *Snapshot) bool { return s.MemberState != group.MemberLeaving })
	_ = c.WaitFor(cctx, func(s *Snapshot) bool { return s.PendingCommits == 0 })
	_ = c.submit(cctx, "poll-on-close", func(*reactor.Tx) { p.closingPhase = true })
	_, _ = c.eng.WaitFor(cctx, func(pub *reactor.Publication) bool {
		s, ok := pub.Snapshot.(*Snapshot)
		if !ok || s.InFlight > 0 {
			return false
		}
		for _, r := range pub.Decision.Results {
			if r.Kind != reactor.KindIdle {
				return false
			}
		}
		return true
	})
	return nil
}
