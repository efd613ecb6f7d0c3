package scenario

// The cpu expectation (one handler of the registry in expect.go):
// the consumer's CPU in a fault window, bounded by an idle window of the
// same file ("at most 3x idle + 100 ms", scaled to the windows' lengths),
// and for a client that reports it (kafka-clients' select-total) its
// selector polls the same way:
//
//	- cpu: {window: outage, idle: idle}                      # measure.DefaultCPUBound
//	- cpu: {window: outage, idle: idle, factor: 3, plus: 100ms, select_plus: 1000}
//	- cpu: {window: waiting, max: 400ms}                     # no healthy window to calibrate by
//	- cpu: {window: idle, report_only: true}                 # a figure for the report, no bound
//
// The max form is for a shape with no healthy phase to measure (the
// consumer is in the shape from its first call): at most max of CPU and
// select_plus selector polls (default 1000) in the window.
//
// Its keys are cpu.<window> and cpu.<window>.select_total. It is checked
// for subjects whose CPU is their own (measure.ScopeSubject: the java
// subject's driver process, kgo's labelled goroutines); for our in-process
// consumers the figure is the test process's and is shown only. The whole
// of it is measure.ReadCPU at the windows' edges and measure.JudgeCPU.

import (
	"fmt"
	"math"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/measure"
)

// CPU bounds the CPU a consumer used in Window (see the file comment).
type CPU struct {
	Window   string `yaml:"window" sc:"required,name"`
	Idle     string `yaml:"idle,omitempty" sc:"name"`
	Consumer string `yaml:"consumer,omitempty" sc:"name"`
	// Factor, Plus, SelectPlus override measure.DefaultCPUBound's
	// IdleFactor, Plus (CPU time) and SelectPlus (selector polls).
	Factor     *float64  `yaml:"factor,omitempty"`
	Plus       *Duration `yaml:"plus,omitempty"`
	SelectPlus *float64  `yaml:"select_plus,omitempty"`
	// Max is an absolute bound on the window's CPU time (no idle window).
	Max        *Duration `yaml:"max,omitempty"`
	ReportOnly bool      `yaml:"report_only,omitempty"`
}

func (a *CPU) key(sc *Scenario) string { return "cpu." + a.Window + sc.suffix(a.Consumer) }

func (a *CPU) extraKeys(sc *Scenario) []string { return []string{a.key(sc) + measure.CPUSuffixSelects} }

// bound is the harness bound the file gives.
func (a *CPU) bound() measure.CPUBound {
	b := measure.DefaultCPUBound
	if a.Factor != nil {
		b.IdleFactor = *a.Factor
	}
	if a.Plus != nil {
		b.Plus = a.Plus.D()
	}
	if a.SelectPlus != nil {
		b.SelectPlus = *a.SelectPlus
	}
	if a.Max != nil {
		b.IdleFactor, b.Plus = 0, a.Max.D()
	}
	return b
}

func (a *CPU) validate(c *checker, e *Expectation) error {
	switch {
	case a.ReportOnly && (a.Max != nil || a.Idle != "" || a.Factor != nil || a.Plus != nil || a.SelectPlus != nil):
		return c.errf(e.line("report_only"), "report_only", "a report_only figure has no bound: drop max, idle, factor, plus and select_plus, or report_only")
	case a.Max != nil && (a.Idle != "" || a.Factor != nil || a.Plus != nil):
		k := "idle"
		for _, x := range []string{"idle", "factor", "plus"} {
			if e.lines.has(x) {
				k = x
				break
			}
		}
		return c.errf(e.line(k), k, "max bounds the window alone: give either max, or idle (with factor and plus); only one would apply")
	case !a.ReportOnly && a.Max == nil && a.Idle == "":
		return c.errf(e.Line, "cpu", "needs idle (the window it is calibrated by), max, or report_only: true")
	case a.Idle != "" && a.Idle == a.Window:
		return c.errf(e.line("idle"), "idle", "the idle window must be another window than %q, the one it bounds", a.Window)
	}
	for _, f := range []struct {
		key string
		v   *float64
	}{{"factor", a.Factor}, {"select_plus", a.SelectPlus}} {
		if f.v != nil && (*f.v < 0 || math.IsNaN(*f.v) || math.IsInf(*f.v, 0)) {
			return c.errf(e.line(f.key), f.key, "want a finite non-negative number, got %v", *f.v)
		}
	}
	if err := c.window(e, a.Window); err != nil {
		return err
	}
	if a.Idle != "" {
		if err := c.window(e, a.Idle); err != nil {
			return err
		}
	}
	return c.consumerRef(e, a.Consumer, false)
}

func (a *CPU) evaluate(r *run, e *Expectation) {
	m := r.member(a.Consumer)
	key := a.key(r.sc)
	use := func(name string) (measure.CPUUse, bool) {
		w, ok := r.windowOf(name)
		if !ok {
			r.notReached(e, fmt.Sprintf("window %q", name))
			return measure.CPUUse{}, false
		}
		wp := w.probes[m.spec.Name]
		switch {
		case wp == nil || !wp.cpuRead:
			r.figure(Figure{Name: key, Pass: true, NotApplicable: true, Detail: fmt.Sprintf("consumer %s was not running when window %q opened", m.spec.Name, name)})
			return measure.CPUUse{}, false
		case wp.cpuErr != nil:
			r.figure(Figure{Name: key, Pass: true, NotApplicable: true, Detail: fmt.Sprintf("CPU not measured: %v", wp.cpuErr)})
			return measure.CPUUse{}, false
		}
		return wp.cpu1.Since(wp.cpu0), true
	}
	fault, ok := use(a.Window)
	if !ok {
		return
	}
	if a.ReportOnly {
		f := Figure{Name: key, Value: math.Round(float64(fault.Consumer.Microseconds())) / 1000, Unit: "ms cpu", Pass: true, Detail: fault.String()}
		r.figure(f)
		return
	}
	// max: no idle window; nothing to scale (zero CPU, zero selector
	// polls where the client counts them).
	idle := measure.CPUUse{Scope: fault.Scope, Selects: fault.Selects * 0}
	if a.Idle != "" {
		if idle, ok = use(a.Idle); !ok {
			return
		}
	}
	v, err := measure.JudgeCPU(fault, idle, a.bound())
	if err != nil {
		r.fail(harness.KeyTimeline, "%s:%d: cpu: %v", r.sc.File, e.Line, err)
		return
	}
	for i, f := range v.Figures(key) {
		fig := Figure{Name: f.Name, Value: f.Value, Unit: f.Unit, Bound: f.Bound, Pass: f.Pass}
		if i == 0 && !v.Checked {
			fig.Detail = fmt.Sprintf("%s CPU: shown only", measure.ScopeProcess)
		}
		r.figure(fig)
	}
	if !v.CPUOK {
		r.fail(key, "%s:%d: cpu: %s", r.sc.File, e.Line, v.CPUMessage())
	}
	if !v.SelectsOK {
		r.fail(key+measure.CPUSuffixSelects, "%s:%d: cpu: %s", r.sc.File, e.Line, v.SelectsMessage())
	}
}

// readCPU reads m's CPU for a window edge.
// ok is false when m has no consumer (not built yet, or refused).
func readCPU(m *member) (rd measure.CPUReading, ok bool, err error) {
	h := m.handle()
	if h == nil {
		return measure.CPUReading{}, false, nil
	}
	rd, err = measure.ReadCPU(h)
	return rd, true, err
}

// JudgesCPU reports whether sc bounds a consumer's CPU (a cpu expectation
// that is not report_only): such a file runs alone (suite.Alone), since a
// spec running beside it would spend the CPU it measures.
func (sc *Scenario) JudgesCPU() bool {
	for _, e := range sc.Expect {
		if c, ok := e.Args.(*CPU); ok && !c.ReportOnly {
			return true
		}
	}
	return false
}
