package scenario

import "testing"

// The files that bound CPU run alone (suite.Alone); report_only figures
// and files without a cpu expectation do not.
func TestJudgesCPU(t *testing.T) {
	for file, want := range map[string]bool{
		"../../specs/scenarios/kafka-20253-coordinator-lost.yaml": true,
		"../../specs/scenarios/client-seek-commit.yaml":           false,
	} {
		sc, err := Load(file)
		if err != nil {
			t.Fatal(err)
		}
		if got := sc.JudgesCPU(); got != want {
			t.Errorf("%s: JudgesCPU = %v, want %v", file, got, want)
		}
	}
	sc := &Scenario{Expect: []*Expectation{{Kind: "cpu", Args: &CPU{Window: "idle", ReportOnly: true}}}}
	if sc.JudgesCPU() {
		t.Error("a report_only cpu figure judges nothing")
	}
}
