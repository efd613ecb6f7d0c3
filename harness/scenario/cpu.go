package scenario

// The cpu expectation (issue 11): the consumer's CPU in a fault window,
// bounded by an idle window of the same file ("at most 3x idle + 100 ms",
// scaled to the windows' lengths), and for a client that reports it
// (kafka-clients' select-total) its selector polls the same way:
//
//	- cpu: {window: outage, idle: idle}                      # harness.DefaultCPUBound
//	- cpu: {window: outage, idle: idle, factor: 3, plus: 100ms, select_plus: 1000}
//	- cpu: {window: waiting, max: 400ms}                     # no healthy window to calibrate by
//
// The last form is for a shape with no healthy phase to measure (the
// consumer is in the shape from its first call): at most max of CPU and
// select_plus selector polls (default 1000) in the window.
//
// Its keys are cpu.<window> and cpu.<window>.select_total. It is checked
// for subjects whose CPU is their own (harness.ScopeSubject: the java
// subject's driver process, kgo's labelled goroutines); for our in-process
// consumers the figure is the test process's and is shown only. The whole
// of it is harness.ReadCPU at the windows' edges and harness.JudgeCPU.

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kreactor/kreactor/harness"
)

func (p *parser) cpuExpectation(v *yaml.Node, e *Expectation) error {
	e.CPU = harness.DefaultCPUBound
	var absolute *time.Duration
	float := func(n *yaml.Node, out *float64) error {
		f, err := strconv.ParseFloat(n.Value, 64)
		if n.Kind != yaml.ScalarNode || err != nil || f < 0 {
			return p.errf(n.Line, "", "want a non-negative number, got %q", n.Value)
		}
		*out = f
		return nil
	}
	if err := p.mapping(v, "expectation cpu", map[string]func(*yaml.Node) error{
		"window":      func(n *yaml.Node) error { return p.str(n, &e.Window) },
		"idle":        func(n *yaml.Node) error { return p.str(n, &e.Idle) },
		"factor":      func(n *yaml.Node) error { return float(n, &e.CPU.IdleFactor) },
		"plus":        func(n *yaml.Node) error { return p.duration(n, &e.CPU.Plus) },
		"select_plus": func(n *yaml.Node) error { return float(n, &e.CPU.SelectPlus) },
		"max":         func(n *yaml.Node) error { return durPtr(p, n, &absolute) },
	}, "window"); err != nil {
		return err
	}
	if absolute != nil {
		for i := 0; i+1 < len(v.Content); i += 2 {
			if k := v.Content[i].Value; k == "idle" || k == "factor" || k == "plus" {
				return p.errf(v.Content[i].Line, k, "max bounds the window alone: give either max, or idle (with factor and plus)")
			}
		}
		e.CPU.IdleFactor, e.CPU.Plus = 0, *absolute
		return nil
	}
	if e.Idle == "" {
		return p.errf(v.Line, "cpu", "needs idle (the window it is calibrated by) or max")
	}
	if e.Window == e.Idle {
		return p.errf(v.Line, e.Idle, "the idle window must be another window than the one it bounds")
	}
	return nil
}

// wantsCPU reports whether a cpu expectation measures window name.
func (r *run) wantsCPU(name string) bool {
	return slices.ContainsFunc(r.sc.Expect, func(e Expectation) bool {
		return e.Kind == "cpu" && (e.Window == name || e.Idle == name)
	})
}

// readCPU reads the consumer's CPU at one edge of w, if a cpu expectation
// names it.
func (r *run) readCPU(w *window, open bool) {
	if w == nil || !w.cpuWanted || r.c == nil || w.cpuErr != nil {
		return
	}
	rd, err := harness.ReadCPU(r.c)
	switch {
	case err != nil:
		w.cpuErr = err
	case open:
		w.cpu0 = rd
	default:
		w.cpu1 = rd
	}
}

func (r *run) evaluateCPU(e Expectation, add func(Figure), fail func(Expectation, string, string, ...any)) {
	fw := r.windows[e.Window]
	if fw.cpuErr != nil {
		fail(e, KeyTimeline, "CPU not measured: %v", fw.cpuErr)
		return
	}
	fault := fw.cpu1.Since(fw.cpu0)
	// max: no idle window; nothing to scale (zero CPU, zero selector
	// polls where the client counts them).
	idle := harness.CPUUse{Scope: fault.Scope, Selects: fault.Selects * 0}
	if e.Idle != "" {
		iw := r.windows[e.Idle]
		if iw == nil || iw.to.IsZero() {
			fail(e, KeyTimeline, "idle window %q was not reached (the timeline stopped early)", e.Idle)
			return
		}
		if iw.cpuErr != nil {
			fail(e, KeyTimeline, "CPU not measured: %v", iw.cpuErr)
			return
		}
		idle = iw.cpu1.Since(iw.cpu0)
	}
	v, err := harness.JudgeCPU(fault, idle, e.CPU)
	if err != nil {
		fail(e, KeyTimeline, "%v", err)
		return
	}
	for _, f := range cpuFigures(e.Key(), v) {
		add(f)
	}
	if !v.CPUOK {
		fail(e, e.Key(), "%s", v.CPUMessage())
	}
	if !v.SelectsOK {
		fail(e, e.Key()+harness.CPUSuffixSelects, "%s", v.SelectsMessage())
	}
}

// cpuFigures are the verdict's figures as scenario figures (the spec
// attaches them; harness.CPUVerdict.Attach is the Go specs' form).
func cpuFigures(key string, v harness.CPUVerdict) []Figure {
	var out []Figure
	for _, f := range v.Figures(key) {
		out = append(out, Figure{Name: f.Name, Value: f.Value, Unit: f.Unit, Bound: f.Bound, Pass: f.Pass})
	}
	if !v.Checked {
		out[0].Detail = fmt.Sprintf("%s CPU: shown only", harness.ScopeProcess)
	}
	return out
}
