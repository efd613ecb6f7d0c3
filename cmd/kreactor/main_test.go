package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reports"
)

func TestMain(m *testing.M) {
	if code, ok := subprocess(); ok {
		os.Exit(code)
	}
	goleak.VerifyTestMain(m)
}

const fixture = "../../reports/testdata/ginkgo.json"

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func TestReportWritesFiles(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCLI("report", "-in", fixture, "-out", out)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "(11 specs from 1 file(s))") || !strings.Contains(stderr, "KAFKA-99999") {
		t.Errorf("stdout %q stderr %q", stdout, stderr)
	}
	md, err := os.ReadFile(filepath.Join(out, "conformance.md"))
	if err != nil || !strings.HasPrefix(string(md), "# kreactor conformance report") {
		t.Errorf("conformance.md: %v %.60q", err, md)
	}
	js, err := os.ReadFile(filepath.Join(out, "summary.json"))
	var v map[string]any
	if err != nil || json.Unmarshal(js, &v) != nil || v["version"] != 2.0 {
		t.Errorf("summary.json: %v %.60q", err, js)
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "conformance.html conformance.jira.txt conformance.md summary.json" {
		t.Errorf("out dir holds %v, want the four reports and no temp file", names)
	}
}

func TestReportMergesFiles(t *testing.T) {
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, bytes.ReplaceAll(data, []byte("target:k"), []byte("target:x-k")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI("report", "-in", fixture+","+other, "-out", dir)
	if code != 0 || !strings.Contains(stdout, "(22 specs from 2 file(s))") {
		t.Errorf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
}

func TestReportBadInputNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(bad, []byte(`[{"SpecReports": [}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{bad, filepath.Join(dir, "absent.json"), fixture + "," + bad} {
		code, _, stderr := runCLI("report", "-in", in, "-out", filepath.Join(dir, "out"))
		last := in[strings.LastIndex(in, ",")+1:]
		if code != 1 || !strings.Contains(stderr, last) || !strings.HasPrefix(stderr, "kreactor report: ") {
			t.Errorf("-in %s: exit %d, stderr %q; want 1 and a message naming %s", in, code, stderr, last)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "conformance.md")); err == nil {
		t.Error("a report was written despite bad input")
	}
}

func TestCommands(t *testing.T) {
	tests := []struct {
		args     []string
		code     int
		inStdout []string
		inStderr []string
	}{
		{args: nil, code: 2, inStderr: []string{"usage: kreactor <command>", "report", "catalogue", "explore"}},
		{args: []string{"help"}, code: 0, inStderr: []string{"usage: kreactor"}},
		{args: []string{"frobnicate"}, code: 2, inStderr: []string{`unknown command "frobnicate"; known commands: report, catalogue, run, check, mutants, bench, explore, broker, proxy, matrix`}},
		{args: []string{"broker", "-brokers", "0"}, code: 2, inStderr: []string{"-brokers 0: want 1..64", "usage: kreactor broker"}},
		{args: []string{"broker", "-topics", "t:3,t:4"}, code: 2, inStderr: []string{`-topics: "t:4": topic "t" given twice (first with 3 partitions)`}},
		{args: []string{"broker", "-topics", "a/b:1"}, code: 2, inStderr: []string{`-topics: "a/b:1": topic name "a/b"`}},
		{args: []string{"broker", "-topics", "..:1"}, code: 2, inStderr: []string{`topic name ".."`}},
		{args: []string{"report", "-nope"}, code: 2, inStderr: []string{"flag provided but not defined: -nope", "usage: kreactor report"}},
		{args: []string{"report", "-h"}, code: 0, inStderr: []string{"-in", "reports/out/ginkgo.json", "-lenient"}},
		{args: []string{"report", "extra"}, code: 2, inStderr: []string{"unexpected arguments: extra"}},
		{args: []string{"catalogue"}, code: 0, inStdout: []string{"ID ", "KAFKA-20253", "busy-loop", "E2E-1", "MUST"}},
		{args: []string{"catalogue", "-format", "markdown"}, code: 0, inStdout: []string{"| ID | Kind |", "| P2 | property | ambiguous-empty-result |"}},
		{args: []string{"catalogue", "-format", "yaml"}, code: 2, inStderr: []string{`unknown -format "yaml"`}},
		{args: []string{"catalogue", "-kind", "regression", "-format", "label-filter"}, code: 0, inStdout: []string{"covers:KAFKA-20253 || ", "covers:KAFKA-21049"}},
		{args: []string{"catalogue", "-kind", "nope"}, code: 2, inStderr: []string{`-kind "nope": no catalogue item is of that kind`}},
		{args: []string{"report", "-in", "../../reports/testdata/run/ginkgo-reactor-kfake-run1.json", "-out", "-", "-format", "json", "-releases", "/nonexist"}, code: 1, inStderr: []string{"-releases /nonexist: open /nonexist"}},
		{args: []string{"report", "-in", "../../reports/testdata/run/ginkgo-reactor-kfake-run1.json", "-out", "-", "-format", "json", "-check", "reactor,nosuch"}, code: 1, inStderr: []string{`-check "reactor,nosuch": subject "nosuch" is unknown to the -in files: no spec ran on it (subjects that ran: reactor)`}},
		{args: []string{"matrix", "-in", "x.json", "-seconds", "-5"}, code: 2, inStderr: []string{"-seconds -5: want a finite number", "usage: kreactor matrix"}},
		{args: []string{"matrix", "-in", "x.json", "-seconds", "NaN"}, code: 2, inStderr: []string{"-seconds NaN: want a finite number"}},
		{args: []string{"matrix", "-in", "x.json", "-seconds", "Inf"}, code: 2, inStderr: []string{"-seconds +Inf: want a finite number"}},
		{args: []string{"report", "-explore", "/nonexistent", "-out", "-"}, code: 1, inStderr: []string{"-explore /nonexistent: stat /nonexistent: no such file or directory"}},
		{args: []string{"plan", "-runs", "100000000"}, code: 2, inStderr: []string{"-runs 100000000: want 1..1000", "usage: kreactor plan"}},
		{args: []string{"plan", "-runs", "0"}, code: 2, inStderr: []string{"-runs 0: want 1..1000"}},
		{args: []string{"tracepath"}, code: 2, inStderr: []string{"at least one trace FILE is required", "usage: kreactor tracepath"}},
		{args: []string{"tracepath", "/nonexistent.trace"}, code: 1, inStderr: []string{"open /nonexistent.trace: no such file or directory"}},
		{args: []string{"tracepath", "main_test.go"}, code: 1, inStderr: []string{"main_test.go: tracepath: not a Go execution trace"}},
		{args: []string{"explore", "-subject", "nosuch"}, code: 2, inStderr: []string{`-subject: subject "nosuch": not runnable by explore`, "usage: kreactor explore"}},
		{args: []string{"explore", "-parallel", "-1"}, code: 2, inStderr: []string{`-parallel -1: must be >= 0`}},
		{args: []string{"explore", "-groups", "nosuch"}, code: 2, inStderr: []string{`unknown group kind "nosuch"`}},
		{args: []string{"explore", "-groups", ","}, code: 2, inStderr: []string{`-groups: groups ",": unknown group kind ""`}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tt.code, stderr)
			}
			for _, s := range tt.inStdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range tt.inStderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
		})
	}
}

// A label filter that matched nothing leaves every row skipped: the report refuses to call
// that a run, naming the filter.
func TestReportNoSpecRan(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../reports/testdata/run/ginkgo-reactor-kfake-run1.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []string{`"State": "passed"`, `"State": "failed"`} {
		data = bytes.ReplaceAll(data, []byte(st), []byte(`"State": "skipped"`))
	}
	data = bytes.ReplaceAll(data, []byte(`"LabelFilter": ""`), []byte(`"LabelFilter": "id:nothing"`))
	in := filepath.Join(dir, "skipped.json")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI("report", "-in", in, "-out", filepath.Join(dir, "out"))
	if code != 1 || !strings.Contains(stderr, `no spec ran: label filter "id:nothing" matched no spec`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestReportJiraToStdout(t *testing.T) {
	code, stdout, stderr := runCLI("report", "-in", "../../reports/testdata/run/ginkgo-reactor-kfake-run1.json,../../reports/testdata/run/ginkgo-baseline-kfake-run1.json",
		"-format", "jira", "-out", "-")
	if code != 0 || !strings.HasPrefix(stdout, "h2. kreactor conformance report") || !strings.Contains(stdout, "||Item||Kind||Shape||reactor / kfake||baseline / kfake||") {
		t.Errorf("exit %d stderr %q stdout:\n%s", code, stderr, stdout)
	}
	if code, _, stderr := runCLI("report", "-in", fixture, "-format", "html,md", "-out", "-"); code != 2 || !strings.Contains(stderr, "exactly one with -out -") {
		t.Errorf("two formats to stdout: exit %d %q", code, stderr)
	}
	if code, _, stderr := runCLI("report", "-in", fixture, "-format", "pdf"); code != 2 || !strings.Contains(stderr, `unknown -format "pdf"`) {
		t.Errorf("pdf: exit %d %q", code, stderr)
	}
}

// The report's error classification is the managers' table, row for row
// (generated from the code, not written twice), and the HTML
// renders it.
func TestReportErrorClassificationFromManagers(t *testing.T) {
	rows, table := errorClassification(), managers.ErrorTable()
	if len(rows) != len(table) || len(rows) < 200 {
		t.Fatalf("%d report rows for %d table rows", len(rows), len(table))
	}
	differs := 0
	for i, r := range rows {
		if r.API == "" || r.Error == "" || r.Class != table[i].ClassName() || r.Note != table[i].Java || r.Differs != table[i].Differs {
			t.Fatalf("row %d %+v does not match the table's %+v", i, r, table[i])
		}
		if r.Differs != "" {
			differs++
		}
	}
	if differs == 0 {
		t.Fatal("no row says it differs from Java 4.4.0")
	}
	out := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := runCLI("report", "-in", fixture, "-out", out); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	html, err := os.ReadFile(filepath.Join(out, "conformance.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<section id="errors">`, "GROUP_AUTHORIZATION_FAILED", "UNKNOWN_MEMBER_ID", "fenced", "Differs"} {
		if !strings.Contains(string(html), want) {
			t.Fatalf("conformance.html lacks %q in its error classification", want)
		}
	}
}

func TestReportFindings(t *testing.T) {
	cell := func(rel string, per ...reports.Reproduction) reports.EvidenceCheck {
		tl := reports.Tally(per)
		tl.Specs = []string{"scenario.kafka-18641-auto-commit-slow-processing"}
		return reports.EvidenceCheck{Column: reports.Column{Subject: "java", Target: "kfake", Variant: rel}, Result: reports.Decide(tl), RunTally: tl}
	}
	R, D := reports.Reproduces, reports.DoesNotReproduce
	m := reports.ReleaseMatrix{Version: reports.ReleaseMatrixVersion, Subject: "java", Target: "kfake", Releases: []string{"4.1.2", "4.2.0"},
		Rows: []reports.ReleaseRow{{Item: "KAFKA-18641", Cells: []reports.EvidenceCheck{cell("4.1.2", D, D, D, D, D), cell("4.2.0", R, R, R, R, R)}}}}
	dir := t.TempDir()
	b, _ := json.Marshal(m)
	path := filepath.Join(dir, "m.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("report", "-findings", "-releases", path, "-out", dir)
	if code != 0 || !strings.Contains(out, "KAFKA-18641 regressed in kafka-clients 4.2.0") || !strings.Contains(out, "h3. KAFKA-18641 regressed") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "findings.jira.txt")); err != nil {
		t.Error(err)
	}
	if code, _, errOut := runCLI("report", "-findings", "-releases", filepath.Join(dir, "nosuch.json")); code == 0 || !strings.Contains(errOut, "-releases") {
		t.Errorf("missing matrix: exit %d, %s", code, errOut)
	}
}
