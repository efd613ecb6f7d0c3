package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExploreFindingsPage(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("kgo-duplicate-seed210.json", `{"seed": 210, "subject": "kgo", "release": "kgo v1.22.3", "anomaly": "duplicate c1 at +650ms: t0[2] offset 0 handed again",
		"rate": {"shown": 7, "runs": 10, "low": 0.4, "high": 0.89}, "schedule": {"brokers": 1},
		"classification": {"kind": "new", "evidence": "reproduces on kafka 4.4.0 (3 of 3)"}}`)
	write("kgo-duplicate-seed210.yaml", "# a scenario\n")
	write("java-spin-seed3.json", `{"seed": 3, "subject": "java", "anomaly": "spin c1 at +1s: 9000 loop steps", "schedule": {"brokers": 1}}`)
	write("summary-kgo.json", `{"Subject": "kgo"}`) // not a finding: skipped
	fs, err := LoadExploreFindings(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 2 || fs[0].Subject != "java" || fs[1].YAML == "" {
		t.Fatalf("loaded %+v", fs)
	}
	md := ExploreFindingsMarkdown(fs)
	for _, want := range []string{
		"| duplicate | kgo | kgo v1.22.3 | `kgo-duplicate-seed210.json`, `kgo-duplicate-seed210.yaml` | 7/10 (95% Wilson 0.40-0.89) | new |",
		"| spin | java | - | `java-spin-seed3.json` | not replayed | not triaged |",
		"kreactor explore -replay " + filepath.Join(dir, "kgo-duplicate-seed210.json") + " -replays 10",
		"classification: new: reproduces on kafka 4.4.0 (3 of 3)",
		"-target kafka",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("page lacks %q:\n%s", want, md)
		}
	}
	write("bad.json", `{"seed": 1, "subject": "kgo", "anomaly": "x", "schedule": {}, "classification": {"kind": "maybe"}}`)
	if _, err := LoadExploreFindings(dir); err == nil || !strings.Contains(err.Error(), `classification "maybe"`) {
		t.Fatalf("unknown classification: %v", err)
	}
}

// A directory that is not there is an error naming it, not "no findings".
func TestExploreFindingsMissingDir(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nonexistent")
	if fs, err := LoadExploreFindings(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("LoadExploreFindings(%s) = %v, %v; want an error naming it", missing, fs, err)
	}
	file := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadExploreFindings(file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("LoadExploreFindings(a file) = %v, want not a directory", err)
	}
}
