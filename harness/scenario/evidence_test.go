package scenario

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kreactor/kreactor/reports"
)

func TestEvidenceFloor(t *testing.T) {
	sc, err := Parse("good.yaml", []byte(good+"evidence: {steps.w: 5}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := sc.Floors(); !slices.Equal(got, []reports.Floor{{Figure: "steps.w", Min: 5}}) {
		t.Errorf("floors %v", got)
	}
	out, err := Format(sc)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "evidence: {steps.w: 5}") {
		t.Errorf("format lost the evidence map:\n%s", out)
	}
	for in, want := range map[string]string{
		"evidence: {nosuch: 1}\n":   "evidence names a key no expectation has",
		"evidence: {steps.w: -1}\n": "want a finite number >= 0",
		"evidence: {steps.w: x}\n":  "want a finite number >= 0",
		"evidence: [steps.w]\n":     "want a mapping of figure keys",
	} {
		if _, err := Parse("bad.yaml", []byte(good+in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}

// Every scenario file judging commits against processing carries the floor
// commits.observed >= 1: a run that judged no commit is inconclusive.
func TestCommitsWithinProcessedImpliesFloor(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "specs", "scenarios", "*.yaml"))
	n := 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if !strings.Contains(string(b), "commits_within_processed") {
			continue
		}
		sc, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		n++
		if !slices.Contains(sc.Floors(), reports.Floor{Figure: KeyCommitsObserved, Min: 1}) {
			t.Errorf("%s: floors %v lack %s >= 1", f, sc.Floors(), KeyCommitsObserved)
		}
	}
	if n == 0 {
		t.Fatal("no scenario file uses commits_within_processed")
	}
}
