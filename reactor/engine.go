package reactor

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kreactor/kreactor/reactor/internal/mutant"
)

// Engine is the application's side of a Core run by a driver goroutine
// (Loop; the baseline model's loop): submit events, wait on publications,
// read the counters and the decision trace. Every method is safe from any
// goroutine. NewDriver returns it together with the driver's side, which
// only the driver goroutine uses.
type Engine struct {
	inbox    chan Observation // bounded; the driver drains it
	stopCh   chan struct{}    // closed by Stop
	done     chan struct{}    // closed when the driver goroutine exits
	started  atomic.Bool      // the driver goroutine started (or Stop ran first)
	stopOnce sync.Once

	cur     atomic.Pointer[Publication] // replaced only by publish
	trace   *trace
	c       counters
	waiters atomic.Uint64 // WaitFor calls so far: each one's Waiter in the events
}

// Submit enqueues an application event; apply runs on the driver goroutine
// in inbox order. It blocks while the inbox is full, until ctx is done
// (returns ctx.Err()) or the driver stops (returns ErrStopped).
func (e *Engine) Submit(ctx context.Context, name string, apply func(tx *Tx)) error {
	if err := ctx.Err(); err != nil {
		return err // a done ctx never enqueues: select would pick at random
	}
	select {
	case <-e.done:
		return ErrStopped
	default:
	}
	// The closed decision is published before the driver goroutine exits:
	// once a waiter has seen it (WaitFor returned ErrStopped), no Submit
	// may report an event queued that no step will ever apply.
	if p := e.cur.Load(); p != nil && p.Decision != nil && p.Decision.Closed {
		return ErrStopped
	}
	select {
	case e.inbox <- Event(name, apply):
		return nil
	case <-e.done:
		return ErrStopped
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Stop stops the driver without waiting for managers to finish (the orderly
// way is Tx.Stop from a manager or an event), publishes a closed decision,
// and waits for the goroutine to exit. Safe to call more than once and on an
// engine whose driver never started.
func (e *Engine) Stop() {
	e.stopOnce.Do(func() { close(e.stopCh) })
	if !e.started.CompareAndSwap(false, true) {
		<-e.done
		return
	}
	// Never started: publish the closed decision here.
	e.publish(&Decision{Closed: true, At: time.Now()}, nil)
	close(e.done)
}

// Done is closed when the driver goroutine has exited.
func (e *Engine) Done() <-chan struct{} { return e.done }

// Current returns the latest publication.
func (e *Engine) Current() *Publication { return e.cur.Load() }

// WaitFor blocks until cond holds for a published decision and snapshot and
// returns that publication. cond is evaluated on the caller's goroutine
// against immutable data. It returns ctx.Err() when ctx is done, and
// ErrStopped if the driver stops before cond holds (cond is evaluated on the
// final, closed publication first).
func (e *Engine) WaitFor(ctx context.Context, cond func(*Publication) bool) (*Publication, error) {
	w := e.waiters.Add(1)
	for {
		var p *Publication
		if mutant.On("waitfor-check-before-take") {
			// The lost-wakeup race: the condition is evaluated on the
			// current publication, and the channel taken afterwards.
			cur := e.cur.Load()
			held := cond(cur)
			e.trace.record(TraceEvent{Kind: EventCheck, Held: held, Waiter: w, Step: cur.Decision.Step, Version: cur.Decision.Version})
			if held {
				return cur, nil
			}
			p = e.take(w)
		} else {
			p = e.take(w) // take the publication (and its channel) first: invariant 5
			held := cond(p)
			e.trace.record(TraceEvent{Kind: EventCheck, Held: held, Waiter: w, Step: p.Decision.Step, Version: p.Decision.Version})
			if held {
				return p, nil
			}
		}
		if p.Decision.Closed {
			return p, ErrStopped
		}
		e.trace.record(TraceEvent{Kind: EventBlock, Waiter: w, Step: p.Decision.Step, Version: p.Decision.Version})
		select {
		case <-p.next:
			e.trace.record(TraceEvent{Kind: EventWake, Waiter: w, Step: p.Decision.Step, Version: p.Decision.Version})
			e.NoteAppWakeup()
		case <-ctx.Done():
			e.trace.record(TraceEvent{Kind: EventWake, Cancelled: true, Waiter: w, Step: p.Decision.Step, Version: p.Decision.Version})
			e.NoteAppWakeup()
			return p, ctx.Err()
		}
	}
}

// NoteAppWakeup counts one release of an application wait that does not go
// through WaitFor (a call's reply channel, the baseline's fetch buffer):
// every engine counts application wakeups here and in WaitFor, the same
// way (Stats.AppWakeups).
func (e *Engine) NoteAppWakeup() { e.c.appWakeups.Add(1) }

// Stats returns the counters.
func (e *Engine) Stats() Stats { return e.c.snapshot() }

// Trace returns the retained recent decisions, oldest first.
func (e *Engine) Trace() []*Decision { return e.trace.decisions() }

// publish makes d and snap the current publication and closes the channel
// of the one it replaces: each publication is replaced (and its channel
// closed) exactly once.
func (e *Engine) publish(d *Decision, snap any) {
	p := &Publication{Decision: d, Snapshot: snap, next: make(chan struct{})}
	e.trace.mu.Lock() // the swap and its event in one step with respect to takes
	old := e.cur.Swap(p)
	close(old.next)
	e.trace.event(TraceEvent{Kind: EventPublish, Closed: d.Closed, N: int32(d.Effects), Step: d.Step, Version: d.Version})
	e.trace.mu.Unlock()
}

// completion returns the done function the transport calls for req: it
// queues req's completion, or drops it (counted) once the driver stopped. A
// second call panics: a transport completes each request exactly once.
func (e *Engine) completion(req *Request) func(resp any, err error) {
	var once atomic.Bool
	return func(resp any, err error) {
		if !once.CompareAndSwap(false, true) {
			panic(fmt.Sprintf("reactor: transport completed a %s request twice", req.Manager))
		}
		select {
		case <-e.done:
			e.c.dropped.Add(1)
			return
		default:
		}
		select {
		case e.inbox <- Completion(req, resp, err):
		case <-e.done:
			e.c.dropped.Add(1)
		}
	}
}

// Driver is the driver goroutine's side of an Engine: it feeds the Core the
// inbox, hands requests to the transport, publishes, waits and counts. The
// wait computation and the order of publication and effects are the
// driver's own (Loop: the KIP-1371 rules; the baseline: today's). Only the
// driver goroutine (started by Go) calls its methods.
type Driver[V any] struct {
	e     *Engine
	core  *Core[V]
	tr    Transport
	log   *slog.Logger
	timer *time.Timer // created by Go, reused by Wait and WaitUntil
	// armed is the wake the timer is set for (WaitUntil), zero when it is
	// stopped or has fired: a wait for the same wake leaves it as it is.
	armed time.Time

	// Driver goroutine only: why the last Wait returned ("inbox",
	// "timer"; "" when the next step follows no wait), and the previous
	// publication's decision and snapshot, for the spurious-wakeup rule.
	woke     string
	prev     *Decision
	prevSnap any
	wokeObs  Observation // what Wait returned last (a pointer to it): valid until the next Wait
}

// NewDriver validates cfg and returns the application's side (an Engine
// with its initial, step 0, publication) and the driver's side of a new
// Core over cfg's managers. Errors: *ConfigError naming the field.
func NewDriver[V any](cfg Config[V]) (*Engine, *Driver[V], error) {
	if err := cfg.validate(); err != nil {
		return nil, nil, err
	}
	if cfg.InboxCapacity == 0 {
		cfg.InboxCapacity = 1024
	}
	if cfg.TraceCapacity == 0 {
		cfg.TraceCapacity = 256
	}
	core, err := NewCore(cfg.core())
	if err != nil {
		return nil, nil, err
	}
	e := &Engine{
		inbox:  make(chan Observation, cfg.InboxCapacity),
		stopCh: make(chan struct{}),
		done:   make(chan struct{}),
		trace:  newTrace(cfg.TraceCapacity),
	}
	initial := &Decision{At: time.Now()}
	e.cur.Store(&Publication{Decision: initial, next: make(chan struct{})})
	e.trace.event(TraceEvent{Kind: EventPublish, Step: initial.Step, Version: initial.Version})
	return e, &Driver[V]{e: e, core: core, tr: cfg.Transport, log: core.cfg.Logger}, nil
}

// Go runs run on a new goroutine, the one state owner, and closes the
// Engine's Done channel when run returns. It panics if called twice (or
// after Stop): an engine has exactly one state-owner goroutine.
func (d *Driver[V]) Go(run func()) {
	if !d.e.started.CompareAndSwap(false, true) {
		panic("reactor: driver started twice (or after Stop); an engine has exactly one state-owner goroutine")
	}
	d.timer = time.NewTimer(time.Hour)
	d.timer.Stop()
	go func() {
		defer close(d.e.done)
		defer d.timer.Stop()
		run()
	}()
}

// Step drains the inbox in arrival order (first, if not nil, then what is
// queued, at most the inbox's capacity), applies each observation at now,
// steps the Core, hands the step's requests to the transport and counts
// the step. The caller publishes the Step, runs its effects and calls
// Advance.
func (d *Driver[V]) Step(now time.Time, first *Observation) Step {
	applied := 0
	if first != nil {
		d.core.Apply(now, *first)
		applied++
	}
drain:
	for applied < cap(d.e.inbox) {
		select {
		case o := <-d.e.inbox:
			d.core.Apply(now, o)
			applied++
		default:
			break drain
		}
	}
	st := d.core.Step(now)
	st.Decision.Woke = d.woke
	for _, req := range st.Requests {
		d.tr.Send(req, d.e.completion(req))
	}
	d.e.c.addStep(st)
	return st
}

// Publish adds st's Decision to the trace and makes it, with st's
// Snapshot, the current publication: waiters see it at once. It is also
// where every driver counts a spurious wakeup, with one rule (Stats
// .SpuriousWakeups): the step followed a wake (Wait returned) and nothing
// was applied, sent or run, and the decision and snapshot are the same as
// the previous publication's, times aside.
func (d *Driver[V]) Publish(st Step) {
	if d.woke != "" && d.prev != nil && st.Decision.Applied == 0 && len(st.Requests) == 0 && st.Decision.Effects == 0 &&
		SameDecision(d.prev, st.Decision) && reflect.DeepEqual(d.prevSnap, st.Snapshot) {
		d.e.c.spurious.Add(1)
		if d.log.Enabled(context.Background(), slog.LevelDebug) {
			d.log.Debug("reactor: spurious wakeup", "woke", d.woke, "previous", d.prev.Diagnose(), "diagnosis", st.Decision.Diagnose())
		}
	}
	d.woke, d.prev, d.prevSnap = "", st.Decision, st.Snapshot
	d.e.trace.add(st.Decision)
	d.e.publish(st.Decision, st.Snapshot)
	if d.log.Enabled(context.Background(), slog.LevelDebug) {
		d.log.Debug("reactor: decision", "diagnosis", st.Decision.Diagnose())
	}
}

// Advance tells the Core the last Step is published and its effects ran.
func (d *Driver[V]) Advance() { d.core.Advance() }

// Wait blocks until an observation arrives (returned, valid until the next
// Wait), the timeout passes (nil), or Stop is called (ok false). A negative timeout waits with no
// timer; zero only checks the inbox (a zero-length wait, counted as a timer
// wake). Whether the wake was spurious is decided when the next step is
// published (Publish): by what the step did, not by why the wait ended.
func (d *Driver[V]) Wait(timeout time.Duration) (o *Observation, ok bool) {
	d.disarm()
	switch {
	case timeout == 0:
		return d.check()
	case timeout > 0:
		d.timer.Reset(timeout)
		defer d.timer.Stop()
		return d.wait(d.timer.C)
	}
	return d.wait(nil)
}

// WaitUntil is Wait with the deadline as a time: zero waits with no timer,
// a wake not after now only checks the inbox. The timer stays set across
// waits for the same wake: a step that leaves the earliest deadline where
// it was (most steps: a completion, an application call) neither stops nor
// sets it again, and each setting of the earliest timer can wake the
// thread blocked in the network poller.
func (d *Driver[V]) WaitUntil(wake time.Time) (o *Observation, ok bool) {
	if wake.IsZero() {
		d.disarm()
		return d.wait(nil)
	}
	timeout := time.Until(wake)
	if timeout <= 0 {
		d.disarm()
		return d.check()
	}
	if !wake.Equal(d.armed) {
		d.timer.Reset(timeout)
		d.armed = wake
	}
	return d.wait(d.timer.C)
}

// disarm stops the timer WaitUntil left set.
func (d *Driver[V]) disarm() {
	if !d.armed.IsZero() {
		d.timer.Stop()
		d.armed = time.Time{}
	}
}

// check is the zero-length wait: an observation already queued, or a
// timer wake.
func (d *Driver[V]) check() (*Observation, bool) {
	select {
	case d.wokeObs = <-d.e.inbox:
		return d.inboxWake(), true
	case <-d.e.stopCh:
		return nil, false
	default:
		d.timerWake()
		return nil, true
	}
}

// wait blocks until an observation, timerC (nil: none) or Stop.
func (d *Driver[V]) wait(timerC <-chan time.Time) (*Observation, bool) {
	select {
	case d.wokeObs = <-d.e.inbox:
		return d.inboxWake(), true
	case <-timerC:
		d.armed = time.Time{}
		d.timerWake()
		return nil, true
	case <-d.e.stopCh:
		return nil, false
	}
}

func (d *Driver[V]) inboxWake() *Observation {
	d.e.c.inboxWakes.Add(1)
	d.woke = "inbox"
	return &d.wokeObs
}

func (d *Driver[V]) timerWake() {
	d.e.c.timerWakes.Add(1)
	d.woke = "timer"
}

// SameDecision reports whether b says what a said, times aside: the same
// managers with the same result kinds, awaited inputs, reasons and
// requests sent, the same union of awaited inputs and the same closed
// flag. A decision that differs from a only in its step, version, time,
// wake or the times its results carry is a's decision rescheduled (the
// spurious-wakeup rule, Stats.SpuriousWakeups).
func SameDecision(a, b *Decision) bool {
	if a.Awaiting != b.Awaiting || a.Closed != b.Closed || len(a.Results) != len(b.Results) {
		return false
	}
	for i, r := range a.Results {
		o := b.Results[i]
		if r.Manager != o.Manager || r.Kind != o.Kind || r.Inputs != o.Inputs || r.Reason != o.Reason || r.Sent != o.Sent {
			return false
		}
	}
	return true
}

// Close ends the Core after Stop: it publishes the final, closed decision
// (with a fresh snapshot) and runs the effects still queued. The driver
// goroutine returns next.
func (d *Driver[V]) Close(now time.Time) {
	st := d.core.Close(now) // not counted in Stats.Steps: no manager was polled
	d.Publish(st)
	d.RunEffects(st)
}

// RunEffects runs st's Effects in order.
func (st Step) RunEffects() {
	for _, fn := range st.Effects {
		fn()
	}
}
