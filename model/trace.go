package model

import (
	"fmt"

	"github.com/kreactor/kreactor/reactor"
)

// Violation is a recorded step the model forbids: the index of the event
// (or decision) in its log, the step itself and the rule it breaks.
type Violation struct {
	Index int
	What  string // the event or decision, rendered
	Rule  string
}

func (v *Violation) Error() string {
	return fmt.Sprintf("trace step %d (%s) breaks the model: %s", v.Index, v.What, v.Rule)
}

// waiter is one WaitFor call's place in the model's Waiter process.
type waiter struct {
	phase phase
	step  uint64 // the publication it took, checked or waits on
}

type phase uint8

const (
	took    phase = iota + 1 // took a publication, not yet checked
	checked                  // checked it, the condition did not hold
	blocked                  // waits on its channel
	woke                     // its channel closed: takes again next
)

// CheckEvents replays log (reactor.Engine.Events) as actions of the model
// (reactor.pml) and returns how many events it checked and the first one
// the model forbids (a *Violation), or nil. The rules:
//
//   - publish: steps in order, each once (Step = previous + 1; a closed
//     step-0 publication only for an engine stopped before it started),
//     versions never go back, nothing after the closed publication;
//   - effects of step s run only while s is the current publication
//     (invariant 4: after the publication of their decision, before the
//     next), all of them: a decision that counts N effects is followed by
//     one run of N effects before the next publication (effects run at
//     once, while observations are applied, are counted but never run
//     after the publication);
//   - take: only the current publication; a waiter takes again only after
//     its wait ended;
//   - check: only the publication the waiter took (invariant 5: take, then
//     check);
//   - block: only on the channel of the publication it checked and found
//     not holding, never the closed one;
//   - wake: only once that publication was replaced, or by its context.
//
// A log that starts mid-run (Dropped > 0) is checked from its first
// publication on, and a waiter up to DroppedMaxWaiter that starts with
// anything but a take is skipped until its next take.
func CheckEvents(log reactor.EventLog) (int, error) {
	c := &eventChecker{truncated: log.Dropped > 0, maxDropped: log.DroppedMaxWaiter, ws: map[uint64]*waiter{}, skip: map[uint64]bool{}}
	checkedN := 0
	for i, ev := range log.Events {
		if ev.Kind != reactor.EventPublish && !c.known {
			if !c.truncated {
				return 0, &Violation{Index: i, What: render(ev), Rule: "the log of a whole run starts with the initial publication"}
			}
			continue // mid-run: wait for a publication to know the current one
		}
		counted, rule := c.event(ev)
		if counted {
			checkedN++
		}
		if rule != "" {
			return checkedN, &Violation{Index: i, What: render(ev), Rule: rule}
		}
	}
	return checkedN, nil
}

// eventChecker is CheckEvents' replay of the model: the current
// publication and the waiters.
type eventChecker struct {
	truncated  bool   // the log starts mid-run (Dropped > 0)
	maxDropped uint64 // DroppedMaxWaiter: waiters up to it may start mid-wait

	cur        uint64 // the current publication's step, once known
	known      bool
	version    uint64
	closed     bool
	closedStep uint64
	owed       int32 // effects the current publication counts and has not run yet
	ws         map[uint64]*waiter
	skip       map[uint64]bool // waiters that started mid-wait, skipped until their next take
}

// event applies ev. It reports whether ev counts as checked (a skipped
// waiter's event does not) and the rule ev breaks, or "".
func (c *eventChecker) event(ev reactor.TraceEvent) (bool, string) {
	switch ev.Kind {
	case reactor.EventPublish:
		return true, c.publish(ev)
	case reactor.EventEffects:
		return true, c.effects(ev)
	case reactor.EventTake, reactor.EventCheck, reactor.EventBlock, reactor.EventWake:
		return c.waiterEvent(ev)
	}
	return true, fmt.Sprintf("unknown event kind %d", ev.Kind)
}

// publish applies a publication: steps in order, versions never back, the
// previous publication's effects all run, nothing after the closed one.
func (c *eventChecker) publish(ev reactor.TraceEvent) string {
	switch {
	case c.closed:
		return fmt.Sprintf("a publication after the closed one (step %d)", c.closedStep)
	case !c.known:
	case ev.Step == c.cur+1:
	case ev.Closed && ev.Step == 0 && c.cur == 0:
	default:
		return fmt.Sprintf("publication of step %d after step %d (each step is published once, in order)", ev.Step, c.cur)
	}
	if c.known && ev.Version < c.version {
		return fmt.Sprintf("version %d after version %d", ev.Version, c.version)
	}
	if c.known && c.owed > 0 {
		return fmt.Sprintf("step %d counted %d effects that did not run after its publication (invariant 4)", c.cur, c.owed)
	}
	c.cur, c.version, c.known, c.owed = ev.Step, ev.Version, true, ev.N
	if ev.Closed {
		c.closed, c.closedStep = true, ev.Step
	}
	return ""
}

// effects applies a run of effects: the current publication's, all of
// them (invariant 4).
func (c *eventChecker) effects(ev reactor.TraceEvent) string {
	if ev.Step != c.cur {
		return fmt.Sprintf("effects of step %d run while step %d is published (invariant 4: after their decision's publication)", ev.Step, c.cur)
	}
	if ev.N != c.owed {
		return fmt.Sprintf("%d effects of step %d run after its publication, which counts %d (invariant 4)", ev.N, ev.Step, c.owed)
	}
	c.owed = 0
	return ""
}

// waiterEvent applies a waiter's take, check, block or wake; a waiter that
// started mid-wait in a truncated log is skipped (not counted) until its
// next take.
func (c *eventChecker) waiterEvent(ev reactor.TraceEvent) (bool, string) {
	w := c.ws[ev.Waiter]
	if w == nil {
		if ev.Kind != reactor.EventTake && c.truncated && ev.Waiter <= c.maxDropped {
			c.skip[ev.Waiter] = true
			return false, ""
		}
		w = &waiter{}
		c.ws[ev.Waiter] = w
	}
	if c.skip[ev.Waiter] {
		if ev.Kind != reactor.EventTake {
			return false, ""
		}
		delete(c.skip, ev.Waiter)
		w.phase = 0
	}
	switch ev.Kind {
	case reactor.EventTake:
		if w.phase != 0 && w.phase != woke {
			return true, fmt.Sprintf("waiter %d takes again before its wait ended", ev.Waiter)
		}
		if ev.Step != c.cur {
			return true, fmt.Sprintf("waiter %d took step %d while step %d is published", ev.Waiter, ev.Step, c.cur)
		}
		w.phase, w.step = took, ev.Step
	case reactor.EventCheck:
		if w.phase != took || w.step != ev.Step {
			return true, fmt.Sprintf("waiter %d evaluated its condition on step %d without having taken that publication and its channel first (invariant 5)", ev.Waiter, ev.Step)
		}
		if ev.Held || (c.closed && ev.Step == c.closedStep) {
			delete(c.ws, ev.Waiter) // returns: the publication, or ErrStopped
			return true, ""
		}
		w.phase = checked
	case reactor.EventBlock:
		if w.phase != checked || w.step != ev.Step {
			return true, fmt.Sprintf("waiter %d waits on the channel of step %d, not of the publication it checked (invariant 5)", ev.Waiter, ev.Step)
		}
		w.phase = blocked
	case reactor.EventWake:
		if w.phase != blocked || w.step != ev.Step {
			return true, fmt.Sprintf("waiter %d woke from step %d without waiting on it", ev.Waiter, ev.Step)
		}
		if !ev.Cancelled && c.cur <= ev.Step {
			return true, fmt.Sprintf("waiter %d woke on step %d's channel before a newer publication (step %d is current)", ev.Waiter, ev.Step, c.cur)
		}
		if ev.Cancelled {
			delete(c.ws, ev.Waiter)
			return true, ""
		}
		w.phase = woke
	}
	return true, ""
}

// CheckDecisions checks a decision trace (reactor.Engine.Trace, oldest
// first) against the loop's rules in the model and returns how many
// decisions it checked and the first that breaks one (a *Violation):
// consecutive steps, versions that never go back, Applied equal to the
// version delta, an inbox wake with an observation applied and a timer
// wake only at or after the previous decision's Wake (invariant 2: no
// wake without an observation or a passed deadline), nothing after a
// Closed decision.
func CheckDecisions(trace []*reactor.Decision) (int, error) {
	for i, d := range trace {
		fail := func(rule string, args ...any) error {
			return &Violation{Index: i, What: fmt.Sprintf("decision step %d version %d woke %q applied %d", d.Step, d.Version, d.Woke, d.Applied), Rule: fmt.Sprintf(rule, args...)}
		}
		if i == 0 {
			continue
		}
		p := trace[i-1]
		switch {
		case p.Closed:
			return i, fail("a decision after the closed one")
		case d.Step != p.Step+1:
			return i, fail("step %d after step %d", d.Step, p.Step)
		case d.Version < p.Version:
			return i, fail("version %d after version %d", d.Version, p.Version)
		case p.Step > 0 && uint64(d.Applied) != d.Version-p.Version:
			return i, fail("applied %d, but the version moved %d", d.Applied, d.Version-p.Version)
		case d.Woke == "inbox" && d.Applied == 0:
			return i, fail("an inbox wake applied no observation (invariant 2)")
		case d.Woke == "timer" && p.Wake.IsZero():
			return i, fail("a timer wake after a decision with no deadline (invariant 2)")
		case d.Woke == "timer" && d.At.Before(p.Wake):
			return i, fail("a timer wake %s before the previous decision's Wake (invariant 2)", p.Wake.Sub(d.At))
		}
	}
	return len(trace), nil
}

func render(ev reactor.TraceEvent) string {
	s := fmt.Sprintf("%s step %d version %d", ev.Kind, ev.Step, ev.Version)
	if ev.Waiter != 0 {
		s += fmt.Sprintf(" waiter %d", ev.Waiter)
	}
	switch {
	case ev.Kind == reactor.EventCheck:
		s += fmt.Sprintf(" held %v", ev.Held)
	case ev.Closed:
		s += " closed"
	case ev.Cancelled:
		s += " cancelled"
	case ev.Kind == reactor.EventEffects:
		s += fmt.Sprintf(" n %d", ev.N)
	}
	return s
}
