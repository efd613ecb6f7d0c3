package reactor

import (
	"fmt"
	"strings"
	"time"
)

// ManagerResult is one manager's final result in a step, as recorded in the
// Decision.
type ManagerResult struct {
	Manager string
	Kind    Kind
	At      time.Time // RetryAt time or Await deadline; zero if none
	Inputs  Input     // Await only
	Reason  string
	Sent    int // requests this manager handed to the transport in the step
}

// Decision is the immutable aggregate timing decision of one step (KIP-1371,
// "One immutable aggregate timing decision is published before related
// application-visible completions, notifications, or wakeups execute").
// The loop never modifies a Decision after publishing it; readers must not
// either.
type Decision struct {
	// Step is the loop step that computed this decision (1-based; 0 is the
	// initial publication made by New).
	Step uint64
	// Version is the state version the decision was computed from.
	Version uint64
	// At is the loop time of the step.
	At time.Time
	// Wake is the earliest future RetryAt time or Await deadline over all
	// results: the loop blocks until then unless an observation arrives.
	// Zero means block until an observation. Equal to At, it means step
	// again at once, after the effects: a result awaits InputPublication,
	// or a manager was still Ready after MaxRounds.
	Wake time.Time
	// Awaiting is the union of the inputs awaited by all Await results.
	Awaiting Input
	// Results holds each manager's final result in the step, in manager
	// order.
	Results []ManagerResult
	// Applied is the number of observations applied in the step; Sent the
	// number of requests handed to the transport.
	Applied, Sent int
	// Effects is the number of effects the step runs after publication,
	// plus those a driver ran at once while applying and polling (the
	// baseline model: CoreConfig.EffectsAtOnce).
	Effects int
	// Woke says why the step started: "inbox" (an observation arrived),
	// "timer" (the wait timed out, or a zero-length wait found the inbox
	// empty), or "" (the first step, a step after a Core.Step that hit
	// MaxRounds, or a driver that does not say). Set by the driver before
	// it publishes.
	Woke string
	// Closed is set on the final decision of a stopped loop.
	Closed bool
}

// Result returns the named manager's result and whether it is present.
func (d *Decision) Result(manager string) (ManagerResult, bool) {
	for _, r := range d.Results {
		if r.Manager == manager {
			return r, true
		}
	}
	return ManagerResult{}, false
}

// Diagnose names, for every manager that is not Ready or Idle, what it waits
// for: the inputs of an Await, the time of a RetryAt (relative to the step),
// and the reason. One line per manager (P6, "diagnosable").
func (d *Decision) Diagnose() string {
	var b strings.Builder
	fmt.Fprintf(&b, "step %d version %d", d.Step, d.Version)
	if !d.Wake.IsZero() {
		fmt.Fprintf(&b, " wake +%s", d.Wake.Sub(d.At).Round(time.Millisecond))
	}
	if d.Closed {
		b.WriteString(" closed")
	}
	for _, r := range d.Results {
		switch r.Kind {
		case KindAwait:
			fmt.Fprintf(&b, "\n  %s awaits %s", r.Manager, r.Inputs)
			if !r.At.IsZero() {
				fmt.Fprintf(&b, " until +%s", r.At.Sub(d.At).Round(time.Millisecond))
			}
		case KindRetryAt:
			fmt.Fprintf(&b, "\n  %s retries at +%s", r.Manager, r.At.Sub(d.At).Round(time.Millisecond))
		case KindIdle:
			fmt.Fprintf(&b, "\n  %s idle", r.Manager)
		default:
			fmt.Fprintf(&b, "\n  %s %s", r.Manager, r.Kind)
		}
		if r.Sent > 0 {
			fmt.Fprintf(&b, " (sent %d)", r.Sent)
		}
		if r.Reason != "" {
			fmt.Fprintf(&b, ": %s", r.Reason)
		}
	}
	return b.String()
}
