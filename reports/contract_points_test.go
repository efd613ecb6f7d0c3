package reports

import (
	"slices"
	"testing"

	"github.com/kreactor/kreactor/catalogue"
)

// A point's cell is the worst verdict of its specs in the column, "not run"
// where none of them ran, "uncovered" for a point naming no spec.
func TestContractPointTable(t *testing.T) {
	reactor := Column{Subject: "reactor", Target: "kfake"}
	base := Column{Subject: "baseline", Target: "kfake"}
	java := Column{Subject: "java", Target: "kafka"}
	rep := Report{Columns: []Column{reactor, base, java}, Specs: []SpecResult{{
		ID: "scenario.group-rebalance-no-duplicates",
		Cells: []SpecCell{
			{Column: reactor, Runs: []Row{{Verdict: VerdictPass}, {Verdict: VerdictPass}}},
			{Column: base, Runs: []Row{{Verdict: VerdictPass}, {Verdict: VerdictFail}}},
		},
	}}}
	// The catalogue's points, and one naming no spec (every real point
	// names one).
	points := append(slices.Clone(catalogue.ContractPoints), catalogue.ContractPoint{ID: "T-NONE", Consumer: "regular", Setting: "none", Java: "none"})
	got := map[string][]Status{}
	for _, pr := range pointTable(rep, points) {
		got[pr.Point.ID] = pr.Cells
	}
	if n := len(ContractPointTable(rep)); n != len(catalogue.ContractPoints) {
		t.Fatalf("ContractPointTable has %d rows, want one per catalogue.ContractPoints (%d)", n, len(catalogue.ContractPoints))
	}
	want := map[string][]Status{
		"T-REBALANCE-COMMIT": {Status(VerdictPass), Status(VerdictFail), StatusNotRun},
		"T-NONE":             {StatusUncovered, StatusUncovered, StatusUncovered},
		"T-HEARTBEAT":        {StatusNotRun, StatusNotRun, StatusNotRun},
	}
	for id, w := range want {
		g, ok := got[id]
		if !ok {
			t.Fatalf("point %s missing", id)
		}
		for i := range w {
			if g[i] != w[i] {
				t.Errorf("point %s column %d: %q, want %q", id, i, g[i], w[i])
			}
		}
	}
}
