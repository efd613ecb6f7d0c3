package explore

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRegressionFiles replays every finding kept in testdata (a shrunk
// schedule explore wrote, copied here once its bug was fixed) on the
// subject it was found on, in a bubble, ShrinkTries times: the anomaly it
// recorded must not appear. Each file fails on the code before its fix.
func TestRegressionFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no regression files in testdata: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			r := readFinding(t, file)
			name, _, _ := strings.Cut(r.Anomaly, " ")
			for range ShrinkTries {
				tr, err := Run(t, r.Schedule, RunOptions{Subject: r.Subject, Seed: r.Seed})
				if tr == nil || tr.History == nil {
					t.Fatalf("%s: %v", file, err)
				}
				for _, a := range Check(tr) {
					if a.Name == name {
						t.Fatalf("%s (seed %d) shows %s again: %s", file, r.Seed, name, a)
					}
				}
			}
		})
	}
}
