package reactor

import (
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/kreactor/kreactor/reactor/internal/mutant"
)

// Core is the clock-free state owner of the reactor, in the style of etcd
// raft's RawNode: a plain value API with no goroutine, no clock read and no
// channel. Time is an argument; requests leave in the returned Step; effects
// are handed back to run after publication. Loop is the goroutine around a
// Core (inbox, timer, publication, trace, counters); the baseline model of
// today's consumer is a second driver of the same Core; unit tests drive it
// with a fixed clock.
//
// Use:
//
//	core.Apply(now, reactor.Event("subscribe", fn))   // zero or more observations
//	st := core.Step(now)                               // poll managers, decide
//	// hand st.Requests to the transport; publish st.Decision and st.Snapshot;
//	// run st.Effects, in order;
//	core.Advance()                                     // then Apply / Step again
//
// The Ready/Advance discipline: between a Step and its Advance the step's
// decision is being published, so Apply, Step and Close panic, naming the
// rule. After a Step whose Decision is Closed (a manager or event called
// Tx.Stop) or after Close, the core is stopped: Apply, Step and Close panic
// (a driver drops late completions instead of applying them).
//
// A Core is not safe for concurrent use: exactly one goroutine (the state
// owner) calls it.
type Core[V any] struct {
	cfg CoreConfig[V]

	version     uint64 // state version: +1 per applied observation
	stepVersion uint64 // state version of the previous Step's Decision
	step        uint64 // steps taken (the next Decision's Step is step+1)
	effects     []effect
	ranAtOnce   int  // effects run at once (EffectsAtOnce) since the last Step
	stop        bool // Tx.Stop called since the last Step
	repoll      bool // Tx.Repoll called during the current poll round
	pending     bool // a Step was returned and not yet Advanced
	stopped     bool // a Closed Step was returned
	// Scratch reused across steps (the steady-state step allocates only
	// what it publishes): which managers to poll again, the Tx of the
	// polls, the effects of the Step being published.
	repollBuf []bool
	pollTx    Tx
	effectFns []func()
}

// CoreConfig configures a Core. View is required.
type CoreConfig[V any] struct {
	// Managers are polled in this order every round. The set is fixed at
	// NewCore (P6: no runtime registration); names must be unique.
	Managers []Manager[V]
	// View builds the immutable view handed to every manager in one poll
	// round, at the step's now.
	View func(now time.Time) V
	// Snapshot builds the application-visible snapshot returned with each
	// Step's Decision, after polling (before the Step's requests reach the
	// transport). Optional: nil leaves Step.Snapshot nil.
	Snapshot func(d *Decision) any
	// MaxRounds bounds the poll rounds of one step: a manager that was
	// Ready (or every manager, after Tx.Repoll) is polled again in the same
	// step until none is. Default 8; 1 polls each manager exactly once per
	// step (the baseline's one pass).
	MaxRounds int
	// Logger receives a warning for each Ready result without a request.
	// Default: discard.
	Logger *slog.Logger
	// EffectsAtOnce runs each effect as soon as it is queued, on the state
	// owner, instead of returning it in Step: it breaks invariant 4 on
	// purpose, to model today's futures, completed by the background
	// thread while it applies events and polls (package baseline). A Loop
	// refuses it.
	EffectsAtOnce bool
}

func (c *CoreConfig[V]) validate() error {
	switch {
	case c.View == nil:
		return &ConfigError{Field: "View", Value: nil, Reason: "required"}
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

// NewCore validates cfg and returns a core at state version 0 and step 0.
// Errors: *ConfigError naming the field.
func NewCore[V any](cfg CoreConfig[V]) (*Core[V], error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg.Managers = slices.Clone(cfg.Managers) // fixed here: writing the caller's slice later changes nothing
	if cfg.MaxRounds == 0 {
		cfg.MaxRounds = 8
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Core[V]{cfg: cfg, repollBuf: make([]bool, len(cfg.Managers))}, nil
}

// Step is what one Core.Step returns: the driver hands Requests to the
// transport, publishes Decision with Snapshot, then runs Effects in order,
// then calls Core.Advance.
type Step struct {
	// Decision is the step's timing decision. It is the driver's until it
	// publishes it: a driver with its own wait computation (the baseline)
	// may set Wake before publishing; nobody changes it afterwards.
	Decision *Decision
	// Snapshot is what CoreConfig.Snapshot built from Decision; nil
	// without one.
	Snapshot any
	// Requests are the Ready results' requests in poll order, with
	// Manager, Version and Sent filled in: each must reach the transport
	// once, and its completion come back as a Completion observation.
	Requests []*Request
	// Effects are the effects queued by the observations applied and the
	// polls made since the previous Step, in order. Invariant 4: run them
	// only after Decision is published. The slice is the core's and valid
	// until the next Step or Close.
	Effects []func()
	// ReadyWithoutRequest counts Ready results that carried no request
	// (invariant 1: a contract violation, never spun on).
	ReadyWithoutRequest int
	// PastDeadline counts RetryAt times or Await deadlines not after the
	// step's now, and RetryAt results without a time: ignored for
	// Decision.Wake, never spun on.
	PastDeadline int
	// RoundLimit is set when a manager was still Ready after MaxRounds
	// rounds; Decision.Wake is then the step's now (step again at once).
	RoundLimit bool
}

// Version is the current state version: the number of observations
// applied.
func (c *Core[V]) Version() uint64 { return c.version }

// Apply applies o at now: the state version increments, and o's apply
// function (an Event) or its request's OnComplete (a Completion) runs with
// a Tx at now. Effects it queues are returned by the next Step. It panics
// on the zero Observation, between a Step and its Advance, and after the
// core stopped.
func (c *Core[V]) Apply(now time.Time, o Observation) {
	c.mustBeBetweenSteps("Apply")
	if o.apply == nil && o.req == nil {
		panic("reactor: Core.Apply of the zero Observation; build one with Event or Completion")
	}
	c.version++
	tx := &Tx{Now: now, Version: c.version, Step: c.step + 1, host: c}
	if o.req != nil {
		tx.RequestVersion = o.req.Version
		o.req.OnComplete(tx, o.resp, o.err)
		return
	}
	o.apply(tx)
}

// Step polls every manager at now (bounded rounds, see MaxRounds), computes
// the Decision, builds the Snapshot, and returns them with the requests to
// send and the effects to run after publication. Applied in the Decision is
// the number of observations applied since the previous Step. It panics
// between a Step and its Advance and after the core stopped.
func (c *Core[V]) Step(now time.Time) Step {
	c.mustBeBetweenSteps("Step")
	applied := int(c.version - c.stepVersion)
	c.step++
	var st Step
	ms := c.cfg.Managers
	results := make([]ManagerResult, len(ms)) // published with the Decision: fresh per step
	repoll := c.repollBuf[:len(ms)]
	clear(repoll)
	// One Tx serves every poll: Now and Version do not change while the
	// managers are polled, and a Tx is valid only during the call it is
	// handed to.
	c.pollTx = Tx{Now: now, Version: c.version, Step: c.step, host: c}
	tx := &c.pollTx
	stillReady := false
	all := true // the first round polls every manager
	for round := 0; round < c.cfg.MaxRounds; round++ {
		view := c.cfg.View(now)
		anyReady := false
		c.repoll = false
		for i, m := range ms {
			if !all && !repoll[i] {
				continue
			}
			r := m.Poll(tx, view)
			prevSent := results[i].Sent
			results[i] = ManagerResult{Manager: m.Name(), Kind: r.Kind, At: r.At, Inputs: r.Inputs, Reason: r.Reason, Sent: prevSent}
			repoll[i] = false
			switch {
			case r.Kind == KindReady && len(r.Requests) == 0:
				st.ReadyWithoutRequest++
				c.cfg.Logger.Warn("reactor: Ready without request (contract violation)", "manager", m.Name(), "reason", r.Reason)
			case r.Kind == KindReady:
				for _, req := range r.Requests {
					if req.OnComplete == nil {
						panic(fmt.Sprintf("reactor: manager %s returned a request without OnComplete", m.Name()))
					}
					req.Manager, req.Version, req.Sent = m.Name(), c.version, now
				}
				st.Requests = append(st.Requests, r.Requests...)
				results[i].Sent += len(r.Requests)
				repoll[i], anyReady = true, true
			case !r.Kind.valid():
				panic(fmt.Sprintf("reactor: manager %s returned a Result with invalid kind %s", m.Name(), r.Kind))
			}
		}
		all = c.repoll
		stillReady = anyReady || c.repoll
		if !stillReady {
			break
		}
	}
	c.repoll = false

	d := &Decision{Step: c.step, Version: c.version, At: now, Results: results, Applied: applied, Sent: len(st.Requests), Closed: c.stop}
	for _, r := range results {
		if r.Kind == KindAwait {
			d.Awaiting |= r.Inputs
		}
		if r.Kind == KindRetryAt && r.At.IsZero() {
			st.PastDeadline++ // a RetryAt without a time says "now": the manager should have been Ready
			continue
		}
		if (r.Kind == KindRetryAt || r.Kind == KindAwait) && !r.At.IsZero() {
			if !r.At.After(now) {
				st.PastDeadline++
				continue
			}
			if d.Wake.IsZero() || r.At.Before(d.Wake) {
				d.Wake = r.At
			}
		}
	}
	if d.Awaiting.Has(InputPublication) {
		d.Wake = now // step again once this step's effects have run
	}
	if stillReady {
		st.RoundLimit = true
		d.Wake = now // step again at once
	}
	return c.finish(st, d)
}

// Close ends the core from outside (Loop.Stop): it applies nothing and
// polls no manager, and returns a final Step whose Decision has Closed set,
// with a fresh Snapshot, no Requests and the effects still queued. The core
// is stopped afterwards. It panics between a Step and its Advance and after
// the core stopped.
func (c *Core[V]) Close(now time.Time) Step {
	c.mustBeBetweenSteps("Close")
	applied := int(c.version - c.stepVersion)
	c.step++
	return c.finish(Step{}, &Decision{Step: c.step, Version: c.version, At: now, Applied: applied, Closed: true})
}

// Advance tells the core that the last Step's Decision is published and its
// Effects have run (or been taken to run): Apply and Step are allowed
// again. It panics without a Step to advance. After a Closed Step it is
// allowed and changes nothing else: the core stays stopped.
func (c *Core[V]) Advance() {
	if !c.pending {
		panic("reactor: Core.Advance without a Step to advance; call Step, publish its Decision, run its Effects, then Advance")
	}
	c.pending = false
}

// finish completes a Step: snapshot, effects, and the step bookkeeping.
func (c *Core[V]) finish(st Step, d *Decision) Step {
	st.Decision = d
	if c.cfg.Snapshot != nil {
		st.Snapshot = c.cfg.Snapshot(d)
	}
	d.Effects = len(c.effects) + c.ranAtOnce
	c.ranAtOnce = 0
	clear(c.effectFns) // the previous Step's, run by now (Advance)
	c.effectFns = c.effectFns[:0]
	for _, e := range c.effects {
		if e.version > d.Version {
			panic(fmt.Sprintf("reactor: effect queued at version %d would run after publication of version %d", e.version, d.Version))
		}
		c.effectFns = append(c.effectFns, e.fn)
	}
	st.Effects = c.effectFns
	clear(c.effects)
	c.effects = c.effects[:0]
	c.stepVersion = d.Version
	c.pending = true
	c.stopped = d.Closed
	return st
}

func (c *Core[V]) mustBeBetweenSteps(call string) {
	switch {
	case c.stopped:
		panic(fmt.Sprintf("reactor: Core.%s after the core stopped (step %d was Closed); a driver drops late observations", call, c.step))
	case c.pending:
		panic(fmt.Sprintf("reactor: Core.%s between Step and Advance of step %d; publish its Decision, run its Effects, then call Advance", call, c.step))
	}
}

type effect struct {
	fn      func()
	version uint64
}

// The Core is the host of the Txs it hands out.
func (c *Core[V]) queueEffect(fn func(), version uint64) {
	if c.cfg.EffectsAtOnce || mutant.On("effects-at-once") {
		c.ranAtOnce++
		fn()
		return
	}
	c.effects = append(c.effects, effect{fn: fn, version: version})
}
func (c *Core[V]) requestStop()   { c.stop = true }
func (c *Core[V]) requestRepoll() { c.repoll = true }

func (k Kind) valid() bool { return k >= KindReady && k <= KindIdle }
