package reports

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/kreactor/kreactor/catalogue"
)

// summaryOf is the verdicts of the report over paths, through summary.json.
func summaryOf(t *testing.T, paths []string) Verdicts {
	t.Helper()
	cat, err := catalogue.Load()
	if err != nil {
		t.Fatal(err)
	}
	rep := checkedRun(t, cat, paths)
	var buf bytes.Buffer
	if err := WriteJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	v, err := ReadVerdicts(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// shardFile writes the part of a real run file that shard i of n ran: the
// other shards' specs as a filtered run records them (skipped, no reason),
// the suite's label filter a shard filter.
func shardFile(t *testing.T, src string, i, n int) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var reps []types.Report
	if err := json.Unmarshal(data, &reps); err != nil {
		t.Fatal(err)
	}
	k := 0
	for r := range reps {
		var ids []string
		for s := range reps[r].SpecReports {
			sr := &reps[r].SpecReports[s]
			if sr.LeafNodeType != types.NodeTypeIt {
				continue
			}
			if k%n != i {
				sr.State, sr.Failure, sr.ReportEntries, sr.RunTime = types.SpecStateSkipped, types.Failure{}, nil, 0
			} else {
				for _, l := range sr.Labels() {
					if id, ok := strings.CutPrefix(l, LabelID); ok {
						ids = append(ids, id)
					}
				}
			}
			k++
		}
		reps[r].SuiteConfig.LabelFilter = ShardFilter("", ids, i, n)
	}
	out, err := json.Marshal(reps)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(src), ".json")+"-shard.json")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestShardedRunMergesToUnsharded(t *testing.T) {
	whole := summaryOf(t, runFixture)
	// The fixture is trimmed (two suites): its check has problems, which
	// the merged run must have too.
	if len(whole) < 10 || whole["check"] == "" {
		t.Fatalf("the fixture gave %d verdicts, check %q", len(whole), whole["check"])
	}
	for _, n := range []int{2, 4} {
		var paths []string
		for _, f := range runFixture {
			for i := range n {
				paths = append(paths, shardFile(t, f, i, n))
			}
		}
		if d := whole.Diff(summaryOf(t, paths)); len(d) > 0 {
			t.Errorf("%d shards merged differ from the unsharded run:\n%s", n, strings.Join(d, "\n"))
		}
		// One shard alone is not the run: its specs' placeholders stay skipped.
		if d := whole.Diff(summaryOf(t, paths[:1])); len(d) == 0 {
			t.Errorf("%d shards: one shard's file alone gave the whole run's verdicts", n)
		}
	}
}

func TestVerdictsDiff(t *testing.T) {
	a := Verdicts{"row x reactor kfake run1": "pass", "item P1": "pass", "check": "holds"}
	b := Verdicts{"row x reactor kfake run1": "fail", "item P2": "pass", "check": "holds"}
	want := []string{"item P1: pass -> (none)", "item P2: (none) -> pass", "row x reactor kfake run1: pass -> fail"}
	got := a.Diff(b)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Diff = %q, want %q", got, want)
	}
	if d := a.Diff(a); len(d) != 0 {
		t.Errorf("a report differs from itself: %q", d)
	}
}

// TestControlOutcomeEvidence: a control's failure on a declared key carries
// that key's figure, so the negative control table shows the number that
// proved the spec can fail; other failures carry none.
func TestControlOutcomeEvidence(t *testing.T) {
	steps := NamedFigure{Name: "steps.idle", Figure: Figure{Value: 247749, Unit: "steps", Bound: "<= 20 steps"}}
	r := Row{ID: "kafka-20426-idle", Verdict: VerdictFail, FailedKeys: []string{"delivered", "steps.idle"},
		Figures: []NamedFigure{{Name: "delivered", Figure: Figure{Value: 0, Unit: "records"}}, steps}}
	o := outcomeOf(r, []string{"steps.idle", "cpu.idle"}, ReasonSignal)
	if o.Reason != ReasonSignal || o.Evidence != steps.String() {
		t.Fatalf("outcome %+v: want reason %s, evidence %q", o, ReasonSignal, steps.String())
	}
	if got, want := reasons([]ControlOutcome{o}), "signal, e.g. kafka-20426-idle: "+steps.String(); got != want {
		t.Errorf("reasons = %q, want %q", got, want)
	}
	r.FailedKeys = []string{"delivered"}
	if o := outcomeOf(r, []string{"steps.idle"}, ReasonSignal); o.Reason != ReasonOther || o.Evidence != "" {
		t.Errorf("failure off the signals: outcome %+v, want reason %s and no evidence", o, ReasonOther)
	}
	r.FailedKeys = []string{"cpu.idle"}
	if o := outcomeOf(r, []string{"cpu.idle"}, ReasonSignal); o.Evidence != "cpu.idle" {
		t.Errorf("failed key without a figure: evidence %q, want the key", o.Evidence)
	}
}
