package jsonreport

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// A report Ginkgo itself encodes decodes to the same texts, labels, states,
// locations and entries as Ginkgo's own types give.
func TestDecodesGinkgosEncoding(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var specs []types.SpecReport
	for _, st := range []types.SpecState{types.SpecStatePassed, types.SpecStateFailed, types.SpecStateSkipped, types.SpecStatePending, types.SpecStatePanicked, types.SpecStateInterrupted, types.SpecStateTimedout, types.SpecStateAborted} {
		specs = append(specs, types.SpecReport{
			ContainerHierarchyTexts: []string{"outer", ""}, ContainerHierarchyLabels: [][]string{{"a", "b"}, {"b"}},
			LeafNodeType: types.NodeTypeIt, LeafNodeText: "does " + st.String(), LeafNodeLabels: []string{"id:x", "a"},
			LeafNodeLocation: types.CodeLocation{FileName: "/m/specs/x_test.go", LineNumber: 7},
			State:            st, IsSerial: st == types.SpecStateFailed, StartTime: start, RunTime: 1500 * time.Millisecond,
			Failure:       types.Failure{Message: "boom", Location: types.CodeLocation{FileName: "f.go", LineNumber: 3}, ForwardedPanic: "p"},
			ReportEntries: []types.ReportEntry{{Name: "figure", Value: types.WrapEntryValue(map[string]float64{"v": 1})}},
		})
	}
	specs = append(specs, types.SpecReport{LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStatePassed})
	in := []types.Report{{SuitePath: "/m/specs", SuiteDescription: "d", SuiteLabels: []string{"s"}, SuiteSucceeded: true,
		SpecialSuiteFailureReasons: []string{"r"}, SuiteConfig: types.SuiteConfig{LabelFilter: "id:x"}, StartTime: start, EndTime: start.Add(time.Minute), SpecReports: specs}}
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var want []types.Report
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	var got []Report
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	g, w := got[0], want[0]
	if g.SuitePath != w.SuitePath || g.SuiteDescription != w.SuiteDescription || !slices.Equal(g.SuiteLabels, w.SuiteLabels) || g.SuiteSucceeded != w.SuiteSucceeded ||
		!slices.Equal(g.SpecialSuiteFailureReasons, w.SpecialSuiteFailureReasons) || g.SuiteConfig.LabelFilter != w.SuiteConfig.LabelFilter ||
		!g.StartTime.Equal(w.StartTime) || !g.EndTime.Equal(w.EndTime) || len(g.SpecReports) != len(w.SpecReports) {
		t.Fatalf("suite fields: got %+v\nwant %+v", g, w)
	}
	for i, ws := range w.SpecReports {
		gs := g.SpecReports[i]
		if gs.FullText() != ws.FullText() || !slices.Equal(gs.Labels(), ws.Labels()) || gs.State.String() != ws.State.String() ||
			gs.State.Failed() != ws.State.Is(types.SpecStateFailureStates) || (gs.LeafNodeType == NodeTypeIt) != (ws.LeafNodeType == types.NodeTypeIt) ||
			gs.IsSerial != ws.IsSerial || gs.LeafNodeLocation.String() != ws.LeafNodeLocation.String() || !gs.StartTime.Equal(ws.StartTime) || gs.RunTime != ws.RunTime ||
			gs.Failure.Message != ws.Failure.Message || gs.Failure.ForwardedPanic != ws.Failure.ForwardedPanic || gs.Failure.Location.String() != ws.Failure.Location.String() {
			t.Errorf("spec %d: got %+v\nwant %+v", i, gs, ws)
		}
		for j, we := range ws.ReportEntries {
			if ge := gs.ReportEntries[j]; ge.Name != we.Name || ge.Value.AsJSON != we.Value.AsJSON || ge.Value.Representation != we.Value.Representation {
				t.Errorf("spec %d entry %d: got %+v, want %+v", i, j, ge, we)
			}
		}
	}
	if s := SpecState("bogus"); s.String() != types.SpecStateInvalid.String() {
		t.Errorf("unknown state renders %q, Ginkgo %q", s, types.SpecStateInvalid)
	}
	if err := json.Unmarshal([]byte(`{"Name":"x","Value":{"AsJSON":"not json"}}`), new(ReportEntry)); err == nil {
		t.Error("an entry whose AsJSON is not JSON decoded")
	}
}
