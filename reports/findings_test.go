package reports

import (
	"slices"
	"strings"
	"testing"
)

// matrixOf builds a one-row matrix from per-release run verdicts, the
// releases given out of order to check the numeric sort.
func matrixOf(t *testing.T, cells map[string][]Reproduction) *ReleaseMatrix {
	t.Helper()
	m := &ReleaseMatrix{Version: ReleaseMatrixVersion, Subject: "java", Target: "kfake", Command: "make java-matrix RUNS=5"}
	row := ReleaseRow{Item: "KAFKA-1", SuiteDir: "specs/regressions"}
	for rel, runs := range cells {
		m.Releases = append(m.Releases, rel)
		tl := Tally(runs)
		tl.Specs = []string{"scenario.kafka-1"}
		row.Cells = append(row.Cells, EvidenceCheck{Column: Column{Subject: "java", Target: "kfake", Variant: rel}, Result: Decide(tl), RunTally: tl})
	}
	m.Rows = []ReleaseRow{row}
	return m
}

func five(r Reproduction) []Reproduction { return []Reproduction{r, r, r, r, r} }

func TestFindingsRegressed(t *testing.T) {
	R, D, I := Reproduces, DoesNotReproduce, Inconclusive
	m := matrixOf(t, map[string][]Reproduction{
		"4.0.0": five(D), "4.1.0": five(D), "4.10.0": five(R), "4.2.0": five(R),
		"4.3.0": {R, R, R, R, I}, // one run below the floor: still reproduces
	})
	fs := m.Findings()
	if len(fs) != 1 {
		t.Fatalf("findings %+v", fs)
	}
	f := fs[0]
	if f.Kind != Regressed || f.In != "4.2.0" || f.Last != "4.1.0" || len(f.Between) != 0 {
		t.Errorf("finding %s in %s after %s between %v", f.Kind, f.In, f.Last, f.Between)
	}
	if !slices.Equal(f.Releases, []string{"4.0.0", "4.1.0", "4.2.0", "4.3.0", "4.10.0"}) {
		t.Errorf("releases out of numeric order: %v", f.Releases)
	}
	if h := f.Headline(); h != "KAFKA-1 regressed in kafka-clients 4.2.0 (java on kfake)" {
		t.Errorf("headline %q", h)
	}
	md, jira := f.Markdown(), f.Jira()
	for _, want := range []string{"| 4.1.0 | does not reproduce | 0/5 | 0-43% | 0 | 0 of 5 |", "| 4.3.0 | reproduces | 4/4 | 51-100% | 1 | 0 of 5 |",
		"KREACTOR_SUBJECT=java KREACTOR_JAVA_CLIENTS=4.2.0 KREACTOR_TARGET=kfake go tool ginkgo --label-filter='id:scenario.kafka-1' ./specs/regressions", "make java-matrix RUNS=5"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	for _, want := range []string{"h3. KAFKA-1 regressed in kafka-clients 4.2.0", "||Release||Decision||", "|4.2.0|reproduces|5/5|57-100%|0|0 of 5|", "{noformat}", "{{scenario.kafka-1}}"} {
		if !strings.Contains(jira, want) {
			t.Errorf("jira lacks %q:\n%s", want, jira)
		}
	}
}

// Inconclusive cells in the middle are never read as either side: the
// change is placed in the first decided release on the new side, or in one
// of the undecided releases before it.
func TestFindingsInconclusiveInTheMiddle(t *testing.T) {
	R, D, I := Reproduces, DoesNotReproduce, Inconclusive
	m := matrixOf(t, map[string][]Reproduction{
		"4.0.0": five(D), "4.0.1": five(D),
		"4.0.2": {R, D, D, D, D}, // 1/5: inconclusive
		"4.1.0": five(I),         // every run below the floor
		"4.1.1": five(R), "4.2.0": five(R),
	})
	fs := m.Findings()
	if len(fs) != 1 {
		t.Fatalf("findings %+v", fs)
	}
	f := fs[0]
	if f.Kind != Regressed || f.In != "4.1.1" || f.Last != "4.0.1" || !slices.Equal(f.Between, []string{"4.0.2", "4.1.0"}) {
		t.Errorf("finding %s in %s after %s between %v", f.Kind, f.In, f.Last, f.Between)
	}
	if h := f.Headline(); !strings.Contains(h, "regressed in kafka-clients 4.1.1") || !strings.Contains(h, "or in 4.0.2, 4.1.0 (not decided)") {
		t.Errorf("headline %q", h)
	}
	if !strings.Contains(f.Markdown(), "| 4.1.0 | inconclusive | 0/0 | 0-100% | 5 | 0 of 5 |") {
		t.Errorf("the inconclusive cell is not shown as inconclusive:\n%s", f.Markdown())
	}
	for _, c := range f.Cells {
		if c.Undecided == c.Runs && c.Result == DoesNotReproduce {
			t.Errorf("%s: inconclusive runs shown as does not reproduce", c.Variant)
		}
	}
}

func TestFindingsFixedMixedNone(t *testing.T) {
	R, D, I := Reproduces, DoesNotReproduce, Inconclusive
	fixed := matrixOf(t, map[string][]Reproduction{"4.0.0": five(R), "4.1.0": five(I), "4.2.0": five(D)}).Findings()
	if len(fixed) != 1 || fixed[0].Kind != Fixed || fixed[0].In != "4.2.0" || !slices.Equal(fixed[0].Between, []string{"4.1.0"}) {
		t.Errorf("fixed: %+v", fixed)
	}
	mixed := matrixOf(t, map[string][]Reproduction{"4.0.0": five(D), "4.1.0": five(R), "4.2.0": five(D)}).Findings()
	if len(mixed) != 1 || mixed[0].Kind != Mixed || mixed[0].In != "" || !strings.Contains(mixed[0].Headline(), "no single release range") {
		t.Errorf("mixed: %+v", mixed)
	}
	for name, cells := range map[string]map[string][]Reproduction{
		"always":            {"4.0.0": five(R), "4.1.0": five(R)},
		"never":             {"4.0.0": five(D), "4.1.0": five(D)},
		"only inconclusive": {"4.0.0": five(D), "4.1.0": five(I), "4.2.0": {R, D, D, D, D}},
	} {
		if fs := matrixOf(t, cells).Findings(); len(fs) != 0 {
			t.Errorf("%s: findings %+v, want none", name, fs)
		}
	}
	html := renderAll(t, Report{Releases: matrixOf(t, map[string][]Reproduction{"4.0.0": five(D), "4.1.0": five(R)})})["html"]
	if !strings.Contains(html, `id="findings"`) || !strings.Contains(html, "KAFKA-1 regressed in kafka-clients 4.1.0") || !strings.Contains(html, "h3. KAFKA-1") {
		t.Error("HTML lacks the findings section")
	}
	if !strings.Contains(FindingsMarkdown(nil), "No finding") {
		t.Error("no finding line")
	}
}
