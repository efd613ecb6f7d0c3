package reports

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/kreactor/kreactor/catalogue"
)

// runFixture is a trimmed real run of `make conformance` (regressions and e2e suites, both
// subjects on kfake): provenance entries, series entries, real failures. Its absolute paths
// were rewritten to /src/kreactor, which does not exist here, so every relative path in the
// output must come from the provenance's suite directory.
var runFixture = []string{"testdata/run/ginkgo-reactor-kfake-run1.json", "testdata/run/ginkgo-baseline-kfake-run1.json"}

func realRunReport(t *testing.T) Report {
	t.Helper()
	cat, err := catalogue.Load()
	if err != nil {
		t.Fatal(err)
	}
	return checkedRun(t, cat, runFixture)
}

// checkedRun is the report of cat over the run files paths, with the
// expectation check of reactor and baseline.
func checkedRun(t *testing.T, cat catalogue.Catalogue, paths []string) Report {
	t.Helper()
	run, err := ParseFiles(paths, Options{})
	if err != nil {
		t.Fatalf("ParseFiles: %v", err)
	}
	rep := BuildRun(cat, run)
	ex := rep.Check("reactor", "baseline")
	rep.Expect = &ex
	return rep
}

func TestRealRun(t *testing.T) {
	rep := realRunReport(t)
	if len(rep.Files) != 2 || rep.Files[0].Provenance == nil || rep.Files[0].Provenance.Subject != "reactor" || rep.Files[1].Provenance.Subject != "baseline" {
		t.Fatalf("files %+v", rep.Files)
	}
	p := rep.Files[0].Provenance
	if p.Commit == "" || p.Go == "" || p.Cores < 1 || p.Run != 1 || p.Runs != 1 || p.Target != "kfake" {
		t.Errorf("provenance %+v", p)
	}
	s, ok := rep.Spec("kafka-20253-coordinator-lost")
	if !ok || len(s.Cells) != 2 || s.Cells[0].Subject != "reactor" || s.Cells[1].Subject != "baseline" {
		t.Fatalf("spec %+v", s)
	}
	if s.SuiteDir != "specs/regressions" || !strings.HasPrefix(s.SpecLocation, "specs/regressions/kafka_20253_test.go:") {
		t.Errorf("suite dir %q, location %q: want module-relative", s.SuiteDir, s.SpecLocation)
	}
	want := "KREACTOR_SUBJECT=baseline KREACTOR_TARGET=kfake go tool ginkgo --label-filter='id:kafka-20253-coordinator-lost' ./specs/regressions"
	if got := s.Reproduce(s.Cells[1]); got != want {
		t.Errorf("reproduce\n got %s\nwant %s", got, want)
	}
	series := s.Cells[0].Runs[0].Series
	if series == nil || series.Buckets < 20 || len(series.Requests) == 0 || len(series.Consumers) != 1 || len(series.Faults) != 1 {
		t.Fatalf("series %+v", series)
	}
	if series.Faults[0].Kind != "coordinator-unavailable" || series.Faults[0].ToMS <= series.Faults[0].FromMS {
		t.Errorf("fault window %+v", series.Faults[0])
	}
	var steps [2]int64
	for i, c := range s.Cells {
		for _, n := range c.Runs[0].Series.Consumers[0].Steps {
			steps[i] += n
		}
	}
	if steps[0] == 0 || steps[1] < 10*steps[0] {
		t.Errorf("loop steps over the spec: reactor %d, baseline %d: the fixture should show the baseline spinning", steps[0], steps[1])
	}
	plots := rep.Plots(s)
	var kinds []string
	for _, p := range plots {
		kinds = append(kinds, p.Kind)
	}
	if !slices.Equal(kinds, []string{PlotSteps, PlotRequests, PlotRequests, PlotDurations}) {
		t.Errorf("plot kinds %v", kinds)
	}
	// No absolute local path anywhere, in any format.
	for name, out := range renderAll(t, rep) {
		if strings.Contains(out, "/src/kreactor") || strings.Contains(out, "/work/") {
			i := max(strings.Index(out, "/src/kreactor"), strings.Index(out, "/work/"))
			t.Errorf("%s holds an absolute path: %q", name, out[max(0, i-80):min(len(out), i+80)])
		}
	}
}

func renderAll(t *testing.T, rep Report) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, w := range map[string]func(*bytes.Buffer) error{
		"html": func(b *bytes.Buffer) error { return WriteHTML(b, rep) },
		"md":   func(b *bytes.Buffer) error { return WriteMarkdown(b, rep) },
		"json": func(b *bytes.Buffer) error { return WriteJSON(b, rep) },
		"jira": func(b *bytes.Buffer) error { return WriteJira(b, rep) },
	} {
		var b bytes.Buffer
		if err := w(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = b.String()
	}
	return out
}

func TestHTMLReport(t *testing.T) {
	rep := realRunReport(t)
	out := renderAll(t, rep)
	html := out["html"]
	for _, want := range []string{
		`<main data-plots="` + itoa(rep.PlotCount()) + `">`,
		`href="` + KIPURL + `"`,
		`<a href="https://issues.apache.org/jira/browse/KAFKA-20253">KAFKA-20253</a>`,
		`id="spec-kafka-20253-coordinator-lost"`,
		`--label-filter=&#39;id:kafka-20253-coordinator-lost&#39; ./specs/regressions`,
		`id="glossary-loop-steps"`,
		`<a href="#glossary-loop-steps"`,
		`class="kreactor-plot" data-kind="time"`,
		`data-kind="box"`,
		"MUST",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if strings.Contains(html, "<script") || regexp.MustCompile(`(src|href)="(https?:)?//[^"]*\.(js|css|woff2?|png)"`).MatchString(html) {
		t.Error("HTML loads a script or an external resource")
	}
	if n := strings.Count(html, `class="kreactor-plot"`); n != rep.PlotCount() {
		t.Errorf("%d SVG plots, model says %d", n, rep.PlotCount())
	}
	// The headline counts the reference subject only; the baseline's failures are the
	// negative control, reported apart.
	md := out["md"]
	if !strings.Contains(md, "- **reactor / kfake**: ") || !strings.Contains(md, "regression spec runs fail, as they must") {
		t.Errorf("markdown headline:\n%s", md[:min(len(md), 1500)])
	}
	if strings.Contains(md, "Catalogue items:") {
		t.Error("markdown still mixes subjects in one item count")
	}
	var js struct {
		Version int       `json:"version"`
		Plots   int       `json:"plots"`
		Files   []RunFile `json:"files"`
	}
	if err := json.Unmarshal([]byte(out["json"]), &js); err != nil || js.Version != 2 || js.Plots != rep.PlotCount() || len(js.Files) != 2 || js.Files[0].Provenance == nil {
		t.Errorf("summary.json: %v %+v", err, js)
	}
	if !strings.Contains(out["jira"], "h3. Negative control") || !strings.Contains(out["jira"], "[KAFKA-20253|https://issues.apache.org/jira/browse/KAFKA-20253]") {
		t.Errorf("jira:\n%s", out["jira"])
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// Spec text, messages, figure names and texts, bounds and catalogue text with <script>, &,
// | and newlines render as text in HTML, Markdown and Jira markup.
func TestEscaping(t *testing.T) {
	const evil = "a <script>alert(1)</script> & b | c\nd [x|http://e] {code} *bold* -strike- !img.png!"
	cat := parseCatalogue(t, `{"items":[{"id":"KAFKA-1","kind":"regression","title":"It MUST <b>not</b> spin & stop | now.","source":"KAFKA-1","shape":"busy-loop"}]}`)
	rows := []Row{
		{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "reactor", Target: "kfake", Verdict: VerdictPass, Text: evil, Run: 1,
			Figures: []NamedFigure{{Name: "steps|" + evil, Figure: Figure{Value: 3, Unit: "<u>", Bound: "<= 3 & | \n"}}, {Name: "note", Text: evil, IsText: true}}},
		{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "baseline", Target: "kfake", Verdict: VerdictFail, Text: evil, Run: 1, Message: evil, Location: "x_test.go:1"},
	}
	rep := Build(cat, rows)
	ex := rep.Check("reactor", "baseline")
	ex.Problems = append(ex.Problems, evil)
	rep.Expect = &ex
	rep.Warnings = []string{evil}
	out := renderAll(t, rep)

	if strings.Contains(out["html"], "<script>") || strings.Contains(out["html"], "<b>not</b>") || strings.Contains(out["html"], "<u>") {
		t.Error("HTML holds raw markup from the input")
	}
	if !strings.Contains(out["html"], "&lt;script&gt;alert(1)&lt;/script&gt; &amp; b | c") {
		t.Error("HTML does not show the text escaped")
	}
	for _, line := range strings.Split(out["md"], "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		// Every table row is one line with escaped pipes: the row keeps its cell count.
		if strings.Contains(line, "alert(1)") && !strings.Contains(line, `b \| c d`) {
			t.Errorf("markdown row not escaped: %s", line)
		}
	}
	jira := out["jira"]
	for _, bad := range []string{"[x|http", "{code}", "*bold*", " -strike-", "!img.png!", "b | c"} {
		if strings.Contains(jira, bad) {
			t.Errorf("jira markup holds unescaped %q:\n%s", bad, jira)
		}
	}
	for _, good := range []string{`\[x\|http://e\]`, `\{code\}`, `\*bold\*`, `\-strike\-`, `\!img.png\!`, "&amp; b"} {
		if !strings.Contains(jira, good) {
			t.Errorf("jira markup lacks %q:\n%s", good, jira)
		}
	}
	if strings.Contains(jira, "alert(1)</script> & b") {
		t.Error("jira: & not escaped")
	}
}

func TestJiraText(t *testing.T) {
	for in, want := range map[string]string{
		"kafka-20253-coordinator-lost": "kafka-20253-coordinator-lost",
		"find_coordinator_rate":        "find_coordinator_rate",
		"a - b":                        `a \- b`,
		"<= 3 (x+1)":                   "<= 3 (x+1)",
		"a + b":                        `a \+ b`,
		"line\nnext | x":               `line next \| x`,
		`C:\dir`:                       "C:&#92;dir",
		"why??":                        `why\?\?`,
	} {
		if got := jiraText(in); got != want {
			t.Errorf("jiraText(%q) = %q, want %q", in, got, want)
		}
	}
}

// Run files of different code are separated: the newest is kept, the other listed as not
// merged (or refused with StrictProvenance); repeats of one code merge and show spread.
func TestProvenanceAndRepeats(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(runFixture[0])
	if err != nil {
		t.Fatal(err)
	}
	commit := regexp.MustCompile(`\\"commit\\":\\"[0-9a-f]+\\"`)
	run := regexp.MustCompile(`\\"run\\":1,\\"runs\\":1`)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := write("stale.json", commit.ReplaceAll(data, []byte(`\"commit\":\"0000000000000000000000000000000000000000\"`)))
	// Make the stale file older than the fixture (suite end times).
	stale = write("stale.json", bytes.ReplaceAll(mustRead(t, stale), []byte(`"EndTime":"2026`), []byte(`"EndTime":"2025`)))
	got, err := ParseFiles([]string{runFixture[0], stale}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var excluded []string
	for _, f := range got.Files {
		if f.Excluded != "" {
			excluded = append(excluded, f.Source)
		}
	}
	if len(excluded) != 1 || !strings.HasSuffix(excluded[0], "stale.json") || len(got.Rows) == 0 {
		t.Fatalf("excluded %v, rows %d", excluded, len(got.Rows))
	}
	for _, r := range got.Rows {
		if strings.HasSuffix(r.Source, "stale.json") {
			t.Fatal("rows of the stale file were merged")
		}
	}
	if !slices.ContainsFunc(got.Warnings, func(w string) bool { return strings.Contains(w, "stale.json: not merged") }) {
		t.Errorf("warnings %v", got.Warnings)
	}
	if _, err := ParseFiles([]string{runFixture[0], stale}, Options{StrictProvenance: true}); err == nil || !strings.Contains(err.Error(), "different code") {
		t.Errorf("strict: %v", err)
	}

	// Run 2 of 2 of the same code merges with run 1 (relabelled 1 of 2).
	r1 := write("run1.json", run.ReplaceAll(data, []byte(`\"run\":1,\"runs\":2`)))
	r2 := write("run2.json", bytes.ReplaceAll(run.ReplaceAll(data, []byte(`\"run\":2,\"runs\":2`)), []byte(`"Value":3,`), []byte(`"Value":5,`)))
	got, err = ParseFiles([]string{r1, r2}, Options{})
	if err != nil {
		t.Fatalf("repeats: %v", err)
	}
	cat, _ := catalogue.Load()
	rep := BuildRun(cat, got)
	s, ok := rep.Spec("kafka-20253-coordinator-lost")
	if !ok || len(s.Cells) != 1 || len(s.Cells[0].Runs) != 2 {
		t.Fatalf("spec over repeats %+v", s)
	}
	for _, f := range s.Cells[0].Figures {
		if !f.IsText && len(f.Values) != 2 {
			t.Errorf("figure %s has %d values, want 2", f.Name, len(f.Values))
		}
	}
	// Same file twice as two repeats of one run index is a duplicate.
	if _, err := ParseFiles([]string{r1, r1}, Options{}); err == nil || !strings.Contains(err.Error(), "run 1") {
		t.Errorf("duplicate repeat: %v", err)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFigureStats(t *testing.T) {
	rows := []Row{
		{Run: 1, Figures: []NamedFigure{{Name: "steps", Figure: Figure{Value: 56001, Unit: "steps", Bound: "<= 9"}}}},
		{Run: 2, Figures: []NamedFigure{{Name: "steps", Figure: Figure{Value: 120525, Unit: "steps", Bound: "<= 9"}}}},
		{Run: 3, Figures: []NamedFigure{{Name: "steps", Figure: Figure{Value: 47015, Unit: "steps", Bound: "<= 10"}}}},
		{Run: 4, Figures: []NamedFigure{{Name: "steps", Figure: Figure{Value: 216987, Unit: "steps", Bound: "<= 9"}}}},
	}
	fs := figureStats(rows)
	if len(fs) != 1 || fs[0].Min != 47015 || fs[0].Max != 216987 || fs[0].Median != (56001+120525)/2.0 || !slices.Equal(fs[0].Bounds, []string{"<= 9", "<= 10"}) {
		t.Fatalf("%+v", fs)
	}
	if got := fs[0].Spread(); got != "88263 (47015–216987, 4 runs)" {
		t.Errorf("spread %q", got)
	}
	two := figureStats([]Row{{Figures: []NamedFigure{{Name: "r", Figure: Figure{Value: 27.302}}}}, {Figures: []NamedFigure{{Name: "r", Figure: Figure{Value: 27.322}}}}})
	if got := two[0].Spread(); got != "27.312 (27.302–27.322, 2 runs)" {
		t.Errorf("spread of two %q", got)
	}
}

func TestSeriesValidate(t *testing.T) {
	good := Series{Version: SeriesVersion, BucketMS: 100, Buckets: 2, Requests: []KeyCounts{{Key: "Fetch", Counts: []int64{1, 2}}}}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]Series{
		"version":  {Version: 99, BucketMS: 100},
		"width":    {Version: SeriesVersion, BucketMS: 0},
		"length":   {Version: SeriesVersion, BucketMS: 100, Buckets: 3, Requests: good.Requests},
		"too long": {Version: SeriesVersion, BucketMS: 100, Buckets: MaxBuckets + 1},
	} {
		if err := s.Validate(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// A spec whose series entry has an unknown version fails the parse, naming it.
	sr := withEntry(it("x", types.SpecStatePassed, "id:x", "covers:P1"), EntrySeries, Series{Version: 99, BucketMS: 100})
	if _, err := Decode(bytes.NewReader(synth(t, sr)), Options{Source: "v.json"}); err == nil || !strings.Contains(err.Error(), "series version 99") {
		t.Errorf("decode: %v", err)
	}
}

func TestKillMatrixAndPerf(t *testing.T) {
	dir := t.TempDir()
	km := filepath.Join(dir, "km.json")
	os.WriteFile(km, []byte(`{"version":1,"specs":["a","b"],"mutants":[{"name":"m1","shape":"busy-loop","verdicts":{"a":"pass","b":"fail"}},{"name":"m2","shape":"busy-loop","verdicts":{"a":"pass"}}]}`), 0o644)
	k, err := LoadKillMatrix(km)
	if err != nil {
		t.Fatal(err)
	}
	if got := k.KilledBy(k.Mutants[0]); !slices.Equal(got, []string{"b"}) || len(k.KilledBy(k.Mutants[1])) != 0 {
		t.Errorf("killed by %v", got)
	}
	os.WriteFile(km, []byte(`{"version":1,"specs":["a"],"mutants":[{"name":"m1","verdicts":{"zz":"fail"}}]}`), 0o644)
	if _, err := LoadKillMatrix(km); err == nil || !strings.Contains(err.Error(), `spec "zz"`) {
		t.Errorf("bad matrix: %v", err)
	}
	rep := realRunReport(t)
	rep.Mutants = k
	rep.ErrorClasses = []ErrorClass{{API: "OffsetCommit", Error: "COORDINATOR_NOT_AVAILABLE", Class: "find coordinator", Note: "KAFKA-20253"}}
	html := renderAll(t, rep)["html"]
	for _, want := range []string{`id="mutants"`, `<span class="bad">survived</span>`, `id="errors"`, "COORDINATOR_NOT_AVAILABLE"} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

// The kill matrix's own check: a survivor, a seed-shape mutant killed only by
// another shape's spec, and a spec failing with no mutant are problems; the
// HTML shows the control row and the "by its shape" column.
func TestKillMatrixProblems(t *testing.T) {
	k := KillMatrix{Version: KillMatrixVersion, Specs: []string{"loop", "close"},
		SpecShapes: map[string][]catalogue.Shape{"loop": {catalogue.ShapeBusyLoop}, "close": {catalogue.ShapeLifecycle}},
		Control:    map[string]Verdict{"loop": VerdictPass, "close": VerdictPass},
		Mutants: []Mutant{
			{Name: "spin", Shape: catalogue.ShapeBusyLoop, Verdicts: map[string]Verdict{"loop": VerdictFail, "close": VerdictPass}},
			{Name: "no-leave", Shape: catalogue.ShapeLifecycle, Verdicts: map[string]Verdict{"loop": VerdictFail, "close": VerdictPass}},
			{Name: "silent", Shape: catalogue.ShapeEndToEnd, Verdicts: map[string]Verdict{"loop": VerdictPass, "close": VerdictPass}},
		}}
	if got := k.KilledByShape(k.Mutants[0]); !slices.Equal(got, []string{"loop"}) {
		t.Errorf("spin killed by its shape: %v", got)
	}
	probs := k.Problems()
	if len(probs) != 2 || !strings.Contains(probs[0], "no-leave (lifecycle) is killed only by specs of other shapes") || !strings.Contains(probs[1], "silent (end-to-end) survived") {
		t.Errorf("problems %q", probs)
	}
	k.Control["close"] = VerdictFail
	if probs := k.Problems(); len(probs) != 3 || !strings.Contains(probs[0], "spec close is fail without a mutant") {
		t.Errorf("problems with a failing control %q", probs)
	}
	rep := realRunReport(t)
	rep.Mutants = &k
	html := renderAll(t, rep)["html"]
	for _, want := range []string{"(no mutant)", "By its shape", "killed only by specs of other shapes"} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

func TestReleaseMatrix(t *testing.T) {
	cat := parseCatalogue(t, `{"items":[{"id":"KAFKA-1","kind":"regression","title":"It MUST not spin.","source":"KAFKA-1","shape":"busy-loop"}]}`)
	cpu := func(v float64) []NamedFigure { return []NamedFigure{{Name: "cpu.w", Figure: Figure{Value: v}}} }
	rows := []Row{
		{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "java", Variant: "4.3.1", Target: "kfake", Verdict: VerdictFail, Run: 1,
			Signals: []string{"steps.w", "cpu.w"}, FailedKeys: []string{"cpu.w"}, Figures: cpu(3000)},
		{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "java", Variant: "4.0.2", Target: "kfake", Verdict: VerdictFail, Run: 1,
			Signals: []string{"steps.w", "cpu.w"}, FailedKeys: []string{"delivered"}, Figures: []NamedFigure{{Name: "steps.w", Text: "n/a for black-box subject", IsText: true}}},
	}
	// One run that held cannot bound the rate; five can (0/5: 95% CI 0-43%).
	for k := 1; k <= 5; k++ {
		rows = append(rows, Row{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "java", Variant: "4.4.0", Target: "kfake", Verdict: VerdictPass, Run: k,
			Signals: []string{"steps.w", "cpu.w"}, Figures: cpu(40)})
	}
	rep := Build(cat, rows)
	m := newReleaseMatrix(rep)
	if m == nil || !slices.Equal(m.Releases, []string{"4.0.2", "4.3.1", "4.4.0"}) {
		t.Fatalf("release matrix %+v", m)
	}
	for i, want := range []Reproduction{NotMeasured, Reproduces, DoesNotReproduce} {
		if got := m.Rows[0].Cells[i].Result; got != want {
			t.Errorf("%s: %s (%s), want %s", m.Releases[i], got, m.Rows[0].Cells[i].Detail, want)
		}
	}
	if md := m.Markdown(); !strings.Contains(md, "| KAFKA-1 | n/a | reproduces 1/1 (21-100%) | does not reproduce 0/5 (0-43%) |") {
		t.Errorf("markdown:\n%s", md)
	}
	if len(m.Problems()) != 0 {
		t.Errorf("problems %v", m.Problems())
	}

	// A driver crash is a harness error: in the matrix and in the check.
	rows = append(rows, Row{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "kgo", Target: "kfake", Verdict: VerdictFail, Run: 1,
		HarnessErrors: []string{"java driver (pid 7) failed during poll: killed"}})
	rows = append(rows, Row{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "reactor", Target: "kfake", Verdict: VerdictPass, Run: 1},
		Row{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "baseline", Target: "kfake", Verdict: VerdictFail, Run: 1, Signals: []string{"cpu.w"}, FailedKeys: []string{"cpu.w"}})
	rep = Build(cat, rows)
	ex := rep.Check("reactor", "baseline")
	if len(ex.Problems) != 1 || !strings.Contains(ex.Problems[0], "harness error") || !strings.Contains(ex.Problems[0], "kgo") {
		t.Fatalf("problems %q: want the kgo harness error only (java's failures are evidence)", ex.Problems)
	}
	rc := ex.Regressions[0]
	if len(rc.Evidence) != 4 || !slices.Contains(rc.Disagrees, "java (4.4.0) / kfake") {
		t.Fatalf("evidence %+v, disagrees %v", rc.Evidence, rc.Disagrees)
	}
	html := renderAll(t, Report{Items: rep.Items, Columns: rep.Columns, Rows: rep.Rows, Expect: &ex})["html"]
	for _, want := range []string{"reproduces on java (4.4.0)?", "disagree", "does not say which released behaviour"} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

func TestControlReason(t *testing.T) {
	cat := parseCatalogue(t, `{"items":[{"id":"KAFKA-1","kind":"regression","title":"It MUST not spin.","source":"KAFKA-1","shape":"busy-loop"}]}`)
	rows := []Row{
		{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "reactor", Target: "kfake", Verdict: VerdictPass, Run: 1},
		{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "baseline", Target: "kfake", Verdict: VerdictFail, Run: 1, Signals: []string{"steps.outage"}, FailedKeys: []string{"steps.outage"}},
	}
	if ex := Build(cat, rows).Check("reactor", "baseline"); len(ex.Problems) != 0 || ex.Regressions[0].Outcomes[0].Reason != ReasonSignal {
		t.Fatalf("%+v", ex)
	}
	rows[1].FailedKeys = []string{"duration.close"}
	ex := Build(cat, rows).Check("reactor", "baseline")
	if len(ex.Problems) != 1 || !strings.Contains(ex.Problems[0], "not the Jira's reason") || ex.Regressions[0].Outcomes[0].Reason != ReasonOther {
		t.Fatalf("%+v", ex)
	}
	rows[1].Verdict, rows[1].FailedKeys = VerdictTimedout, nil
	if ex := Build(cat, rows).Check("reactor", "baseline"); ex.Regressions[0].Outcomes[0].Reason != ReasonOther {
		t.Fatalf("a timeout counted as the signal: %+v", ex)
	}
	rows[1].Signals = nil // a spec that declares no signal: any failure would count, so none does
	if ex := Build(cat, rows).Check("reactor", "baseline"); len(ex.Problems) != 1 || !strings.Contains(ex.Problems[0], "declares no signal") || ex.Regressions[0].Outcomes[0].Reason != ReasonUndeclared {
		t.Fatalf("undeclared: %+v", ex)
	}
	_ = time.Second
}

// A null control (a consumer that never sends) must fail every regression
// spec, on one of the spec's liveness keys; a pass, or a failure elsewhere,
// is a broken expectation, and a null control that ran nothing is one too.
func TestNullControl(t *testing.T) {
	cat := parseCatalogue(t, `{"items":[{"id":"KAFKA-1","kind":"regression","title":"It MUST not spin.","source":"KAFKA-1","shape":"busy-loop"}]}`)
	live := []string{"delivered"}
	rows := []Row{
		{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "reactor", Target: "kfake", Verdict: VerdictPass, Run: 1},
		{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "baseline", Target: "kfake", Verdict: VerdictFail, Run: 1, Signals: []string{"steps.w"}, FailedKeys: []string{"steps.w"}, Liveness: live},
		{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "null", Target: "kfake", Verdict: VerdictFail, Run: 1, Signals: []string{"steps.w"}, FailedKeys: []string{"timeline", "delivered"}, Liveness: live},
	}
	ex := Build(cat, rows).Check("reactor", "baseline", "null")
	if len(ex.Problems) != 0 || len(ex.Regressions[0].Nulls) != 1 || ex.Regressions[0].Nulls[0].Outcomes[0].Reason != ReasonLiveness || ex.Regressions[0].Nulls[0].Status != Status(VerdictFail) {
		t.Fatalf("%+v", ex)
	}
	rows[2].FailedKeys = []string{"timeline"}
	if ex := Build(cat, rows).Check("reactor", "baseline", "null"); len(ex.Problems) != 1 || !strings.Contains(ex.Problems[0], "not on a liveness key") {
		t.Fatalf("null failing elsewhere: %v", ex.Problems)
	}
	rows[2].Verdict, rows[2].FailedKeys = VerdictPass, nil
	if ex := Build(cat, rows).Check("reactor", "baseline", "null"); len(ex.Problems) != 1 || !strings.Contains(ex.Problems[0], "never sends passes it") {
		t.Fatalf("null passing: %v", ex.Problems)
	}
	if ex := Build(cat, rows[:2]).Check("reactor", "baseline", "null"); len(ex.Problems) != 1 || !strings.Contains(ex.Problems[0], `no spec ran on the control subject "null"`) {
		t.Fatalf("null absent: %v", ex.Problems)
	}
	// The null column is in every format's negative control.
	rows[2].Verdict, rows[2].FailedKeys = VerdictFail, []string{"delivered"}
	rep := Build(cat, rows)
	e := rep.Check("reactor", "baseline", "null")
	rep.Expect = &e
	for _, w := range []struct {
		name  string
		write func(io.Writer, Report) error
		want  string
	}{{"html", WriteHTML, "null control</small>"}, {"md", WriteMarkdown, "null (null control) | reason |"}, {"jira", WriteJira, "null (null control)||reason||"}} {
		var b strings.Builder
		if err := w.write(&b, rep); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), w.want) || !strings.Contains(b.String(), "liveness") {
			t.Errorf("%s: no null column (%q) or no liveness reason", w.name, w.want)
		}
	}
}

// With a label filter, items and specs it did not select are not broken expectations.
func TestCheckWithLabelFilter(t *testing.T) {
	cat := parseCatalogue(t, `{"items":[
		{"id":"P1","kind":"property","title":"It MUST hold.","source":"s","shape":"structural"},
		{"id":"KAFKA-1","kind":"regression","title":"It MUST not spin.","source":"KAFKA-1","shape":"busy-loop"},
		{"id":"KAFKA-2","kind":"regression","title":"It MUST not spin.","source":"KAFKA-2","shape":"busy-loop"}]}`)
	rows := []Row{
		{ID: "p", Covers: []string{"P1"}, Subject: "reactor", Target: "kfake", Verdict: VerdictSkipped, Run: 1},
		{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "reactor", Target: "kfake", Verdict: VerdictPass, Run: 1},
		{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "baseline", Target: "kfake", Verdict: VerdictFail, Run: 1, Signals: []string{"s"}, FailedKeys: []string{"s"}},
		{ID: "r2", Covers: []string{"KAFKA-2"}, Subject: "baseline", Target: "kfake", Verdict: VerdictSkipped, Run: 1},
	}
	rep := Build(cat, rows)
	if ex := rep.Check("reactor", "baseline"); len(ex.Problems) == 0 {
		t.Fatal("without a filter, skipped and uncovered items must be problems")
	}
	rep.Suites = []Suite{{LabelFilter: "covers:KAFKA-1"}}
	ex := rep.Check("reactor", "baseline")
	if len(ex.Problems) != 0 || ex.Filter != "covers:KAFKA-1" {
		t.Fatalf("filtered: %q %v", ex.Filter, ex.Problems)
	}
	rows[2].Verdict = VerdictPass // a selected control spec that passes is still a problem
	rep = Build(cat, rows)
	rep.Suites = []Suite{{LabelFilter: "covers:KAFKA-1"}}
	if ex := rep.Check("reactor", "baseline"); len(ex.Problems) != 1 {
		t.Fatalf("filtered, control passes: %v", ex.Problems)
	}
}

// A suite whose specs a label filter skipped entirely has no BeforeSuite, so no provenance:
// its rows take the run index of the file's other suites.
func TestRunIndexFromFile(t *testing.T) {
	prov := Provenance{Version: ProvenanceVersion, Commit: "c", Run: 2, Runs: 2, Subject: "reactor", Target: "kfake", SuiteDir: "specs"}
	before := withEntry(types.SpecReport{LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStatePassed}, EntryProvenance, prov)
	a := types.Report{SuitePath: "/src/specs", SuiteDescription: "a", SpecReports: []types.SpecReport{before, it("x", types.SpecStatePassed, "id:x", "covers:P1")}}
	b := types.Report{SuitePath: "/src/specs/b", SuiteDescription: "b", SpecReports: []types.SpecReport{it("y", types.SpecStateSkipped, "id:y", "covers:P1")}}
	data, err := json.Marshal([]types.Report{a, b})
	if err != nil {
		t.Fatal(err)
	}
	run, err := Decode(bytes.NewReader(data), Options{Source: "r2.json"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range run.Rows {
		if r.Run != 2 {
			t.Errorf("row %s run %d, want 2", r.ID, r.Run)
		}
	}
}

// The rounds' confidence interval for the median ratio: eight rounds give
// the 2nd smallest and 2nd largest at 93% (1 - 2 P(Bin(8, 1/2) <= 1)),
// four the extremes at 87.5%.
func TestPerfRatioInterval(t *testing.T) {
	row := func(s string, v ...float64) PerfRow {
		return PerfRow{Benchmark: "idle", Subject: s, Target: "kfake", Unit: "cpu-ms/min", Values: v}
	}
	tab := &PerfTable{Version: PerfVersion, RatioTo: "kgo", Rows: []PerfRow{
		row("kgo", 100, 100, 100, 100, 100, 100, 100, 100),
		row("reactor", 80, 120, 90, 110, 95, 105, 85, 99),
	}}
	q := tab.Ratio(tab.Rows[1])
	if q.Pairs != 8 || q.Below != 5 || q.CILo != 0.85 || q.CIHi != 1.1 || math.Abs(q.CILevel-0.9297) > 1e-3 {
		t.Fatalf("ratio %+v", q)
	}
	if got, want := q.String(), "0.97 [0.80-1.20]; rounds 0.97, 92% CI 0.85-1.10, below in 5 of 8"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	tab.Rows[0].Values, tab.Rows[1].Values = tab.Rows[0].Values[:4], tab.Rows[1].Values[:4]
	if q := tab.Ratio(tab.Rows[1]); q.CILo != 0.8 || q.CIHi != 1.2 || q.CILevel != 0.875 {
		t.Fatalf("four rounds: %+v", q)
	}
}

func TestPerfRatios(t *testing.T) {
	tab := &PerfTable{Version: PerfVersion, RatioTo: "kgo", Rows: []PerfRow{
		{Benchmark: "consume", Subject: "kgo", Target: "kfake", Unit: "records/s", Values: []float64{100, 200, 150}},
		{Benchmark: "consume", Subject: "reactor", Target: "kfake", Unit: "records/s", Values: []float64{150, 200, 300}},
	}}
	if s := tab.Rows[1].Stats(); s.Min != 150 || s.Median != 200 || s.Max != 300 {
		t.Fatalf("stats %+v", s)
	}
	q := tab.Ratio(tab.Rows[1])
	if !q.OK || q.Median != 200.0/150 || q.Lo != 1 || q.Hi != 2 {
		t.Fatalf("ratio %+v", q)
	}
	if tab.Ratio(tab.Rows[0]).OK {
		t.Fatal("the reference subject has a ratio to itself")
	}
	if q.Pairs != 3 || q.Below != 0 || q.Paired != 1.5 || q.CILevel != 0 || q.String() != "1.33 [1.00-2.00]; rounds 1.50, below in 0 of 3" {
		t.Fatalf("paired figures %+v (%s): three rounds allow no 80%% interval", q, q)
	}
	rep := realRunReport(t)
	rep.Perf = tab
	html := renderAll(t, rep)["html"]
	for _, want := range []string{`id="perf"`, "Ratio to kgo", "1.33 [1.00-2.00]"} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if strings.Contains(html, "A/A control") || tab.TwinRatio(tab.Rows[1]).OK {
		t.Error("a table without a twin shows a ratio to one")
	}

	// With an A/A control (Twin), every row is read against it too.
	tab.Twin = "kgo-twin"
	tab.Rows = append(tab.Rows, PerfRow{Benchmark: "consume", Subject: "kgo-twin", Target: "kfake", Unit: "records/s", Values: []float64{100, 100, 100}})
	if q := tab.TwinRatio(tab.Rows[1]); !q.OK || q.Median != 2 || q.Lo != 1.5 || q.Hi != 3 {
		t.Fatalf("ratio to the twin %+v", q)
	}
	if q := tab.Ratio(tab.Rows[2]); !q.OK || q.Median != 100.0/150 {
		t.Fatalf("the twin's ratio to kgo %+v", q)
	}
	html = renderAll(t, rep)["html"]
	for _, want := range []string{"Ratio to kgo-twin", "A/A control", "2.00 [1.50-3.00]"} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML with a twin lacks %q", want)
		}
	}
}
