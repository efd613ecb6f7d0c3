package reports

import "testing"

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
	got := map[string][]Status{}
	for _, pr := range ContractPointTable(rep) {
		got[pr.Point.ID] = pr.Cells
	}
	want := map[string][]Status{
		"T-REBALANCE-COMMIT": {Status(VerdictPass), Status(VerdictFail), StatusNotRun},
		"T-POSITION":         {StatusUncovered, StatusUncovered, StatusUncovered},
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
