package reactor

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Manager is a request manager as the loop sees it: it owns one protocol
// concern's mutable state and rules, and answers a poll with a Result.
// Poll runs on the loop goroutine only; view is the immutable view built for
// this poll round by Config.View.
type Manager[V any] interface {
	// Name identifies the manager in decisions and traces; unique per loop.
	Name() string
	// Poll returns what the manager can do now. It may change the
	// manager's own state (mark a request in flight) and queue effects on
	// tx.
	Poll(tx *Tx, view V) Result
}

// Config configures a Loop. View and Transport are required.
type Config[V any] struct {
	// Managers are polled in this order every round.
	Managers []Manager[V]
	// View builds the immutable view handed to every manager in one poll
	// round. Runs on the loop goroutine.
	View func(now time.Time) V
	// Snapshot builds the application-visible snapshot published with each
	// decision. Runs on the loop goroutine after polling. Optional.
	Snapshot func(d *Decision) any
	// Transport sends Ready requests without blocking.
	Transport Transport
	// InboxCapacity bounds the inbox (observations). Default 1024.
	InboxCapacity int
	// TraceCapacity bounds the ring of recent decisions. Default 256.
	TraceCapacity int
	// MaxRounds bounds the poll rounds of one step: a manager that was
	// Ready is polled again in the same step until no manager is Ready.
	// Default 8.
	MaxRounds int
	// Logger receives debug lines for each decision. Default: discard.
	Logger *slog.Logger
}

func (c *Config[V]) validate() error {
	switch {
	case c.View == nil:
		return &ConfigError{Field: "View", Value: nil, Reason: "required"}
	case c.Transport == nil:
		return &ConfigError{Field: "Transport", Value: nil, Reason: "required"}
	case c.InboxCapacity < 0:
		return &ConfigError{Field: "InboxCapacity", Value: c.InboxCapacity, Reason: "must be >= 0 (0 means 1024)"}
	case c.TraceCapacity < 0:
		return &ConfigError{Field: "TraceCapacity", Value: c.TraceCapacity, Reason: "must be >= 0 (0 means 256)"}
	case c.MaxRounds < 0:
		return &ConfigError{Field: "MaxRounds", Value: c.MaxRounds, Reason: "must be >= 0 (0 means 8)"}
	}
	seen := map[string]bool{}
	for i, m := range c.Managers {
		if m == nil {
			return &ConfigError{Field: fmt.Sprintf("Managers[%d]", i), Value: nil, Reason: "nil manager"}
		}
		if seen[m.Name()] {
			return &ConfigError{Field: fmt.Sprintf("Managers[%d]", i), Value: m.Name(), Reason: "duplicate manager name"}
		}
		seen[m.Name()] = true
	}
	return nil
}

// observation is one entry of the inbox: an application event or a request
// completion.
type observation struct {
	name  string
	apply func(tx *Tx)
	// completion fields
	req  *Request
	resp any
	err  error
}

// loopCore is the Loop's Host: what Txs report to. Loop goroutine only.
type loopCore struct {
	effects       []effect // queued this step
	stopRequested bool
	repoll        bool // a poll asked for another round of all managers
}

type effect struct {
	fn      func()
	version uint64
}

func (c *loopCore) QueueEffect(fn func(), version uint64) {
	c.effects = append(c.effects, effect{fn: fn, version: version})
}
func (c *loopCore) RequestStop()   { c.stopRequested = true }
func (c *loopCore) RequestRepoll() { c.repoll = true }

// Loop is the single state owner: one goroutine applies observations, polls
// managers, publishes decisions and runs effects (DESIGN.md, "The loop").
type Loop[V any] struct {
	cfg     Config[V]
	inbox   chan observation
	stopCh  chan struct{} // closed by Stop
	done    chan struct{} // closed when the goroutine exits
	started atomic.Bool
	stopMu  sync.Once

	cur   atomic.Pointer[Publication]
	trace *trace
	c     counters

	// Loop goroutine only:
	core    loopCore
	version uint64
	step    uint64
	timer   *time.Timer
}

// New validates cfg and returns a loop that has published its initial
// (step 0) decision. Call Start to run it. Errors: *ConfigError.
func New[V any](cfg Config[V]) (*Loop[V], error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg.Managers = slices.Clone(cfg.Managers) // fixed at New: no runtime registration (P6)
	if cfg.InboxCapacity == 0 {
		cfg.InboxCapacity = 1024
	}
	if cfg.TraceCapacity == 0 {
		cfg.TraceCapacity = 256
	}
	if cfg.MaxRounds == 0 {
		cfg.MaxRounds = 8
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	l := &Loop[V]{
		cfg:    cfg,
		inbox:  make(chan observation, cfg.InboxCapacity),
		stopCh: make(chan struct{}),
		done:   make(chan struct{}),
		trace:  newTrace(cfg.TraceCapacity),
	}
	l.cur.Store(&Publication{Decision: &Decision{At: time.Now()}, next: make(chan struct{})})
	return l, nil
}

// Start runs the loop goroutine. It panics if called twice.
func (l *Loop[V]) Start() {
	if !l.started.CompareAndSwap(false, true) {
		panic("reactor: Loop.Start called twice; a loop has exactly one state-owner goroutine")
	}
	go l.run()
}

// Submit enqueues an application event; apply runs on the loop goroutine in
// inbox order. It blocks while the inbox is full, until ctx is done (returns
// ctx.Err()) or the loop stops (returns ErrStopped).
func (l *Loop[V]) Submit(ctx context.Context, name string, apply func(tx *Tx)) error {
	if err := ctx.Err(); err != nil {
		return err // a done ctx never enqueues: select would pick at random
	}
	select {
	case <-l.done:
		return ErrStopped
	default:
	}
	select {
	case l.inbox <- observation{name: name, apply: apply}:
		return nil
	case <-l.done:
		return ErrStopped
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Stop stops the loop without waiting for managers to finish (the orderly
// way is Tx.Stop from a manager or an event), publishes a closed decision,
// and waits for the goroutine to exit. Safe to call more than once and on a
// loop that was never started.
func (l *Loop[V]) Stop() {
	l.stopMu.Do(func() { close(l.stopCh) })
	if !l.started.CompareAndSwap(false, true) {
		<-l.done
		return
	}
	// Never started: publish the closed decision ourselves.
	l.publish(&Decision{Closed: true, At: time.Now()}, nil)
	close(l.done)
}

// Done is closed when the loop goroutine has exited.
func (l *Loop[V]) Done() <-chan struct{} { return l.done }

// Current returns the latest publication. Safe from any goroutine.
func (l *Loop[V]) Current() *Publication { return l.cur.Load() }

// WaitFor blocks until cond holds for a published decision and snapshot and
// returns that publication. cond is evaluated on the caller's goroutine
// against immutable data. It returns ctx.Err() when ctx is done, and
// ErrStopped if the loop stops before cond holds (cond is evaluated on the
// final, closed publication first).
func (l *Loop[V]) WaitFor(ctx context.Context, cond func(*Publication) bool) (*Publication, error) {
	for {
		p := l.cur.Load() // take the publication (and its channel) first: invariant 5
		if cond(p) {
			return p, nil
		}
		if p.Decision.Closed {
			return p, ErrStopped
		}
		select {
		case <-p.next:
		case <-ctx.Done():
			return p, ctx.Err()
		}
	}
}

// Stats returns the counters. Safe from any goroutine.
func (l *Loop[V]) Stats() Stats { return l.c.snapshot() }

// Trace returns the retained recent decisions, oldest first. Safe from any
// goroutine.
func (l *Loop[V]) Trace() []*Decision { return l.trace.decisions() }

func (l *Loop[V]) publish(d *Decision, snap any) {
	p := &Publication{Decision: d, Snapshot: snap, next: make(chan struct{})}
	old := l.cur.Swap(p)
	close(old.next)
}

func (l *Loop[V]) complete(req *Request) func(resp any, err error) {
	var once atomic.Bool
	return func(resp any, err error) {
		if !once.CompareAndSwap(false, true) {
			panic(fmt.Sprintf("reactor: transport completed a %s request twice", req.Manager))
		}
		select {
		case <-l.done:
			l.c.dropped.Add(1)
			return
		default:
		}
		select {
		case l.inbox <- observation{name: req.Manager, req: req, resp: resp, err: err}:
		case <-l.done:
			l.c.dropped.Add(1)
		}
	}
}

func (l *Loop[V]) run() {
	defer close(l.done)
	l.timer = time.NewTimer(time.Hour)
	l.timer.Stop()
	defer l.timer.Stop()

	var first *observation
	for {
		closed := l.runStep(first)
		first = nil
		if closed {
			return
		}
		wake := l.cur.Load().Decision.Wake
		var timerC <-chan time.Time
		if !wake.IsZero() {
			l.timer.Reset(time.Until(wake))
			timerC = l.timer.C
		}
		select {
		case o := <-l.inbox:
			l.c.inboxWakes.Add(1)
			first = &o
		case <-timerC:
			l.c.timerWakes.Add(1)
			if time.Now().Before(wake) {
				l.c.spurious.Add(1)
			}
		case <-l.stopCh:
			l.finalStep()
			return
		}
		l.timer.Stop()
	}
}

// finalStep publishes a closed decision after Stop; queued effects (none are
// pending between steps) are not needed.
func (l *Loop[V]) finalStep() {
	d := &Decision{Step: l.step, Version: l.version, At: time.Now(), Closed: true}
	var snap any
	if l.cfg.Snapshot != nil {
		snap = l.cfg.Snapshot(d)
	}
	l.trace.add(d)
	l.publish(d, snap)
}

func (l *Loop[V]) apply(now time.Time, o *observation) {
	l.version++
	tx := NewTx(now, l.version, 0, &l.core)
	if o.req != nil {
		tx.RequestVersion = o.req.Version
		o.req.OnComplete(tx, o.resp, o.err)
	} else {
		o.apply(tx)
	}
	l.c.observations.Add(1)
}

// runStep runs one step and reports whether the loop is now closed.
func (l *Loop[V]) runStep(first *observation) bool {
	now := time.Now()
	l.step++
	l.c.steps.Add(1)

	// 1. drain the inbox in arrival order (bounded by its capacity).
	applied := 0
	if first != nil {
		l.apply(now, first)
		applied++
	}
drain:
	for applied < cap(l.inbox) {
		select {
		case o := <-l.inbox:
			l.apply(now, &o)
			applied++
		default:
			break drain
		}
	}

	// 2. poll managers; dispatch Ready requests; re-poll those that were
	// Ready (or all of them after Tx.Repoll) until none is (bounded rounds).
	ms := l.cfg.Managers
	results := make([]ManagerResult, len(ms))
	repoll := make([]bool, len(ms))
	sent := 0
	stillReady := false
	all := true // the first round polls every manager
	for round := 0; round < l.cfg.MaxRounds; round++ {
		view := l.cfg.View(now)
		anyReady := false
		l.core.repoll = false
		for i, m := range ms {
			if !all && !repoll[i] {
				continue
			}
			tx := NewTx(now, l.version, 0, &l.core)
			r := m.Poll(tx, view)
			prevSent := results[i].Sent
			results[i] = ManagerResult{Manager: m.Name(), Kind: r.Kind, At: r.At, Inputs: r.Inputs, Reason: r.Reason, Sent: prevSent}
			repoll[i] = false
			switch {
			case r.Kind == KindReady && len(r.Requests) == 0:
				l.c.readyNoReq.Add(1)
				l.cfg.Logger.Warn("reactor: Ready without request (contract violation)", "manager", m.Name(), "reason", r.Reason)
			case r.Kind == KindReady:
				for _, req := range r.Requests {
					req.Manager, req.Version, req.Sent = m.Name(), l.version, now
					if req.OnComplete == nil {
						panic(fmt.Sprintf("reactor: manager %s returned a request without OnComplete", m.Name()))
					}
					l.cfg.Transport.Send(req, l.complete(req))
				}
				results[i].Sent += len(r.Requests)
				sent += len(r.Requests)
				repoll[i], anyReady = true, true
			case !r.Kind.valid():
				panic(fmt.Sprintf("reactor: manager %s returned a Result with invalid kind %s", m.Name(), r.Kind))
			}
		}
		all = l.core.repoll
		stillReady = anyReady || l.core.repoll
		if !stillReady {
			break
		}
	}
	l.c.sent.Add(uint64(sent))

	// 3. compute the decision.
	d := &Decision{Step: l.step, Version: l.version, At: now, Results: results, Applied: applied, Sent: sent, Closed: l.core.stopRequested}
	for _, r := range results {
		if r.Kind == KindAwait {
			d.Awaiting |= r.Inputs
		}
		if (r.Kind == KindRetryAt || r.Kind == KindAwait) && !r.At.IsZero() {
			if !r.At.After(now) {
				l.c.pastDeadline.Add(1)
				continue
			}
			if d.Wake.IsZero() || r.At.Before(d.Wake) {
				d.Wake = r.At
			}
		}
	}
	l.core.repoll = false
	if stillReady {
		l.c.roundLimit.Add(1)
		d.Wake = now // step again at once
	}
	if applied == 0 && sent == 0 {
		l.c.empty.Add(1)
	}

	// 4. publish decision + snapshot atomically.
	var snap any
	if l.cfg.Snapshot != nil {
		snap = l.cfg.Snapshot(d)
	}
	l.trace.add(d)
	l.publish(d, snap)
	if l.cfg.Logger.Enabled(context.Background(), slog.LevelDebug) {
		l.cfg.Logger.Debug("reactor: decision", "diagnosis", d.Diagnose())
	}

	// 5. run queued effects (invariant 4: after the decision that includes
	// them).
	effects := l.core.effects
	l.core.effects = nil
	for _, e := range effects {
		if e.version > d.Version {
			panic(fmt.Sprintf("reactor: effect queued at version %d would run after publication of version %d", e.version, d.Version))
		}
		e.fn()
	}
	return d.Closed
}

func (k Kind) valid() bool { return k >= KindReady && k <= KindIdle }
