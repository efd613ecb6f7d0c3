package reactor

import (
	"log/slog"
	"sync"
	"time"

	"github.com/kreactor/kreactor/reactor/internal/mutant"
)

// Manager is a request manager as the core sees it: it owns one protocol
// concern's mutable state and rules, and answers a poll with a Result.
// Poll runs on the state owner only; view is the immutable view built for
// this poll round by CoreConfig.View.
type Manager[V any] interface {
	// Name identifies the manager in decisions and traces; unique per core.
	Name() string
	// Poll returns what the manager can do now. It may change the
	// manager's own state (mark a request in flight) and queue effects on
	// tx.
	Poll(tx *Tx, view V) Result
}

// Config configures a driven Core (Loop, and the baseline model's loop).
// View and Transport are required.
type Config[V any] struct {
	// Managers are polled in this order every round; fixed at New.
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
	// MaxRounds bounds the poll rounds of one step (CoreConfig.MaxRounds).
	// Default 8.
	MaxRounds int
	// Logger receives debug lines for each decision and a warning for each
	// Ready without a request. Default: discard.
	Logger *slog.Logger
	// EffectsAtOnce is CoreConfig.EffectsAtOnce: for the baseline model
	// only; New refuses it.
	EffectsAtOnce bool
}

func (c *Config[V]) validate() error {
	switch {
	case c.Transport == nil:
		return &ConfigError{Field: "Transport", Value: nil, Reason: "required"}
	case c.InboxCapacity < 0:
		return &ConfigError{Field: "InboxCapacity", Value: c.InboxCapacity, Reason: "must be >= 0 (0 means 1024)"}
	case c.TraceCapacity < 0:
		return &ConfigError{Field: "TraceCapacity", Value: c.TraceCapacity, Reason: "must be >= 0 (0 means 256)"}
	}
	core := c.core()
	return core.validate()
}

func (c *Config[V]) core() CoreConfig[V] {
	return CoreConfig[V]{Managers: c.Managers, View: c.View, Snapshot: c.Snapshot, MaxRounds: c.MaxRounds, Logger: c.Logger, EffectsAtOnce: c.EffectsAtOnce}
}

// Loop is the KIP-1371 driver of a Core: it applies observations, polls
// managers, publishes each decision before running its effects, and
// blocks until an observation arrives or the decision's Wake passes
// (docs/design.md, "The loop"). Its Engine methods (Submit, WaitFor,
// Current, Stats, Trace, Stop, Done) are safe from any goroutine.
//
// One step runs at a time, under the step lock: the state owner is
// whichever goroutine holds it. The loop goroutine steps for the
// application's events, for the wake and for Stop. A transport goroutine
// that completes a request steps itself when no step is running (else it
// leaves the completion to the loop goroutine): a response reaches the
// waiting application without a hand-off to the loop goroutine, the
// hand-off a transport with blocking requests (kgo's Broker.Request)
// would otherwise add to every response (issue 22: produce-to-Poll
// latency and idle CPU).
type Loop[V any] struct {
	*Engine
	drv *Driver[V]

	mu    sync.Mutex    // the step lock
	kick  chan struct{} // capacity 1: the loop goroutine has an observation to look at
	ended bool          // under mu: the closed decision is published; no step follows
	wake  time.Time     // under mu: the last decision's Wake (zero: none)
}

// New validates cfg and returns a loop that has published its initial
// (step 0) decision. Call Start to run it. Errors: *ConfigError.
func New[V any](cfg Config[V]) (*Loop[V], error) {
	if cfg.EffectsAtOnce {
		return nil, &ConfigError{Field: "EffectsAtOnce", Value: true, Reason: "effects run after the decision that includes them is published (invariant 4); only the baseline model runs them at once"}
	}
	e, d, err := NewDriver(cfg)
	if err != nil {
		return nil, err
	}
	l := &Loop[V]{Engine: e, drv: d, kick: make(chan struct{}, 1)}
	e.queued = l.queued
	return l, nil
}

// Start runs the loop goroutine. It panics if called twice.
func (l *Loop[V]) Start() { l.drv.Go(l.run) }

// run is the loop goroutine: the first step, then a step for each kick
// (an application event, a completion left to it, the end of a step that
// closed) and each wake, until the loop closes or Stop is called.
func (l *Loop[V]) run() {
	l.mu.Lock()
	l.step(nil)
	l.due()
	l.mu.Unlock()
	for {
		timer := false
		select {
		case <-l.kick:
		case <-l.drv.timer.C:
			timer = true
		case <-l.stopCh:
			l.mu.Lock()
			if !l.ended {
				l.ended = true
				l.drv.disarm()
				l.drv.Close(time.Now())
			}
			l.mu.Unlock()
			return
		}
		l.mu.Lock()
		if timer && !l.drv.armed.IsZero() && !time.Now().Before(l.drv.armed) {
			// The timer fired for the wake it is set for. A timer a
			// completion's step set again after it fired is still set:
			// its wake has not passed.
			l.drv.armed = time.Time{}
		}
		l.due()
		ended := l.ended
		l.mu.Unlock()
		if ended {
			return
		}
	}
}

// queued is the Engine's hook for an observation just queued: a
// completion steps on its own goroutine when the step lock is free; an
// application event, or a completion while a step runs, kicks the loop
// goroutine (which steps when the lock is free, or finds the observation
// already applied).
func (l *Loop[V]) queued(completion bool) {
	if completion && l.mu.TryLock() {
		l.due()
		ended := l.ended
		l.mu.Unlock()
		if !ended {
			return
		}
	}
	select {
	case l.kick <- struct{}{}:
	default: // a kick is pending: the loop goroutine looks at the inbox anyway
	}
}

// due steps while something is due: an observation queued, or the last
// decision's Wake passed. It counts why each step followed a wait (an
// inbox wake, a timer wake), as the driver's Wait does. l.mu held.
func (l *Loop[V]) due() {
	for !l.ended {
		select {
		case o := <-l.inbox:
			l.drv.wokeObs = o
			l.step(l.drv.inboxWake())
		default:
			if l.wake.IsZero() || time.Now().Before(l.wake) {
				return
			}
			l.drv.timerWake()
			l.step(nil)
		}
	}
}

// step runs one step: the observation first, if not nil, then the rest of
// the inbox; the decision published before its effects run (invariant
// 4); the timer set for its Wake. l.mu held.
func (l *Loop[V]) step(first *Observation) {
	st := l.drv.Step(time.Now(), first)
	if st.RoundLimit {
		l.c.roundLimit.Add(1)
	}
	if mutant.On("effects-before-publication") {
		l.drv.RunEffects(st)
		l.drv.Publish(st)
	} else {
		l.drv.Publish(st)
		l.drv.RunEffects(st) // invariant 4: after the decision that includes them
	}
	l.drv.Advance()
	if st.Decision.Closed {
		l.ended = true
		l.drv.disarm()
		return
	}
	// Block until an observation or the earliest deadline (invariant 2):
	// the timer, or due's check of a Wake already passed.
	l.wake = st.Decision.Wake
	if !l.wake.IsZero() {
		l.drv.arm(l.wake)
	} else {
		l.drv.disarm()
	}
}
