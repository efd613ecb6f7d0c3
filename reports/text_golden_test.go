package reports

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"
	"time"
)

// goldenReports are the reports the text golden files render: every section
// WriteMarkdown and WriteJira can write (expectations with null and evidence
// columns, broken expectations, agreement, release matrix and findings,
// unknown and uncatalogued specs, warnings) and the escaping of text from
// the run, all from the fixtures in testdata or rows built here, never from
// the real catalogue.
func goldenReports(t *testing.T) []struct {
	name string
	rep  Report
} {
	t.Helper()
	cat := testCatalogue(t)
	fixture := BuildRun(cat, parseFixture(t))

	checked := checkedRun(t, cat, runFixture)

	const evil = "a <script>alert(1)</script> & b | c\nd [x|http://e] {code} *bold* -strike- !img.png! _u_ +p+ ^s^ ~t~ ?q? \\ #h"
	evilCat := parseCatalogue(t, `{"items":[{"id":"KAFKA-1","kind":"regression","title":"It MUST <b>not</b> spin & stop | now.","source":"KAFKA-1","shape":"busy-loop"},
		{"id":"C-1","kind":"contract","title":"It MUST work.","source":"x","shape":"lifecycle"}]}`)
	cpu := func(v float64) []NamedFigure { return []NamedFigure{{Name: "cpu.w", Figure: Figure{Value: v}}} }
	live := []string{"delivered"}
	rows := []Row{
		{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "reactor", Target: "kfake", Verdict: VerdictPass, Text: evil, Run: 1,
			Figures: []NamedFigure{{Name: "steps|" + evil, Figure: Figure{Value: 3, Unit: "<u>", Bound: "<= 3 & | \n"}}, {Name: "note", Text: evil, IsText: true}}},
		{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "baseline", Target: "kfake", Verdict: VerdictFail, Text: evil, Run: 1, Message: evil, Location: "x_test.go:1",
			Signals: []string{"steps.w", "cpu.w"}, FailedKeys: []string{"cpu.w"}, Liveness: live},
		{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "baseline", Target: "kfake", Verdict: VerdictPass, Run: 2, Signals: []string{"steps.w"}},
		{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "null", Target: "kfake", Verdict: VerdictFail, Run: 1, Signals: []string{"steps.w"}, FailedKeys: []string{"timeline", "delivered"}, Liveness: live},
		{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "java", Variant: "4.3.1", Target: "kfake", Verdict: VerdictFail, Run: 1,
			Signals: []string{"steps.w", "cpu.w"}, FailedKeys: []string{"cpu.w"}, Figures: cpu(3000)},
		{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "java", Variant: "4.0.2", Target: "kfake", Verdict: VerdictFail, Run: 1,
			Signals: []string{"steps.w", "cpu.w"}, FailedKeys: []string{"delivered"}, Figures: []NamedFigure{{Name: "steps.w", Text: "n/a for black-box subject", IsText: true}}},
		{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "kgo", Target: "kfake", Verdict: VerdictFail, Run: 1,
			HarnessErrors: []string{"java driver (pid 7) failed during poll: killed"}},
		{ID: "b", Covers: []string{"C-1"}, Subject: "java", Target: "kfake", Variant: "4.4.0", Verdict: VerdictFail, Run: 1, FailedKeys: []string{"delivered"}, Message: "0 of 300 records"},
		{ID: "b", Covers: []string{"C-1"}, Subject: "java", Target: "kafka", Variant: "4.4.0", Verdict: VerdictPass, Run: 1},
		{ID: "b", Covers: []string{"C-1"}, Subject: "reactor", Target: "kfake", Verdict: VerdictPass, Run: 1},
		{ID: "u", Covers: []string{"KAFKA-99999"}, Subject: "reactor", Target: "kfake", Verdict: VerdictPending, Run: 1},
		{ID: "x", Subject: "reactor", Target: "kfake", Verdict: VerdictPass, Run: 1, SpecLocation: "x_test.go:9"},
	}
	for k := 1; k <= 5; k++ {
		rows = append(rows, Row{ID: "r", Covers: []string{"KAFKA-1"}, Subject: "java", Variant: "4.4.0", Target: "kfake", Verdict: VerdictPass, Run: k,
			Signals: []string{"steps.w", "cpu.w"}, Figures: cpu(40)})
	}
	everything := Build(evilCat, rows)
	everything.Date = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	eex := everything.Check("reactor", "baseline", "null")
	eex.Problems = append(eex.Problems, evil)
	eex.Filter = "covers:KAFKA-1"
	everything.Expect = &eex
	everything.Warnings = append(everything.Warnings, evil)
	everything.Releases = newReleaseMatrix(everything)
	everything.Files = []RunFile{{Source: "run|1.json", Excluded: "a different commit"}, {Source: "run2.json"}}

	empty := Build(evilCat, nil)
	eempty := empty.Check("reactor", "baseline")
	empty.Expect = &eempty

	return []struct {
		name string
		rep  Report
	}{{"fixture", fixture}, {"checked run", checked}, {"everything", everything}, {"empty", empty}, {"zero", Report{}}}
}

// The Markdown and Jira outputs of goldenReports, byte for byte. Rewrite
// with `go test ./reports -run TestTextGolden -update` and review the diff.
func TestTextGolden(t *testing.T) {
	for _, f := range []struct {
		file  string
		write func(io.Writer, Report) error
	}{{"testdata/golden.md", WriteMarkdown}, {"testdata/golden.jira.txt", WriteJira}} {
		var got bytes.Buffer
		for _, g := range goldenReports(t) {
			fmt.Fprintf(&got, "<<<<<<<< %s >>>>>>>>\n", g.name)
			if err := f.write(&got, g.rep); err != nil {
				t.Fatalf("%s %s: %v", f.file, g.name, err)
			}
		}
		if *update {
			if err := os.WriteFile(f.file, got.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(f.file)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("output differs from %s (rerun with -update and review the diff)", f.file)
		}
	}
}
