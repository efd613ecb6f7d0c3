package reactor

import (
	"log/slog"
	"runtime"
	"slices"
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

// Loop is the KIP-1371 driver of a Core: the single state-owner goroutine
// that applies observations, polls managers, publishes each decision before
// running its effects, and blocks until an observation arrives or the
// decision's Wake passes (docs/design.md, "The loop"). Its Engine methods
// (Submit, WaitFor, Current, Stats, Trace, Stop, Done) are safe from any
// goroutine.
type Loop[V any] struct {
	*Engine
	drv *Driver[V]
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
	return &Loop[V]{Engine: e, drv: d}, nil
}

// heldEvery is how often the "effects-held-a-step" mutant keeps a step's
// effects back: every 64th step.
const heldEvery = 64

// Start runs the loop goroutine. It panics if called twice.
func (l *Loop[V]) Start() { l.drv.Go(l.run) }

func (l *Loop[V]) run() {
	var first *Observation
	var held Step // mutant "effects-held-a-step" only
	for {
		st := l.drv.Step(time.Now(), first)
		if st.RoundLimit {
			l.c.roundLimit.Add(1)
		}
		switch {
		case mutant.On("effects-before-publication"):
			l.drv.RunEffects(st)
			l.drv.Publish(st)
		case mutant.On("effects-held-a-step"):
			// An intermittent lost wakeup: one step in heldEvery keeps
			// its effects (the releases of blocked calls) until the next
			// step, which nothing but a timer or an unrelated answer may
			// bring.
			l.drv.Publish(st)
			l.drv.RunEffects(held)
			held = Step{}
			if st.Decision.Step%heldEvery == 0 && !st.Decision.Closed {
				held = st
				held.Effects = slices.Clone(st.Effects) // Advance reuses the slice
			} else {
				l.drv.RunEffects(st)
			}
		default:
			l.drv.Publish(st)
			l.drv.RunEffects(st) // invariant 4: after the decision that includes them
		}
		l.drv.Advance()
		if st.Decision.Closed {
			return
		}
		// A decision that steps again at once (Wake not after its step)
		// right after effects released application calls would keep
		// what they readied waiting behind the next step on this P;
		// yield so it runs first, as it would if the loop parked.
		if st.Decision.Effects > 0 && !st.Decision.Wake.IsZero() && !st.Decision.Wake.After(st.Decision.At) {
			runtime.Gosched()
		}
		// Block until an observation or the earliest deadline (invariant 2).
		o, ok := l.drv.WaitUntil(st.Decision.Wake)
		if !ok {
			if mutant.On("effects-held-a-step") {
				l.drv.RunEffects(held) // late, not lost: its decision is published
			}
			l.drv.Close(time.Now())
			return
		}
		first = o
	}
}
