package sim

import (
	"flag"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"
)

var determinismRuns = flag.Int("sim.runs", 10, "runs of the determinism measurements")

// TestDeterminismSameSeed runs the outage scenario on the reactor
// consumer -sim.runs times in this process with one seed, with its faults
// on round times and off them, and reports how many histories differ and
// how ("same seed, 10 runs, how many histories differ"). It
// fails only if a run fails or a history breaks the scenario's checks:
// goroutine scheduling inside a bubble is not deterministic, so neither
// is the history (see the package doc).
func TestDeterminismSameSeed(t *testing.T) {
	for _, c := range []struct {
		name  string
		off   bool
		procs int
	}{
		{"faults on round times", false, 0},
		{"faults off round times", true, 0},
		{"faults off round times, one P", true, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var hs []*History
			for i := range *determinismRuns {
				var marks scenarioMarks
				cfg := Config{Seed: seed, Cluster: scenarioCluster(), Procs: c.procs}
				h, err := Run(t, cfg, scenarioRun(newReactor, c.off, &marks))
				if err != nil {
					t.Fatalf("run %d: %v", i, err)
				}
				checkOutageHistory(t, h, marks)
				hs = append(hs, h)
			}
			procs := runtime.GOMAXPROCS(0)
			if c.procs > 0 {
				procs = c.procs
			}
			t.Logf("GOMAXPROCS %d: %s", procs, measure(hs))
		})
	}
}

// determinism is a measurement of same-seed runs.
type determinism struct {
	runs          int
	differ        int // histories that differ from the first
	distinct      int // distinct histories
	canonical     int // histories whose canonical form differs from the first's
	distinctCanon int // distinct canonical forms
	modal         int // runs with the most common canonical form
	natures       map[string]int
	examples      []string
}

func (d determinism) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d runs, seed %d: %d differ from the first (%d distinct histories); canonical forms: %d differ from the first's, %d distinct, the most common in %d runs",
		d.runs, seed, d.differ, d.distinct, d.canonical, d.distinctCanon, d.modal)
	for _, n := range slices.Sorted(maps.Keys(d.natures)) {
		fmt.Fprintf(&b, "\n  %dx %s", d.natures[n], n)
	}
	for _, e := range d.examples {
		fmt.Fprintf(&b, "\n  e.g. %s", e)
	}
	return b.String()
}

// measure compares same-seed histories: each with the first, and each
// canonical form with the most common one (the nature of the differences
// is reported against that one, so an odd first run does not inflate
// them).
func measure(hs []*History) determinism {
	d := determinism{runs: len(hs), natures: map[string]int{}}
	exact, canon := map[string]int{}, map[string]int{}
	byCanon := map[string]*History{}
	for i, h := range hs {
		exact[h.Fingerprint()]++
		c := h.Canonical()
		fp := c.Fingerprint()
		canon[fp]++
		byCanon[fp] = c
		if i > 0 && !hs[0].Equal(h) {
			d.differ++
			for _, sd := range Diff(hs[0], h) {
				d.natures[sd.Section+": "+sd.Nature()]++
			}
		}
		if i > 0 && !hs[0].Canonical().Equal(c) {
			d.canonical++
		}
	}
	d.distinct, d.distinctCanon = len(exact), len(canon)
	var mode string
	for fp, n := range canon {
		if n > d.modal || n == d.modal && fp < mode {
			mode, d.modal = fp, n
		}
	}
	for _, h := range hs {
		for _, sd := range Diff(byCanon[mode], h.Canonical()) {
			d.natures["canonical vs the most common, "+sd.Section+": "+sd.Nature()]++
			if len(d.examples) < 3 {
				d.examples = append(d.examples, sd.String())
			}
		}
	}
	return d
}
