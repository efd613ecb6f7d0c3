package reports

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	"go.uber.org/goleak"

	"github.com/kreactor/kreactor/catalogue"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const fixture = "testdata/ginkgo.json"

func parseFixture(t *testing.T) Run {
	t.Helper()
	run, err := ParseFiles([]string{fixture}, Options{})
	if err != nil {
		t.Fatalf("ParseFiles(%s): %v", fixture, err)
	}
	return run
}

func TestParseFixture(t *testing.T) {
	f, err := os.Open(fixture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := Parse(f)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if len(rows) != 11 {
		t.Fatalf("got %d rows, want 11 (BeforeSuite and ReportAfterSuite skipped)", len(rows))
	}
	type key struct{ id, subject, target string }
	got := map[key]Row{}
	for _, r := range rows {
		got[key{r.ID, r.Subject, r.Target}] = r
	}
	tests := []struct {
		key      key
		verdict  Verdict
		covers   []string
		message  string
		location string
		figures  []string
		text     string
	}{
		{key: key{"happy-path", "reactor", "kfake"}, verdict: VerdictPass, covers: []string{"E2E-1"},
			figures: []string{"records=1000 records (== produced)", "close=0.042 s (<= 1 s)", "note=leave heartbeat observed | epoch -1"},
			text:    "the reactor consumer delivers every record exactly once and leaves the group on close"},
		{key: key{"happy-path", "reactor", "kafka"}, verdict: VerdictPass, covers: []string{"E2E-1"},
			figures: []string{"records=1000 records (== produced)"}},
		{key: key{"kafka-20253-coordinator-lost", "reactor", "kfake"}, verdict: VerdictPass, covers: []string{"KAFKA-20253", "P2"},
			figures: []string{"find_coordinator_rate=0.9 req/s (<= 1 req/s)"}},
		{key: key{"kafka-20253-coordinator-lost", "baseline", "kfake"}, verdict: VerdictFail, covers: []string{"KAFKA-20253", "P2"},
			message: "find_coordinator_rate 412.5 req/s exceeds bound 1 req/s", location: "fixture_suite_test.go:53",
			figures: []string{"find_coordinator_rate=412.5 req/s (<= 1 req/s)"}},
		{key: key{"p4-publish-before-effects", "reactor", "kfake"}, verdict: VerdictPanicked, covers: []string{"P4"},
			message: "Test Panicked: effect ran before publication", location: "fixture_suite_test.go:39"},
		{key: key{"kafka-21031-heartbeat-in-flight", "reactor", "kfake"}, verdict: VerdictTimedout, covers: []string{"KAFKA-21031"},
			message: "A spec timeout occurred", location: "fixture_suite_test.go:41"},
		{key: key{"kafka-19357-close-no-coordinator", "reactor", "kfake"}, verdict: VerdictPending, covers: []string{"KAFKA-19357"}},
		{key: key{"kafka-20397-error-wakes-poll", "reactor", "kafka"}, verdict: VerdictSkipped, covers: []string{"KAFKA-20397"},
			message: "excluded on real Kafka: the fault cannot be timed"},
		{key: key{"unknown-item", "reactor", "kfake"}, verdict: VerdictPass, covers: []string{"KAFKA-99999"},
			figures: []string{"lag|p99=3 records"}},
		{key: key{"kafka-20854-fetch-ping-pong", "reactor", "kfake"}, verdict: VerdictPass, covers: []string{"KAFKA-20854"},
			figures: []string{"application_wakeups=0 wakeups (== 0)"}, text: "an empty fetch step does not wake the application reactor"},
		{key: key{"kafka-20854-fetch-ping-pong", "baseline", "kfake"}, verdict: VerdictFail, covers: []string{"KAFKA-20854"},
			message: "application_wakeups 17, bound 0", location: "fixture_suite_test.go:61",
			figures: []string{"application_wakeups=17 wakeups (== 0)"}},
	}
	for _, tt := range tests {
		t.Run(tt.key.id+"/"+tt.key.subject+"/"+tt.key.target, func(t *testing.T) {
			r, ok := got[tt.key]
			if !ok {
				t.Fatalf("no row for %v", tt.key)
			}
			if r.Verdict != tt.verdict {
				t.Errorf("verdict %q, want %q", r.Verdict, tt.verdict)
			}
			if !slices.Equal(r.Covers, tt.covers) {
				t.Errorf("covers %v, want %v", r.Covers, tt.covers)
			}
			if r.Message != tt.message {
				t.Errorf("message %q, want %q", r.Message, tt.message)
			}
			if r.Location != tt.location {
				t.Errorf("location %q, want %q", r.Location, tt.location)
			}
			var figs []string
			for _, f := range r.Figures {
				figs = append(figs, f.String())
			}
			if !slices.Equal(figs, tt.figures) {
				t.Errorf("figures %q, want %q", figs, tt.figures)
			}
			if tt.text != "" && r.Text != tt.text {
				t.Errorf("text %q, want %q", r.Text, tt.text)
			}
			if r.Suite != "kreactor fixture suite" || !strings.HasPrefix(r.SpecLocation, "fixture_suite_test.go:") {
				t.Errorf("suite %q, spec location %q", r.Suite, r.SpecLocation)
			}
			if r.Verdict != VerdictPending && r.Verdict != VerdictSkipped && r.Duration <= 0 {
				t.Errorf("duration %v, want > 0", r.Duration)
			}
		})
	}
	if r := got[key{"kafka-21031-heartbeat-in-flight", "reactor", "kfake"}]; r.Duration < 20*time.Millisecond {
		t.Errorf("timed-out spec duration %v, want >= its 20ms SpecTimeout", r.Duration)
	}
	if f := got[key{"happy-path", "reactor", "kfake"}].Figures[2]; !f.IsText {
		t.Errorf("plain string entry should be a text figure: %+v", f)
	}
}

// synth builds a Ginkgo JSON report from spec reports, the way Ginkgo would write it.
func synth(t *testing.T, specs ...types.SpecReport) []byte {
	t.Helper()
	rep := types.Report{
		SuitePath:        "/src/specs",
		SuiteDescription: "synthetic",
		SuiteSucceeded:   true,
		StartTime:        time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		EndTime:          time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC),
		SpecReports:      specs,
	}
	b, err := json.Marshal([]types.Report{rep})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func it(text string, state types.SpecState, labels ...string) types.SpecReport {
	return types.SpecReport{
		ContainerHierarchyTexts:  []string{"ctx"},
		ContainerHierarchyLabels: [][]string{{"subject:reactor"}},
		LeafNodeType:             types.NodeTypeIt,
		LeafNodeText:             text,
		LeafNodeLocation:         types.CodeLocation{FileName: "/src/specs/x_test.go", LineNumber: 7},
		LeafNodeLabels:           labels,
		State:                    state,
		RunTime:                  1500 * time.Millisecond,
	}
}

func withEntry(sr types.SpecReport, name string, value any) types.SpecReport {
	e := types.ReportEntry{Name: name, Value: types.WrapEntryValue(value)}
	// Round-trip so AsJSON and Representation are filled as in a real report.
	b, _ := json.Marshal(e)
	var back types.ReportEntry
	_ = json.Unmarshal(b, &back)
	sr.ReportEntries = append(sr.ReportEntries, back)
	return sr
}

func TestDecodeCases(t *testing.T) {
	failedSetup := types.SpecReport{
		LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStateFailed,
		Failure: types.Failure{Message: "broker did not start\nstack", Location: types.CodeLocation{FileName: "/src/specs/suite_test.go", LineNumber: 3}},
	}
	tests := []struct {
		name     string
		input    []byte
		opt      Options
		wantErr  []string // substrings; nil means success
		check    func(t *testing.T, run Run)
		warnings []string
	}{
		{name: "malformed", input: []byte(`[{"SuitePath": `), opt: Options{Source: "bad.json"},
			wantErr: []string{"bad.json: decode Ginkgo JSON report"}},
		{name: "not an array", input: []byte(`{"SuitePath":"x"}`), opt: Options{Source: "obj.json"},
			wantErr: []string{"obj.json: decode Ginkgo JSON report"}},
		{name: "null", input: []byte("null\n"), opt: Options{Source: "n.json"},
			wantErr: []string{"n.json: not a Ginkgo JSON report: null"}},
		{name: "trailing data", input: []byte(`[] []`), opt: Options{Source: "t.json"},
			wantErr: []string{"t.json: decode Ginkgo JSON report: trailing data"}},
		{name: "missing id strict", input: synth(t, it("no id here", types.SpecStatePassed, "covers:P1")), opt: Options{Source: "s.json"},
			wantErr: []string{`s.json: spec "ctx no id here" at x_test.go:7: no id: label`}},
		{name: "missing id lenient", input: synth(t, it("no id here", types.SpecStateFailed, "covers:P1")), opt: Options{Lenient: true},
			check: func(t *testing.T, run Run) {
				r := run.Rows[0]
				if r.ID != "text:ctx-no-id-here" || !r.DerivedID || r.Verdict != VerdictFail {
					t.Errorf("row %+v", r)
				}
			},
			warnings: []string{`spec "ctx no id here" at x_test.go:7 has no id: label; using derived id "text:ctx-no-id-here"`}},
		{name: "two ids", input: synth(t, it("x", types.SpecStatePassed, "id:a", "id:b")),
			wantErr: []string{`more than one id: label (a, b)`}},
		{name: "two subjects", input: synth(t, it("x", types.SpecStatePassed, "id:a", "subject:baseline")),
			wantErr: []string{`more than one subject: label (reactor, baseline)`}},
		{name: "empty covers", input: synth(t, it("x", types.SpecStatePassed, "id:a", "covers:")),
			wantErr: []string{`empty covers: label`}},
		{name: "invalid state", input: synth(t, it("x", types.SpecStateInvalid, "id:a")),
			wantErr: []string{`unknown spec state`}},
		{name: "duplicate key strict", input: synth(t, it("x", types.SpecStatePassed, "id:a"), it("y", types.SpecStatePassed, "id:a")),
			wantErr: []string{`duplicate spec id "a" for subject "reactor", target ""`}},
		{name: "duplicate labels collapse", input: synth(t, it("x", types.SpecStatePassed, "id:a", "id:a", "covers:P1", "covers:P1", "target:kfake")),
			check: func(t *testing.T, run Run) {
				if r := run.Rows[0]; r.ID != "a" || !slices.Equal(r.Covers, []string{"P1"}) || r.Target != "kfake" {
					t.Errorf("row %+v", r)
				}
			}},
		{name: "suite setup failure is a warning", input: synth(t, failedSetup, it("x", types.SpecStateSkipped, "id:a")),
			check: func(t *testing.T, run Run) {
				if len(run.Rows) != 1 || run.Rows[0].Verdict != VerdictSkipped {
					t.Errorf("rows %+v", run.Rows)
				}
				if len(run.Suites) != 1 || len(run.Suites[0].Problems) != 1 {
					t.Errorf("suites %+v", run.Suites)
				}
			},
			warnings: []string{`suite "synthetic": BeforeSuite failed at suite_test.go:3: broker did not start`}},
		{name: "figure decoding", input: synth(t,
			withEntry(withEntry(withEntry(withEntry(withEntry(withEntry(
				it("x", types.SpecStatePassed, "id:a"),
				"fig", Figure{Value: 2.5, Unit: "ms", Bound: "<= 3 ms"}),
				"count", Figure{Value: 1e-9, Unit: ""}),
				"noUnit", map[string]any{"value": 1}),
				"extra", map[string]any{"value": 1, "unit": "s", "p": 2}),
				"str", "hello"),
				"none", nil)),
			check: func(t *testing.T, run Run) {
				var got []string
				for _, f := range run.Rows[0].Figures {
					got = append(got, f.String()+"/"+map[bool]string{true: "text", false: "fig"}[f.IsText])
				}
				want := []string{"fig=2.5 ms (<= 3 ms)/fig", "count=1e-09/fig", "noUnit=map[value:1]/text",
					"extra=map[p:2 unit:s value:1]/text", "str=hello/text", "none=/text"}
				if !slices.Equal(got, want) {
					t.Errorf("figures\n got %q\nwant %q", got, want)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, err := Decode(bytes.NewReader(tt.input), tt.opt)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("Decode succeeded, want error containing %q", tt.wantErr)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if tt.check != nil {
				tt.check(t, run)
			}
			if !slices.Equal(run.Warnings, tt.warnings) {
				t.Errorf("warnings\n got %q\nwant %q", run.Warnings, tt.warnings)
			}
		})
	}
}

func TestParseFilesNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(bad, []byte("[{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, paths := range [][]string{{fixture, bad}, {filepath.Join(dir, "missing.json")}} {
		_, err := ParseFiles(paths, Options{})
		if err == nil || !strings.Contains(err.Error(), paths[len(paths)-1]) {
			t.Errorf("ParseFiles(%v) error %v, want one naming %s", paths, err, paths[len(paths)-1])
		}
	}
}

func TestParseFilesMerges(t *testing.T) {
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	// The same suite "run against another target": no duplicate keys, rows add up.
	other := filepath.Join(t.TempDir(), "other.json")
	if err := os.WriteFile(other, bytes.ReplaceAll(data, []byte("target:k"), []byte("target:other-k")), 0o644); err != nil {
		t.Fatal(err)
	}
	run, err := ParseFiles([]string{fixture, other}, Options{})
	if err != nil {
		t.Fatalf("merge: %v", err)
	}
	if len(run.Rows) != 22 || len(run.Suites) != 2 || run.Rows[11].Source != filepath.Base(other) {
		t.Errorf("merged %d rows, %d suites; row 11 source %q", len(run.Rows), len(run.Suites), run.Rows[11].Source)
	}
	// The same file twice is a duplicate in strict mode and a warning in lenient mode.
	if _, err := ParseFiles([]string{fixture, fixture}, Options{}); err == nil || !strings.Contains(err.Error(), "duplicate spec id") {
		t.Errorf("same file twice: error %v, want duplicate spec id", err)
	}
	run, err = ParseFiles([]string{fixture, fixture}, Options{Lenient: true})
	// 11 duplicates and the file's missing provenance.
	if err != nil || len(run.Rows) != 22 || len(run.Warnings) != 12 {
		t.Errorf("lenient same file twice: %d rows, %d warnings, err %v", len(run.Rows), len(run.Warnings), err)
	}
}

// testCatalogue is a fixed catalogue (testdata/catalogue.json, with target
// exclusions), so the golden report does not change with the real one.
func testCatalogue(t *testing.T) catalogue.Catalogue {
	t.Helper()
	data, err := os.ReadFile("testdata/catalogue.json")
	if err != nil {
		t.Fatal(err)
	}
	return parseCatalogue(t, string(data))
}

// parseCatalogue parses the catalogue JSON src, failing t if it does not.
func parseCatalogue(t *testing.T, src string) catalogue.Catalogue {
	t.Helper()
	cat, err := catalogue.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func TestBuild(t *testing.T) {
	cat := testCatalogue(t)
	rep := BuildRun(cat, parseFixture(t))
	status := map[string]ItemReport{}
	for _, it := range rep.Items {
		status[it.Item.ID] = it
	}
	wantItems := map[string]Status{
		"E2E-1": "pass", "P1": StatusUncovered, "P2": "fail", "P4": "panicked",
		"KAFKA-20253": "fail", "KAFKA-20854": "fail", "KAFKA-20397": StatusUncovered, // only skipped on kafka, which it excludes
		"KAFKA-19357": "pending", "KAFKA-21031": "timedout", "KAFKA-21049": StatusUncovered,
	}
	for id, want := range wantItems {
		if got := status[id].Status; got != want {
			t.Errorf("item %s status %q, want %q", id, got, want)
		}
	}
	wantCols := []Column{{Subject: "reactor", Target: "kfake"}, {Subject: "reactor", Target: "kafka"}, {Subject: "baseline", Target: "kfake"}}
	if !slices.Equal(rep.Columns, wantCols) {
		t.Errorf("columns %v, want %v", rep.Columns, wantCols)
	}
	cells := func(id string) []Status {
		var s []Status
		for _, c := range status[id].Cells {
			s = append(s, c.Status)
		}
		return s
	}
	for id, want := range map[string][]Status{
		"P1":          {StatusUncovered, StatusExcluded, StatusUncovered},
		"E2E-1":       {"pass", "pass", StatusNotRun},
		"KAFKA-20253": {"pass", StatusNotRun, "fail"},
		"KAFKA-20397": {StatusUncovered, StatusExcluded, StatusUncovered},
	} {
		if got := cells(id); !slices.Equal(got, want) {
			t.Errorf("item %s cells %v, want %v", id, got, want)
		}
	}
	if len(rep.Unknown) != 1 || rep.Unknown[0].ID != "KAFKA-99999" || rep.Unknown[0].Rows[0].ID != "unknown-item" {
		t.Errorf("unknown items %+v", rep.Unknown)
	}
	if rep.Totals.Specs != 11 || rep.Totals.ByVerdict[VerdictPass] != 5 || rep.Totals.ByVerdict[VerdictFail] != 2 {
		t.Errorf("totals %+v", rep.Totals)
	}
	// Rows: catalogue order first (E2E-1 rows, then P2 via kafka-20253, P4, ...), unknown last.
	var order []string
	for _, r := range rep.Rows {
		order = append(order, r.ID+"/"+r.Subject+"/"+r.Target)
	}
	want := []string{
		"happy-path/reactor/kafka", "happy-path/reactor/kfake",
		"kafka-20253-coordinator-lost/baseline/kfake", "kafka-20253-coordinator-lost/reactor/kfake",
		"p4-publish-before-effects/reactor/kfake",
		"kafka-20854-fetch-ping-pong/baseline/kfake", "kafka-20854-fetch-ping-pong/reactor/kfake",
		"kafka-20397-error-wakes-poll/reactor/kafka",
		"kafka-19357-close-no-coordinator/reactor/kfake",
		"kafka-21031-heartbeat-in-flight/reactor/kfake",
		"unknown-item/reactor/kfake",
	}
	if !slices.Equal(order, want) {
		t.Errorf("row order\n got %q\nwant %q", order, want)
	}
	if rep.Date.IsZero() {
		t.Error("date not set")
	}
}

func TestBuildUncoveredItem(t *testing.T) {
	cat := parseCatalogue(t, `{"items":[
		{"id":"A","kind":"property","title":"A MUST hold.","source":"s","shape":"structural"},
		{"id":"B","kind":"property","title":"B MUST hold.","source":"s","shape":"structural"}]}`)
	rep := Build(cat, []Row{{ID: "a", Covers: []string{"A"}, Subject: "reactor", Target: "kfake", Verdict: VerdictPass}})
	if rep.Items[0].Status != "pass" || rep.Items[1].Status != StatusUncovered || rep.Items[1].Cells[0].Status != StatusUncovered {
		t.Errorf("items %+v", rep.Items)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| B | property | structural | uncovered | B MUST hold. |") {
		t.Errorf("markdown does not show B uncovered:\n%s", md.String())
	}
	// A row covering nothing is reported, not dropped.
	rep = Build(cat, []Row{{ID: "x", Verdict: VerdictPass}})
	if len(rep.Uncatalogued) != 1 || len(rep.Warnings) != 1 {
		t.Errorf("uncatalogued %v warnings %v", rep.Uncatalogued, rep.Warnings)
	}
}

func TestMarkdownGolden(t *testing.T) {
	rep := BuildRun(testCatalogue(t), parseFixture(t))
	var got bytes.Buffer
	if err := WriteMarkdown(&got, rep); err != nil {
		t.Fatal(err)
	}
	golden := "testdata/conformance.golden.md"
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("WriteMarkdown differs from %s (rerun with -update and review the diff):\n%s", golden, got.String())
	}
	// Same input, same bytes.
	var again bytes.Buffer
	_ = WriteMarkdown(&again, BuildRun(testCatalogue(t), parseFixture(t)))
	if !bytes.Equal(got.Bytes(), again.Bytes()) {
		t.Error("WriteMarkdown is not deterministic")
	}
	if !strings.Contains(got.String(), "[unknown-item](conformance.html#spec-unknown-item)") {
		t.Error("spec lines do not link to the HTML report")
	}
}

func TestWriteJSON(t *testing.T) {
	cat := testCatalogue(t)
	rep := BuildRun(cat, parseFixture(t))
	var buf bytes.Buffer
	if err := WriteJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	var s struct {
		Version int `json:"version"`
		Totals  struct {
			Specs     int            `json:"specs"`
			ByVerdict map[string]int `json:"by_verdict"`
		} `json:"totals"`
		Items []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
			Cells  []struct {
				Subject, Target, Status string
				Specs                   []string
			} `json:"cells"`
		} `json:"items"`
		Unknown []struct{ ID string } `json:"unknown_items"`
		Rows    []struct {
			ID              string            `json:"id"`
			DurationSeconds float64           `json:"duration_seconds"`
			Figures         []json.RawMessage `json:"figures"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(buf.Bytes(), &s); err != nil {
		t.Fatalf("summary.json does not decode: %v", err)
	}
	if s.Version != 2 || s.Totals.Specs != 11 || s.Totals.ByVerdict["panicked"] != 1 || len(s.Items) != len(cat.Items) || len(s.Rows) != 11 {
		t.Errorf("summary %+v", s)
	}
	if s.Items[0].ID != "E2E-1" || s.Items[0].Status != "pass" || s.Items[0].Cells[0].Specs[0] != "happy-path" {
		t.Errorf("first item %+v", s.Items[0])
	}
	if len(s.Unknown) != 1 || s.Unknown[0].ID != "KAFKA-99999" {
		t.Errorf("unknown %+v", s.Unknown)
	}
	compact := func(raw json.RawMessage) string {
		var b bytes.Buffer
		_ = json.Compact(&b, raw)
		return b.String()
	}
	if got := compact(s.Rows[1].Figures[1]); got != `{"name":"close","value":0.042,"unit":"s","bound":"<= 1 s"}` {
		t.Errorf("figure JSON %s", got)
	}
	if got := compact(s.Rows[1].Figures[2]); got != `{"name":"note","text":"leave heartbeat observed | epoch -1"}` {
		t.Errorf("text figure JSON %s", got)
	}
}

func TestFigureString(t *testing.T) {
	for _, tt := range []struct {
		f    Figure
		want string
	}{
		{Figure{Value: 0.9, Unit: "req/s", Bound: "<= 1 req/s"}, "0.9 req/s (<= 1 req/s)"},
		{Figure{Value: 1000000}, "1000000"},
		{Figure{Value: 3, Unit: "records"}, "3 records"},
		{Figure{Value: 2e20, Unit: "B"}, "2e+20 B"},
		{Figure{Value: -0.5, Bound: "> -1"}, "-0.5 (> -1)"},
	} {
		if got := tt.f.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.f, got, tt.want)
		}
	}
}

// Check: the reference must pass every item, and every control spec covering
// a regression must fail; a control spec that passes is named.
func TestCheckExpectations(t *testing.T) {
	cat := parseCatalogue(t, `{"items":[
		{"id":"P1","kind":"property","title":"It MUST hold.","source":"s","shape":"structural"},
		{"id":"KAFKA-1","kind":"regression","title":"It MUST not spin.","source":"KAFKA-1","shape":"busy-loop"}]}`)
	rows := []Row{
		{ID: "p", Covers: []string{"P1"}, Subject: "reactor", Target: "kfake", Verdict: VerdictPass},
		{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "reactor", Target: "kfake", Verdict: VerdictPass},
		{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "baseline", Target: "kfake", Verdict: VerdictFail, Signals: []string{"steps.w"}, FailedKeys: []string{"steps.w"}},
	}
	if ex := Build(cat, rows).Check("reactor", "baseline"); len(ex.Problems) != 0 {
		t.Fatalf("problems %v, want none", ex.Problems)
	}
	rows[2].Verdict = VerdictPass // the control no longer shows the shape
	ex := Build(cat, rows).Check("reactor", "baseline")
	if len(ex.Problems) != 1 || !strings.Contains(ex.Problems[0], "spec r pass on the control subject") {
		t.Fatalf("problems %v, want one naming spec r", ex.Problems)
	}
	rows[1].Verdict = VerdictFail // the reference fails the regression
	ex = Build(cat, rows).Check("reactor", "baseline")
	if !slices.ContainsFunc(ex.Problems, func(p string) bool { return strings.Contains(p, "KAFKA-1 on reactor/kfake: fail") }) {
		t.Fatalf("problems %v, want the reference failure", ex.Problems)
	}
}

// A contract item (CONTRACT-*) must pass on the reference only: the control
// may pass or fail it, and the check lists no problem either way.
func TestCheckContractItemReferenceOnly(t *testing.T) {
	cat := parseCatalogue(t, `{"items":[
		{"id":"CONTRACT-1","kind":"contract","title":"It MUST run the callbacks.","source":"javadoc","shape":"contract"}]}`)
	for _, control := range []Verdict{VerdictPass, VerdictFail} {
		rows := []Row{
			{ID: "c", Covers: []string{"CONTRACT-1"}, Subject: "reactor", Target: "kfake", Verdict: VerdictPass},
			{ID: "c", Covers: []string{"CONTRACT-1"}, Subject: "baseline", Target: "kfake", Verdict: control},
		}
		ex := Build(cat, rows).Check("reactor", "baseline")
		if len(ex.Problems) != 0 || len(ex.Regressions) != 0 {
			t.Fatalf("control %s: problems %v, regressions %v; want none", control, ex.Problems, ex.Regressions)
		}
	}
	rows := []Row{{ID: "c", Covers: []string{"CONTRACT-1"}, Subject: "reactor", Target: "kfake", Verdict: VerdictFail}}
	if ex := Build(cat, rows).Check("reactor", "baseline"); !slices.ContainsFunc(ex.Problems, func(p string) bool {
		return strings.Contains(p, "CONTRACT-1 on reactor/kfake: fail")
	}) {
		t.Fatalf("problems %v, want the reference failure of CONTRACT-1", ex.Problems)
	}
}
