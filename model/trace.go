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
	cur, known := uint64(0), false // the current publication
	var version uint64
	closed := false
	closedStep := uint64(0)
	ws := map[uint64]*waiter{}
	skip := map[uint64]bool{}
	truncated := log.Dropped > 0
	checkedN := 0
	owed := int32(0) // effects the current publication counts and has not run yet
	for i, ev := range log.Events {
		fail := func(rule string, args ...any) error {
			return &Violation{Index: i, What: render(ev), Rule: fmt.Sprintf(rule, args...)}
		}
		if ev.Kind != reactor.EventPublish && !known {
			if !truncated {
				return 0, fail("the log of a whole run starts with the initial publication")
			}
			continue // mid-run: wait for a publication to know the current one
		}
		checkedN++
		switch ev.Kind {
		case reactor.EventPublish:
			switch {
			case closed:
				return checkedN, fail("a publication after the closed one (step %d)", closedStep)
			case !known:
			case ev.Step == cur+1:
			case ev.Closed && ev.Step == 0 && cur == 0:
			default:
				return checkedN, fail("publication of step %d after step %d (each step is published once, in order)", ev.Step, cur)
			}
			if known && ev.Version < version {
				return checkedN, fail("version %d after version %d", ev.Version, version)
			}
			if known && owed > 0 {
				return checkedN, fail("step %d counted %d effects that did not run after its publication (invariant 4)", cur, owed)
			}
			cur, version, known, owed = ev.Step, ev.Version, true, ev.N
			if ev.Closed {
				closed, closedStep = true, ev.Step
			}
		case reactor.EventEffects:
			if ev.Step != cur {
				return checkedN, fail("effects of step %d run while step %d is published (invariant 4: after their decision's publication)", ev.Step, cur)
			}
			if ev.N != owed {
				return checkedN, fail("%d effects of step %d run after its publication, which counts %d (invariant 4)", ev.N, ev.Step, owed)
			}
			owed = 0
		case reactor.EventTake, reactor.EventCheck, reactor.EventBlock, reactor.EventWake:
			w := ws[ev.Waiter]
			if w == nil {
				if ev.Kind != reactor.EventTake && truncated && ev.Waiter <= log.DroppedMaxWaiter {
					skip[ev.Waiter] = true
					checkedN--
					continue
				}
				w = &waiter{}
				ws[ev.Waiter] = w
			}
			if skip[ev.Waiter] {
				if ev.Kind != reactor.EventTake {
					checkedN--
					continue
				}
				delete(skip, ev.Waiter)
				w.phase = 0
			}
			switch ev.Kind {
			case reactor.EventTake:
				if w.phase != 0 && w.phase != woke {
					return checkedN, fail("waiter %d takes again before its wait ended", ev.Waiter)
				}
				if ev.Step != cur {
					return checkedN, fail("waiter %d took step %d while step %d is published", ev.Waiter, ev.Step, cur)
				}
				w.phase, w.step = took, ev.Step
			case reactor.EventCheck:
				if w.phase != took || w.step != ev.Step {
					return checkedN, fail("waiter %d evaluated its condition on step %d without having taken that publication and its channel first (invariant 5)", ev.Waiter, ev.Step)
				}
				if ev.Held || (closed && ev.Step == closedStep) {
					delete(ws, ev.Waiter) // returns: the publication, or ErrStopped
					continue
				}
				w.phase = checked
			case reactor.EventBlock:
				if w.phase != checked || w.step != ev.Step {
					return checkedN, fail("waiter %d waits on the channel of step %d, not of the publication it checked (invariant 5)", ev.Waiter, ev.Step)
				}
				w.phase = blocked
			case reactor.EventWake:
				if w.phase != blocked || w.step != ev.Step {
					return checkedN, fail("waiter %d woke from step %d without waiting on it", ev.Waiter, ev.Step)
				}
				if !ev.Cancelled && cur <= ev.Step {
					return checkedN, fail("waiter %d woke on step %d's channel before a newer publication (step %d is current)", ev.Waiter, ev.Step, cur)
				}
				if ev.Cancelled {
					delete(ws, ev.Waiter)
					continue
				}
				w.phase = woke
			}
		default:
			return checkedN, fail("unknown event kind %d", ev.Kind)
		}
	}
	return checkedN, nil
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
