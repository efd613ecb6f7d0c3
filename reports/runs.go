package reports

// Repeated runs: a verdict on a real client is a claim about someone else's
// code, so a cell's verdict comes from all of its runs. Each run is judged
// alone (ReproductionOfRun); the runs that decided (reproduced or held on a
// signal, at or above the evidence floor) give a reproduction rate with a
// 95% Wilson score interval, and Decide turns the interval into reproduces
// / does not reproduce / inconclusive.

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Decision thresholds on the 95% Wilson interval [Low, High] of the
// reproduction rate over the runs that decided:
//   - reproduces when Low >= ReproducesLow: with 95% confidence the shape
//     shows in at least one run in ten (2 of 5 runs and more; 1 of 1);
//   - does not reproduce when High <= NotReproducesHigh: with 95%
//     confidence it shows in at most half the runs (0 of 5 runs: High
//     0.43; 0 of 1 is not enough: High 0.79);
//   - inconclusive otherwise, and when no run decided (every run below its
//     evidence floor or without a measured signal).
const (
	ReproducesLow     = 0.10
	NotReproducesHigh = 0.50
	// WilsonZ is the normal quantile of a two-sided 95% interval.
	WilsonZ = 1.959963984540054
)

// RunTally counts a cell's runs by their verdicts.
type RunTally struct {
	// Runs is the number of runs (distinct Row.Run) of the cell.
	Runs int `json:"runs,omitempty"`
	// Reproduced and Held are the runs that reproduced the shape and
	// that measured a signal that held, at or above the evidence floor;
	// Decided = Reproduced + Held is the rate's denominator.
	Reproduced int `json:"reproduced"`
	Held       int `json:"held"`
	// Undecided are runs below their evidence floor or without a
	// measured signal; HarnessErrors runs that hit a harness error.
	Undecided     int `json:"undecided,omitempty"`
	HarnessErrors int `json:"harness_errors,omitempty"`
	// Rate = Reproduced/Decided; Low and High its 95% Wilson interval
	// (0, 0, 1 with no decided run).
	Rate float64 `json:"rate"`
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// PerRun is each run's verdict, by run index.
	PerRun []Reproduction `json:"per_run,omitempty"`
	// Specs are the spec ids behind the cell, in first-seen order.
	Specs []string `json:"specs,omitempty"`
	// UnderLoad counts the runs whose run file was taken under load
	// (RunLoad.UnderLoad), when the files' loads are known.
	UnderLoad int `json:"under_load,omitempty"`
}

// Decided is the number of runs that reproduced or held.
func (t RunTally) Decided() int { return t.Reproduced + t.Held }

// Wilson returns the 95% Wilson score interval of k successes in n trials:
// [0, 1] when n is 0. Errors: none; k is clamped to [0, n].
func Wilson(k, n int) (low, high float64) {
	if n <= 0 {
		return 0, 1
	}
	k = min(max(k, 0), n)
	z, fn := WilsonZ, float64(n)
	p := float64(k) / fn
	den := 1 + z*z/fn
	center := (p + z*z/(2*fn)) / den
	half := z * math.Sqrt(p*(1-p)/fn+z*z/(4*fn*fn)) / den
	return math.Max(0, center-half), math.Min(1, center+half)
}

// Decide applies the decision rule (ReproducesLow, NotReproducesHigh) to
// a tally: Reproduces, DoesNotReproduce or Inconclusive; NotMeasured when
// no run measured a signal at all and none was below a floor.
func Decide(t RunTally) Reproduction {
	switch {
	case t.Decided() == 0 && t.Undecided == 0:
		return NotMeasured
	case t.Decided() == 0:
		return Inconclusive
	case t.Low >= ReproducesLow:
		return Reproduces
	case t.High <= NotReproducesHigh:
		return DoesNotReproduce
	}
	return Inconclusive
}

// Tally counts per-run verdicts (in run order) and computes the rate and
// its interval.
func Tally(perRun []Reproduction) RunTally {
	t := RunTally{Runs: len(perRun), PerRun: slices.Clone(perRun)}
	for _, r := range perRun {
		switch r {
		case Reproduces:
			t.Reproduced++
		case DoesNotReproduce:
			t.Held++
		case HarnessFailure:
			t.HarnessErrors++
		case Inconclusive:
			t.Undecided++
		}
	}
	if n := t.Decided(); n > 0 {
		t.Rate = float64(t.Reproduced) / float64(n)
	}
	t.Low, t.High = Wilson(t.Reproduced, t.Decided())
	return t
}

// RateText renders "3/5 runs (60%, 95% CI 23-88%)", plus the undecided
// and harness-failed runs when there are any.
func (t RunTally) RateText() string {
	s := fmt.Sprintf("%d/%d runs (%.0f%%, 95%% CI %.0f-%.0f%%)", t.Reproduced, t.Decided(), t.Rate*100, t.Low*100, t.High*100)
	if t.Undecided > 0 {
		s += fmt.Sprintf(", %d inconclusive", t.Undecided)
	}
	if t.HarnessErrors > 0 {
		s += fmt.Sprintf(", %d harness error", t.HarnessErrors)
	}
	return s
}

// evidenceOfRuns judges rows (one regression's, one column's) run by run
// and decides the cell from the tally. A harness error in any run makes the
// cell a harness error: that run says nothing, and the check must see it.
func evidenceOfRuns(col Column, rows []Row) EvidenceCheck {
	byRun := map[int][]Row{}
	for _, r := range rows {
		byRun[r.Run] = append(byRun[r.Run], r)
	}
	runs := slices.SortedFunc(func(yield func(int) bool) {
		for k := range byRun {
			if !yield(k) {
				return
			}
		}
	}, cmp.Compare[int])
	var per []Reproduction
	var details []string
	firstHarness := ""
	for _, k := range runs {
		res, d := ReproductionOfRun(byRun[k])
		per = append(per, res)
		if res == HarnessFailure && firstHarness == "" {
			firstHarness = fmt.Sprintf("run %d: %s", k, d)
		}
		if len(runs) == 1 {
			details = append(details, d)
		} else {
			details = append(details, fmt.Sprintf("run %d %s (%s)", k, res, d))
		}
	}
	t := Tally(per)
	for _, r := range rows {
		if !slices.Contains(t.Specs, r.ID) {
			t.Specs = append(t.Specs, r.ID)
		}
	}
	ec := EvidenceCheck{Column: col, RunTally: t, Result: Decide(t)}
	switch {
	case t.HarnessErrors > 0:
		ec.Result, ec.Detail = HarnessFailure, firstHarness
	case len(runs) == 1:
		ec.Detail = details[0]
		if ec.Result == Inconclusive && per[0] == DoesNotReproduce {
			ec.Detail = "held in 1 run, too few to bound the rate: " + ec.Detail
		}
	default:
		ec.Detail = t.RateText() + ": " + strings.Join(details, "; ")
	}
	return ec
}
