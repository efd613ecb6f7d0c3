package baseline

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kreactor/kreactor/reactor"
)

// MaxPollTimeout is the cap on one network wait (Java's 5000 ms
// MAX_POLL_TIMEOUT_MS).
const MaxPollTimeout = 5 * time.Second

// Forever is the collapsed "no timer" answer (Long.MAX_VALUE).
const Forever = time.Duration(math.MaxInt64)

// LocalTimer is implemented by managers that have a local timer in today's
// design (heartbeat interval, auto-commit interval, discovery backoff). ok is
// false when the timer is not running.
type LocalTimer interface {
	LocalTimer() (at time.Time, ok bool)
}

// Config configures a baseline Loop. View and Transport are required.
type Config[V any] struct {
	Managers  []reactor.Manager[V]
	View      func(now time.Time) V
	Snapshot  func(d *reactor.Decision) any
	Transport reactor.Transport
	// AfterIteration runs on the loop goroutine at the end of every
	// iteration, after publication (the consumer moves fetched records to
	// the application's fetch buffer here). Optional.
	AfterIteration func(d *reactor.Decision)
	// InboxCapacity bounds the event queue. Default 1024.
	InboxCapacity int
	// TraceCapacity bounds the ring of recent iterations. Default 256.
	TraceCapacity int
}

type event struct {
	name  string
	apply func(tx *reactor.Tx)
	req   *reactor.Request
	resp  any
	err   error
}

// Loop models the background thread. Its API mirrors reactor.Loop so the
// consumer can run on either.
type Loop[V any] struct {
	cfg     Config[V]
	inbox   chan event
	stopCh  chan struct{}
	done    chan struct{}
	started atomic.Bool
	stopMu  sync.Once

	cur      atomic.Pointer[reactor.Publication]
	maxWait  atomic.Int64 // cached maximumTimeToWait, ns
	traceMu  sync.Mutex
	trace    []*reactor.Decision
	traceAt  int
	counters struct {
		steps, observations, sent, inboxWakes, timerWakes, spurious, empty, readyNoReq, dropped atomic.Uint64
	}

	// loop goroutine only
	version       uint64
	step          uint64
	stopRequested bool
}

// New validates cfg and returns a stopped loop. Errors: *reactor.ConfigError.
func New[V any](cfg Config[V]) (*Loop[V], error) {
	switch {
	case cfg.View == nil:
		return nil, &reactor.ConfigError{Field: "View", Reason: "required"}
	case cfg.Transport == nil:
		return nil, &reactor.ConfigError{Field: "Transport", Reason: "required"}
	}
	cfg.Managers = slices.Clone(cfg.Managers) // fixed at New: no runtime registration
	if cfg.InboxCapacity <= 0 {
		cfg.InboxCapacity = 1024
	}
	if cfg.TraceCapacity <= 0 {
		cfg.TraceCapacity = 256
	}
	l := &Loop[V]{cfg: cfg, inbox: make(chan event, cfg.InboxCapacity), stopCh: make(chan struct{}), done: make(chan struct{}),
		trace: make([]*reactor.Decision, 0, cfg.TraceCapacity)}
	l.maxWait.Store(int64(Forever))
	l.cur.Store(reactor.NewPublication(&reactor.Decision{At: time.Now()}, nil))
	return l, nil
}

// host is the baseline's reactor.Host: effects run at once (before
// publication), which is the modelled defect.
type host struct{ l interface{ requestStop() } }

func (h host) QueueEffect(fn func(), _ uint64) { fn() }
func (h host) RequestStop()                    { h.l.requestStop() }
func (h host) RequestRepoll()                  {} // no settle rounds in today's design

func (l *Loop[V]) requestStop() { l.stopRequested = true }

// Start runs the background goroutine. It panics if called twice.
func (l *Loop[V]) Start() {
	if !l.started.CompareAndSwap(false, true) {
		panic("baseline: Loop.Start called twice")
	}
	go l.run()
}

// Submit enqueues an application event (ApplicationEventHandler.add) and
// wakes the network wait. Errors: ctx.Err(), reactor.ErrStopped.
func (l *Loop[V]) Submit(ctx context.Context, name string, apply func(tx *reactor.Tx)) error {
	if err := ctx.Err(); err != nil {
		return err // a done ctx never enqueues: select would pick at random
	}
	select {
	case <-l.done:
		return reactor.ErrStopped
	default:
	}
	select {
	case l.inbox <- event{name: name, apply: apply}:
		return nil
	case <-l.done:
		return reactor.ErrStopped
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Stop stops the loop and waits for it. Safe to call more than once.
func (l *Loop[V]) Stop() {
	l.stopMu.Do(func() { close(l.stopCh) })
	if !l.started.CompareAndSwap(false, true) {
		<-l.done
		return
	}
	l.publish(&reactor.Decision{Closed: true, At: time.Now()}, nil)
	close(l.done)
}

// Done is closed when the loop goroutine has exited.
func (l *Loop[V]) Done() <-chan struct{} { return l.done }

// Current returns the latest publication.
func (l *Loop[V]) Current() *reactor.Publication { return l.cur.Load() }

// MaximumTimeToWait is the cached maximum wait the application reads
// (AsyncKafkaConsumer reads the network thread's volatile cache).
func (l *Loop[V]) MaximumTimeToWait() time.Duration { return time.Duration(l.maxWait.Load()) }

// WaitFor mirrors reactor.Loop.WaitFor.
func (l *Loop[V]) WaitFor(ctx context.Context, cond func(*reactor.Publication) bool) (*reactor.Publication, error) {
	for {
		p := l.cur.Load()
		if cond(p) {
			return p, nil
		}
		if p.Decision.Closed {
			return p, reactor.ErrStopped
		}
		select {
		case <-p.Changed():
		case <-ctx.Done():
			return p, ctx.Err()
		}
	}
}

// Stats mirrors reactor.Loop.Stats; a step is one runOnce iteration.
func (l *Loop[V]) Stats() reactor.Stats {
	c := &l.counters
	return reactor.Stats{Steps: c.steps.Load(), Observations: c.observations.Load(), RequestsSent: c.sent.Load(),
		InboxWakes: c.inboxWakes.Load(), TimerWakes: c.timerWakes.Load(), SpuriousWakeups: c.spurious.Load(),
		EmptySteps: c.empty.Load(), ReadyWithoutRequest: c.readyNoReq.Load(), Dropped: c.dropped.Load()}
}

// Trace returns the recent iterations' decisions, oldest first.
func (l *Loop[V]) Trace() []*reactor.Decision {
	l.traceMu.Lock()
	defer l.traceMu.Unlock()
	if len(l.trace) < cap(l.trace) {
		return append([]*reactor.Decision(nil), l.trace...)
	}
	out := append([]*reactor.Decision(nil), l.trace[l.traceAt:]...)
	return append(out, l.trace[:l.traceAt]...)
}

func (l *Loop[V]) addTrace(d *reactor.Decision) {
	l.traceMu.Lock()
	defer l.traceMu.Unlock()
	if len(l.trace) < cap(l.trace) {
		l.trace = append(l.trace, d)
		return
	}
	l.trace[l.traceAt] = d
	l.traceAt = (l.traceAt + 1) % cap(l.trace)
}

func (l *Loop[V]) publish(d *reactor.Decision, snap any) {
	old := l.cur.Swap(reactor.NewPublication(d, snap))
	reactor.Supersede(old)
}

func (l *Loop[V]) complete(req *reactor.Request) func(any, error) {
	return func(resp any, err error) {
		select {
		case <-l.done:
			l.counters.dropped.Add(1)
			return
		default:
		}
		select {
		case l.inbox <- event{name: req.Manager, req: req, resp: resp, err: err}:
		case <-l.done:
			l.counters.dropped.Add(1)
		}
	}
}

func (l *Loop[V]) apply(now time.Time, e *event) {
	l.version++
	var rv uint64
	if e.req != nil {
		rv = e.req.Version
	}
	tx := reactor.NewTx(now, l.version, rv, host{l})
	if e.req != nil {
		e.req.OnComplete(tx, e.resp, e.err)
	} else {
		e.apply(tx)
	}
	l.counters.observations.Add(1)
}

// collapse turns a result into Java's timeUntilNextPoll.
func collapse(m any, r reactor.Result, now time.Time) time.Duration {
	if lt, ok := m.(LocalTimer); ok {
		if at, running := lt.LocalTimer(); running {
			return max(at.Sub(now), 0)
		}
	}
	if r.Kind == reactor.KindRetryAt {
		return max(r.At.Sub(now), 0)
	}
	return Forever
}

func (l *Loop[V]) run() {
	defer close(l.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var first *event
	for {
		now := time.Now()
		l.step++
		l.counters.steps.Add(1)
		applied := 0
		if first != nil {
			l.apply(now, first)
			applied++
			first = nil
		}
	drain:
		for applied < cap(l.inbox) {
			select {
			case e := <-l.inbox:
				l.apply(now, &e)
				applied++
			default:
				break drain
			}
		}
		// One pass over the managers.
		view := l.cfg.View(now)
		d := &reactor.Decision{Step: l.step, Version: l.version, At: now, Applied: applied}
		pollTimeout, maxWait := MaxPollTimeout, Forever
		var trueWake time.Time // the reactor's notion of the next deadline, to count spurious wakes
		for _, m := range l.cfg.Managers {
			tx := reactor.NewTx(now, l.version, 0, host{l})
			r := m.Poll(tx, view)
			mr := reactor.ManagerResult{Manager: m.Name(), Kind: r.Kind, At: r.At, Inputs: r.Inputs, Reason: r.Reason}
			if r.Kind == reactor.KindReady {
				if len(r.Requests) == 0 {
					l.counters.readyNoReq.Add(1)
				}
				for _, req := range r.Requests {
					req.Manager, req.Version, req.Sent = m.Name(), l.version, now
					if req.OnComplete == nil {
						panic(fmt.Sprintf("baseline: manager %s returned a request without OnComplete", m.Name()))
					}
					l.cfg.Transport.Send(req, l.complete(req))
				}
				mr.Sent = len(r.Requests)
				d.Sent += len(r.Requests)
			}
			if r.Kind == reactor.KindAwait {
				d.Awaiting |= r.Inputs
			}
			if (r.Kind == reactor.KindRetryAt || r.Kind == reactor.KindAwait) && r.At.After(now) && (trueWake.IsZero() || r.At.Before(trueWake)) {
				trueWake = r.At
			}
			c := collapse(m, r, now)
			pollTimeout = min(pollTimeout, c)
			if _, ok := m.(LocalTimer); ok {
				maxWait = min(maxWait, c)
			}
			d.Results = append(d.Results, mr)
		}
		l.counters.sent.Add(uint64(d.Sent))
		if applied == 0 && d.Sent == 0 {
			l.counters.empty.Add(1)
		}
		d.Wake = now.Add(pollTimeout)
		d.Closed = l.stopRequested
		var snap any
		if l.cfg.Snapshot != nil {
			snap = l.cfg.Snapshot(d)
		}
		l.addTrace(d)
		l.publish(d, snap)
		if l.cfg.AfterIteration != nil {
			l.cfg.AfterIteration(d)
		}
		if d.Closed {
			return
		}
		// Network poll: wait for an event / completion or the poll timeout;
		// a zero timeout only checks (the busy loop of the modelled Jiras).
		woke := false
		stop := func() {
			l.publish(&reactor.Decision{Step: l.step, Version: l.version, At: time.Now(), Closed: true}, snap)
		}
		if pollTimeout == 0 {
			select {
			case e := <-l.inbox:
				l.counters.inboxWakes.Add(1)
				first, woke = &e, true
			case <-l.stopCh:
				stop()
				return
			default:
				l.counters.timerWakes.Add(1)
			}
		} else {
			timer.Reset(pollTimeout)
			select {
			case e := <-l.inbox:
				l.counters.inboxWakes.Add(1)
				first, woke = &e, true
			case <-timer.C:
				l.counters.timerWakes.Add(1)
			case <-l.stopCh:
				stop()
				return
			}
		}
		timer.Stop()
		// A wake with neither an event nor a real deadline passed is
		// spurious (the reactor's definition, applied to the model).
		if !woke && (trueWake.IsZero() || time.Now().Before(trueWake)) {
			l.counters.spurious.Add(1)
		}
		// maximumTimeToWait is cached after I/O, computed with the
		// pre-I/O time.
		l.maxWait.Store(int64(maxWait))
	}
}
