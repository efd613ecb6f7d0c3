package baseline

// The baseline regular consumer: the same managers as consumer.New, built by
// the same assembly seam (internal/client), on the baseline Loop, with an
// application side that models today's AsyncKafkaConsumer (see
// docs/java-consumer-today.md). Each modelled defect
// names its Jira.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/internal/client"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/reactor"
)

// New validates cfg like consumer.New, except that it accepts a zero
// RetryBackoff as today's consumer does (KAFKA-21049), and starts a
// consumer on the baseline model. Errors: *consumer.ConfigError.
func New(cfg consumer.Config) (*Consumer, error) {
	if err := zeroBackoffAccepted(cfg.Validate(), cfg.RetryBackoff); err != nil {
		return nil, err
	}
	g := client.NewGroup(cfg)
	p := &groupPath{g: g, shared: &fetchBuffer{wake: make(chan struct{}, 1), consumed: map[managers.TopicPartition]managers.Position{}}}
	g.NeedsCoordinator = p.needsCoordinator
	g.OnSeek = p.shared.seek
	loop, err := NewLoop(Config[group.View]{Config: g.EngineConfig(p.shared), AfterIteration: p.afterIteration})
	if err != nil {
		return nil, err
	}
	p.loop = loop
	g.Start(loop, p)
	return &Consumer{g}, nil
}

// fetchBuffer models the objects today's application and background threads
// share: the fetch buffer with its sticky "woken" flag, the positions the
// application thread advances when it collects (SubscriptionState), the
// background event queue and the metadata error field.
type fetchBuffer struct {
	mu        sync.Mutex // guards the fields below
	records   []consumer.Record
	consumed  map[managers.TopicPartition]managers.Position
	bgErrors  []error
	metaErr   error
	pollEvent bool            // a poll event is submitted and not yet processed
	prefetch  []chan struct{} // CreateFetchRequests waiters

	wake   chan struct{} // buffer 1: the sticky woken flag
	wakeup atomic.Bool   // Wakeup requested
}

// seek drops the buffered records of tp and moves its consumed position
// (Seek, engine goroutine).
func (b *fetchBuffer) seek(tp managers.TopicPartition, pos managers.Position) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.records = slices.DeleteFunc(b.records, func(r consumer.Record) bool { return r.Topic == tp.Topic && r.Partition == tp.Partition })
	b.consumed[tp] = pos
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

// groupPath is the regular consumer's application side as today's
// application thread runs it (client.GroupPath).
type groupPath struct {
	g      *client.Group
	loop   *Loop[group.View]
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
func (p *groupPath) needsCoordinator(group.View) bool {
	return p.g.Cfg.GroupID != "" && (!p.discoveryStopped || p.closingPhase)
}

// afterIteration runs on the engine goroutine after each iteration's
// publication.
func (p *groupPath) afterIteration(d *reactor.Decision) {
	g, b := p.g, p.shared
	b.mu.Lock()
	room := g.Cfg.MaxBufferedRecords - len(b.records)
	b.mu.Unlock()
	var recs []consumer.Record
	if room > 0 {
		recs, _ = g.Fetch.Take(room)
	}
	errs := append(g.Member.TakeErrors(), g.Fetch.TakeErrors()...)
	var metaErr error
	if v := g.Meta.Version(); v != p.metaReported {
		p.metaReported = v
		for _, t := range g.MetadataTopics() {
			if tm, ok := g.Meta.Topic(t); ok && tm.Err != nil && !kerr.IsRetriable(tm.Err) {
				metaErr = errors.Join(metaErr, fmt.Errorf("topic %s: %w", t, tm.Err))
			}
		}
	}
	if err := g.Member.LastError(); g.Member.State() == managers.MemberFatal && err != nil {
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
func (p *groupPath) collect() []consumer.Record {
	b := p.shared
	b.mu.Lock()
	n := min(len(b.records), p.g.Cfg.MaxPollRecords)
	out := make([]consumer.Record, n)
	copy(out, b.records[:n])
	clear(b.records[:n])
	b.records = b.records[n:]
	for i := range out {
		r := &out[i]
		b.consumed[managers.TopicPartition{Topic: r.Topic, Partition: r.Partition}] = managers.Position{Offset: r.Offset + 1, LeaderEpoch: r.LeaderEpoch}
	}
	b.mu.Unlock()
	return out
}

func (p *groupPath) takeError() error {
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
func (p *groupPath) prefetch(ctx context.Context) {
	done := make(chan struct{})
	if p.g.Submit(ctx, "create-fetch-requests", func(*reactor.Tx) {
		p.shared.mu.Lock()
		p.shared.prefetch = append(p.shared.prefetch, done)
		p.shared.mu.Unlock()
	}) != nil {
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	case <-p.g.Eng.Done():
	}
	p.g.Woke()
}

func (p *groupPath) Poll(ctx context.Context) ([]consumer.Record, error) {
	g, b := p.g, p.shared
	for {
		if b.wakeup.Swap(false) {
			return nil, consumer.ErrWakeup
		}
		b.mu.Lock()
		submit := !b.pollEvent
		b.pollEvent = true
		b.mu.Unlock()
		if submit {
			// Java's poll event resets the max.poll.interval.ms timer.
			if err := g.Submit(ctx, "poll", func(tx *reactor.Tx) { g.Member.OnPoll(tx.Now) }); err != nil {
				return nil, client.CtxResult(err)
			}
		}
		if err := p.takeError(); err != nil {
			return nil, err
		}
		if recs := p.collect(); len(recs) > 0 {
			p.prefetch(ctx)
			return recs, nil
		}
		if end, err := waitFetchBuffer(ctx, b.wake, p.loop.MaximumTimeToWait(), g.Eng.Done(), true, g.Woke); end {
			return nil, err
		}
		if recs := p.collect(); len(recs) > 0 {
			p.prefetch(ctx)
			return recs, nil
		}
		if ctx.Err() != nil {
			return nil, client.CtxResult(ctx.Err())
		}
	}
}

// waitFetchBuffer models the application thread's wait in poll, on the
// fetch buffer's sticky wake flag for the cached maximum wait (capped by
// ctx's deadline), and counts the wake with woke. A wait of zero or less
// only checks the flag; the regular consumer's check also sees ctx end
// (CtxResult of its error) and the engine stop, the share consumer's does
// not (ShareConsumerImpl). It returns end true when Poll must return err
// now: ErrClosed when the engine stopped, or CtxResult of ctx's error.
func waitFetchBuffer(ctx context.Context, wake chan struct{}, wait time.Duration, stopped <-chan struct{}, zeroSeesCtx bool, woke func()) (end bool, err error) {
	if d, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(d))
	}
	switch {
	case wait > 0:
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-wake:
		case <-t.C:
		case <-ctx.Done():
		case <-stopped:
			return true, consumer.ErrClosed
		}
	case zeroSeesCtx:
		select {
		case <-wake:
		case <-ctx.Done():
			return true, client.CtxResult(ctx.Err())
		case <-stopped:
			return true, consumer.ErrClosed
		default:
		}
	default:
		select {
		case <-wake:
		default:
		}
	}
	woke()
	return false, nil
}

// CommitSync and CommitAsync commit what the application thread collected
// (the positions collect advanced, which the background auto-commit reads
// too: KAFKA-18641).
func (p *groupPath) CommitSync(ctx context.Context) error {
	return p.g.CommitSyncOf(ctx, p.shared.Consumed)
}

func (p *groupPath) CommitAsync(cb func(error)) { p.g.CommitAsyncOf(p.shared.Consumed, cb) }

func (p *groupPath) Wakeup() {
	p.shared.wakeup.Store(true)
	p.shared.signal()
}

// Close models today's sequence, as separate waits: a timer of min(timeout,
// request.timeout.ms); commitSync with auto-commit; stop coordinator
// discovery; leave the group; wait for async commits; then the close-time
// pass, which keeps running while anything is in flight or unsent, until
// the timer expires.
func (p *groupPath) Close(ctx context.Context) error {
	g := p.g
	deadline := client.CloseDeadline(ctx, g.Cfg.RequestTimeout)
	cctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	if g.Cfg.EnableAutoCommit && g.Cfg.GroupID != "" {
		_ = p.CommitSync(cctx)
	}
	_ = g.Submit(cctx, "stop-coordinator-discovery", func(*reactor.Tx) { p.discoveryStopped = true })
	_ = g.Submit(cctx, "leave-group", func(*reactor.Tx) { g.Member.Leave(); g.Closing = true })
	_ = g.WaitFor(cctx, func(s *client.Snapshot) bool { return s.MemberState != managers.MemberLeaving })
	_ = g.WaitFor(cctx, func(s *client.Snapshot) bool { return s.PendingCommits == 0 })
	_ = g.Submit(cctx, "poll-on-close", func(*reactor.Tx) { p.closingPhase = true })
	_, _ = g.Eng.WaitFor(cctx, func(pub *reactor.Publication) bool {
		s, ok := pub.Snapshot.(*client.Snapshot)
		return ok && s.InFlight == 0 && !unsent(pub.Decision, g.Meta.Name())
	})
	return nil
}

// unsent reports whether a request manager of d still has a request to
// send: it is Ready, or due to retry (a FindCoordinator in its backoff
// while the coordinator is unknown, KAFKA-18569). Java's close-time pass
// loops while the network client has requests unsent or in flight
// (NetworkClientDelegate.hasAnyPendingRequests), until its timer; a
// manager that keeps producing requests holds it there, which is how
// KAFKA-18569's close takes its full timeout. A wait for an input is no
// request, and neither is the metadata refresh timer (the manager named
// metadata: metadata.max.age.ms, or a refresh after an error): Java's
// metadata is the network client's own, not a request manager's, and is
// sent during the pass only when due while it polls.
func unsent(d *reactor.Decision, metadata string) bool {
	for _, r := range d.Results {
		switch {
		case r.Kind == reactor.KindReady:
			return true
		case r.Kind == reactor.KindRetryAt && r.Manager != metadata:
			return true
		}
	}
	return false
}
