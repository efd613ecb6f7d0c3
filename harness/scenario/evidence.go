package scenario

// A scenario file's evidence floor (reports.Floor): the least a run must
// have measured for its verdict to count. The file's own `evidence:` map
// (figure key -> minimum) adds to the floors its expectations imply (a
// commits_within_processed that judged no commit proved nothing, whatever
// the file says).

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kreactor/kreactor/reports"
)

// flooredExpectation is implemented by expectation kinds whose figures say
// nothing below a minimum.
type flooredExpectation interface {
	floors(sc *Scenario) []reports.Floor
}

func (a *CommitsWithinProcessed) floors(*Scenario) []reports.Floor {
	return []reports.Floor{{Figure: KeyCommitsObserved, Min: 1}}
}

// Floors is the run's evidence floor: the expectations' implied floors,
// then the file's evidence: entries (a file entry for the same figure
// replaces the implied one).
func (sc *Scenario) Floors() []reports.Floor {
	var out []reports.Floor
	idx := map[string]int{}
	add := func(f reports.Floor) {
		if i, ok := idx[f.Figure]; ok {
			out[i] = f
			return
		}
		idx[f.Figure] = len(out)
		out = append(out, f)
	}
	for _, e := range sc.Expect {
		if fe, ok := e.Args.(flooredExpectation); ok {
			for _, f := range fe.floors(sc) {
				add(f)
			}
		}
	}
	for _, f := range sc.Evidence {
		add(f)
	}
	return out
}

// evidenceMap parses `evidence: {key: min, ...}`.
func (p *parser) evidenceMap(n *yaml.Node, sc *Scenario) error {
	const want = "want a mapping of figure keys to minimum values, e.g. {commits.observed: 1}"
	return p.namedMap(n, "evidence", want, "entries", MaxListLen, "MaxListLen", func(name string, k, v *yaml.Node) error {
		f, err := strconv.ParseFloat(v.Value, 64)
		if v.Kind != yaml.ScalarNode || err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return p.errf(v.Line, name, "evidence: want a finite number >= 0, got %s", describe(v))
		}
		if slices.ContainsFunc(sc.Evidence, func(x reports.Floor) bool { return x.Figure == name }) {
			return p.errf(k.Line, name, "evidence: figure named twice")
		}
		sc.Evidence = append(sc.Evidence, reports.Floor{Figure: name, Min: f})
		sc.evidenceLines = append(sc.evidenceLines, k.Line)
		return nil
	})
}

// evidence checks that every floor names a figure some expectation of the
// file attaches.
func (c *checker) evidence() error {
	known := map[string]bool{}
	for _, e := range c.sc.Expect {
		for _, k := range e.keys(c.sc) {
			known[k] = true
		}
	}
	for name := range c.windows {
		known[WindowKeyPrefix+name] = true
	}
	for i, f := range c.sc.Evidence {
		if !known[f.Figure] {
			return c.errf(c.sc.evidenceLines[i], f.Figure, "evidence names a key no expectation has (keys: %s)", strings.Join(slices.Sorted(maps.Keys(known)), ", "))
		}
	}
	return nil
}

// evidenceNode renders the file's evidence: map (format).
func evidenceNode(fs []reports.Floor) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
	for _, f := range fs {
		n.Content = append(n.Content, str(f.Figure), &yaml.Node{Kind: yaml.ScalarNode, Value: strconv.FormatFloat(f.Min, 'g', -1, 64)})
	}
	return n
}

// WindowKeyPrefix names a window's length figure: "window.NAME", in ms,
// from its window step to its end_window (or the timeline's end), so a
// file's evidence: can require the window to have lasted (e.g.
// {window.slow: 2900}).
const WindowKeyPrefix = "window."

// windowFigures attaches every closed window's length.
func (r *run) windowFigures() {
	r.mu.Lock()
	names := slices.Sorted(maps.Keys(r.windows))
	var figs []Figure
	for _, n := range names {
		if w := r.windows[n]; !w.to.IsZero() {
			figs = append(figs, Figure{Name: WindowKeyPrefix + n, Value: float64(w.to.Sub(w.from).Milliseconds()), Unit: "ms", Pass: true})
		}
	}
	r.mu.Unlock()
	for _, f := range figs {
		r.figure(f)
	}
}
