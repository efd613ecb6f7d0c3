package scenario

// What only a consumer's probe shows (loop counters of our consumers; n/a
// for black-box subjects). CPU, which every subject shows in its own way,
// is in cpu.go.

import (
	"fmt"

	"github.com/kreactor/kreactor/harness"
)

// Counter bounds one of the loop's counters over a window: steps,
// spurious_wakeups, ready_without_request, past_deadline or app_wakeups.
type Counter struct {
	kind     string
	Window   string `yaml:"window" sc:"required,name"`
	Consumer string `yaml:"consumer,omitempty" sc:"name"`
	Bounds   `yaml:",inline"`
}

func (a *Counter) key(sc *Scenario) string { return a.kind + "." + a.Window + sc.suffix(a.Consumer) }

func (a *Counter) validate(c *checker, e *Expectation) error {
	if err := validateBounds(c, e, a.Bounds); err != nil {
		return err
	}
	if err := c.window(e, a.Window); err != nil {
		return err
	}
	return c.consumerRef(e, a.Consumer, false)
}

// probeOf is m's probe (regular or share), or false for a black-box subject.
func probeOf(m *member) (harness.Probe, bool) {
	if m.s != nil {
		return harness.ShareProbeOf(m.s)
	}
	if m.c == nil {
		return nil, false
	}
	return harness.ProbeOf(m.c)
}

func (a *Counter) evaluate(r *run, e *Expectation) {
	w, ok := r.windowOf(a.Window)
	if !ok {
		r.notReached(e, fmt.Sprintf("window %q", a.Window))
		return
	}
	m := r.member(a.Consumer)
	key := a.key(r.sc)
	if _, probed := probeOf(m); !probed {
		r.figure(Figure{Name: key, Pass: true, NotApplicable: true, Detail: "needs the loop's counters (a probe of our consumers)"})
		return
	}
	wp := w.probes[m.spec.Name]
	d := wp.s1.Sub(wp.s0)
	var n uint64
	unit := "steps"
	switch a.kind {
	case "steps":
		n = d.Steps
	case "spurious_wakeups":
		n, unit = d.SpuriousWakeups, "wakeups"
	case "ready_without_request":
		n, unit = d.ReadyWithoutRequest, "results"
	case "past_deadline":
		// The engine's count, or the harness's own from the published
		// decisions when it is higher: a spec does not take a contract
		// violation's absence from the subject's word alone.
		n, unit = max(d.PastDeadline, uint64(wp.pastInTrace)), "results"
	case "app_wakeups":
		n, unit = d.AppWakeups, "wakeups"
	}
	r.count(e, key, int(n), unit, a.Min, a.Max, "", a.ReportOnly)
}

// EarlyReturns bounds commit calls released before the decision holding
// their completion was published, over the whole run (P4).
type EarlyReturns struct {
	Consumer string `yaml:"consumer,omitempty" sc:"name"`
	Max      int    `yaml:"max" sc:"required"`
}

func (a *EarlyReturns) key(sc *Scenario) string { return "early_returns" + sc.suffix(a.Consumer) }

func (a *EarlyReturns) validate(c *checker, e *Expectation) error {
	return c.consumerRef(e, a.Consumer, false)
}

func (a *EarlyReturns) evaluate(r *run, e *Expectation) {
	m := r.member(a.Consumer)
	key := a.key(r.sc)
	p, ok := probeOf(m)
	if !ok {
		r.figure(Figure{Name: key, Pass: true, NotApplicable: true, Detail: "needs the consumer's commit-return probe"})
		return
	}
	returns, early := p.CommitReturns()
	r.figure(Figure{Name: "commit_returns" + r.sc.suffix(a.Consumer), Value: float64(returns), Unit: "calls"})
	r.count(e, key, int(early), "calls", nil, &a.Max, "", false)
}
