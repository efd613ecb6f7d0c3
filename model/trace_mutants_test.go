//go:build mutants

package model

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/kreactor/kreactor/internal/mutant"
)

// Trace validation catches the publication-path mutants of the reactor: the
// same workload as TestCheckTraceOfALoop, run in a child process with the
// mutant switched on (the point is read once, at init), fails the check
// with the rule of the mutant's invariant.
func TestTraceCatchesMutants(t *testing.T) {
	cases := []struct{ point, rule string }{
		{"effects-before-publication", "invariant 4"},
		{"effects-at-once", "invariant 4"},
		{"waitfor-check-before-take", "invariant 5"},
	}
	for _, c := range cases {
		t.Run(c.point, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestCheckTraceOfALoop$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), mutant.Env+"="+c.point)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("the mutant survived trace validation (err %v):\n%s", err, out)
			}
			if !strings.Contains(string(out), "breaks the model") || !strings.Contains(string(out), c.rule) {
				t.Fatalf("the run failed, but not on trace validation (%s):\n%s", c.rule, out)
			}
			for _, l := range strings.Split(string(out), "\n") {
				if strings.Contains(l, "breaks the model") {
					t.Logf("caught: %s", strings.TrimSpace(l))
				}
			}
		})
	}
}
