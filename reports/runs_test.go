package reports

import (
	"math"
	"strings"
	"testing"
)

func TestWilson(t *testing.T) {
	for _, c := range []struct {
		k, n      int
		low, high float64
	}{
		{0, 5, 0, 0.4345}, {5, 5, 0.5655, 1}, {14, 15, 0.7018, 0.9881}, {1, 1, 0.2065, 1}, {0, 1, 0, 0.7935}, {2, 5, 0.1176, 0.7693},
	} {
		lo, hi := Wilson(c.k, c.n)
		if math.Abs(lo-c.low) > 5e-4 || math.Abs(hi-c.high) > 5e-4 {
			t.Errorf("Wilson(%d, %d) = %.4f-%.4f, want %.4f-%.4f", c.k, c.n, lo, hi, c.low, c.high)
		}
	}
	if lo, hi := Wilson(0, 0); lo != 0 || hi != 1 {
		t.Errorf("Wilson(0, 0) = %v-%v, want 0-1", lo, hi)
	}
}

func TestDecide(t *testing.T) {
	r, d, i, n := Reproduces, DoesNotReproduce, Inconclusive, NotMeasured
	for _, c := range []struct {
		runs []Reproduction
		want Reproduction
	}{
		{[]Reproduction{r, r, r, r, r}, Reproduces},
		{[]Reproduction{r, r, d, d, d}, Reproduces},   // 2/5: 12-77%
		{[]Reproduction{r, d, d, d, d}, Inconclusive}, // 1/5: 4-62%
		{[]Reproduction{d, d, d, d, d}, DoesNotReproduce},
		{[]Reproduction{d, d, d, d, i}, DoesNotReproduce}, // 0/4: 0-49%, the inconclusive run left out
		{[]Reproduction{d}, Inconclusive},                 // 0/1 cannot bound the rate
		{[]Reproduction{r}, Reproduces},
		{[]Reproduction{i, i, i, i, i}, Inconclusive}, // every run below its floor: never "does not reproduce"
		{[]Reproduction{n, n}, NotMeasured},
		{[]Reproduction{r, r, r, r, i}, Reproduces},
	} {
		tl := Tally(c.runs)
		if got := Decide(tl); got != c.want {
			t.Errorf("%v: %s (%s), want %s", c.runs, got, tl.RateText(), c.want)
		}
	}
}

// A run below its evidence floor is inconclusive even when its signal held
// (the KAFKA-18641 run that judged no commit); a run that reproduced keeps
// its reproduction.
func TestFloorMakesRunInconclusive(t *testing.T) {
	row := func(observed float64, failed ...string) Row {
		return Row{ID: "s", Covers: []string{"KAFKA-1"}, Subject: "java", Target: "kfake", Verdict: VerdictPass, Run: 1,
			Signals: []string{"commits.past_processed"}, FailedKeys: failed,
			Floors:  []Floor{{Figure: "commits.observed", Min: 1}},
			Figures: []NamedFigure{{Name: "commits.observed", Figure: Figure{Value: observed}}, {Name: "commits.past_processed", Figure: Figure{Value: 0}}}}
	}
	if got, why := ReproductionOf(row(0)); got != Inconclusive || !strings.Contains(why, "commits.observed = 0 < 1") {
		t.Errorf("zero commits judged: %s (%s), want inconclusive naming the floor", got, why)
	}
	if got, _ := ReproductionOf(row(12)); got != DoesNotReproduce {
		t.Errorf("12 commits judged: %s, want does not reproduce", got)
	}
	r := row(12, "commits.past_processed")
	r.Verdict = VerdictFail
	if got, _ := ReproductionOf(r); got != Reproduces {
		t.Errorf("failed on the signal: %s", got)
	}
	missing := row(0)
	missing.Figures = missing.Figures[1:]
	if got, why := ReproductionOf(missing); got != Inconclusive || !strings.Contains(why, "not measured") {
		t.Errorf("floor figure missing: %s (%s)", got, why)
	}
	var rows []Row
	for k := 1; k <= 5; k++ {
		x := row(0)
		x.Run = k
		rows = append(rows, x)
	}
	if ec := evidenceOfRuns(Column{Subject: "java", Target: "kfake"}, rows); ec.Result != Inconclusive || ec.Undecided != 5 {
		t.Errorf("5 runs below the floor: %s (%s)", ec.Result, ec.Detail)
	}
	ref := row(0)
	ref.Subject = "reactor"
	if p := belowFloor([]Row{ref, row(0)}, "reactor"); len(p) != 1 || !strings.Contains(p[0], "inconclusive, not a pass") {
		t.Errorf("reference below its floor: %q", p)
	}
	if err := ValidateFloors([]Floor{{Figure: "x", Min: math.NaN()}}); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("NaN floor: %v", err)
	}
	if err := ValidateFloors([]Floor{{Figure: "x", Min: 1}, {Figure: "x", Min: 2}}); err == nil {
		t.Error("duplicate floor accepted")
	}
}

func TestUnderLoad(t *testing.T) {
	quiet := RunLoad{Start: &LoadSample{Load1: 0.5, Cores: 2, StealTicks: 10, TotalTicks: 1000}, End: &LoadSample{Load1: 1.2, Cores: 2, StealTicks: 12, TotalTicks: 2000}}
	if under, why := quiet.UnderLoad(); under {
		t.Errorf("quiet run under load: %s", why)
	}
	busy := quiet
	busy.End = &LoadSample{Load1: 2.4, Cores: 2, StealTicks: 12, TotalTicks: 2000}
	if under, why := busy.UnderLoad(); !under || !strings.Contains(why, "load 2.40 at end >= 2 cores") {
		t.Errorf("load 2.4 on 2 cores: %v %s", under, why)
	}
	stolen := quiet
	stolen.End = &LoadSample{Load1: 0.1, Cores: 2, StealTicks: 110, TotalTicks: 2000}
	if under, why := stolen.UnderLoad(); !under || !strings.Contains(why, "steal 10.0%") {
		t.Errorf("10%% steal: %v %s", under, why)
	}
	if s := busy.Summary(); !strings.Contains(s, "load 0.50 -> 2.40 (2 cores)") || !strings.Contains(s, "under load") {
		t.Errorf("summary %q", s)
	}
}

// A regression whose specs were all skipped (a label filter) is listed as
// not run, not as a row of n/a cells.
func TestReleaseMatrixLeavesOutFilteredRegressions(t *testing.T) {
	cat := parseCatalogue(t, `{"items":[{"id":"KAFKA-1","kind":"regression","title":"It MUST not spin.","source":"KAFKA-1","shape":"busy-loop"},{"id":"KAFKA-2","kind":"regression","title":"It MUST commit.","source":"KAFKA-2","shape":"busy-loop"}]}`)
	rows := []Row{
		{ID: "a", Covers: []string{"KAFKA-1"}, Subject: "java", Variant: "4.4.0", Target: "kfake", Verdict: VerdictFail, Run: 1, Signals: []string{"s"}, FailedKeys: []string{"s"}},
		{ID: "b", Covers: []string{"KAFKA-2"}, Subject: "java", Variant: "4.4.0", Target: "kfake", Verdict: VerdictSkipped, Run: 1},
	}
	rows[0].Source = "run1.json"
	rep := Build(cat, rows)
	rep.Files = []RunFile{{Source: "run1.json", Load: RunLoad{Start: &LoadSample{Load1: 9.4, Cores: 2}}}}
	m, err := BuildReleaseMatrix(rep, "java", "kfake")
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Rows[0].Cells[0]; c.UnderLoad != 1 || !strings.HasSuffix(c.CellText(), ", 1 under load") {
		t.Errorf("cell %q under load %d, want 1", c.CellText(), c.UnderLoad)
	}
	if len(m.Rows) != 1 || m.Rows[0].Item != "KAFKA-1" || len(m.NotRun) != 1 || m.NotRun[0] != "KAFKA-2" {
		t.Errorf("rows %+v, not run %v", m.Rows, m.NotRun)
	}
	if !strings.Contains(m.Markdown(), "Not run (no spec selected): KAFKA-2.") {
		t.Errorf("markdown:\n%s", m.Markdown())
	}
}
