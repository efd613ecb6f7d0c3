package model

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// RequireSpinEnv makes a missing spin (or C compiler) a failure instead of a
// skip: CI sets it after installing Debian's spin.
const RequireSpinEnv = "KREACTOR_REQUIRE_SPIN"

// The model file, next to this test.
const modelFile = "reactor.pml"

// nfair is the process count weak fairness must cover: init and the six
// proctypes it runs (pan's default covers 2).
const nfair = 7

// run is one pan verification: a model variant (-D defines), one property
// (an LTL claim with acceptance cycles and weak fairness, or the
// assertions and end states alone).
type run struct {
	name    string
	defines []string
	claim   string // "" for the safety run
	// want: "" means no error; else a substring of pan's error line.
	want string
}

var runs = []run{
	{name: "safety", want: ""},
	{name: "liveness/no_lost_wakeup", claim: "no_lost_wakeup"},
	{name: "liveness/close_returns", claim: "close_returns"},
	{name: "mutant/CHECK_FIRST", defines: []string{"CHECK_FIRST"}, want: "assertion violated (checked==g)"},
	{name: "mutant/CHECK_FIRST/liveness", defines: []string{"CHECK_FIRST"}, claim: "no_lost_wakeup", want: "acceptance cycle"},
	{name: "mutant/EFFECTS_FIRST", defines: []string{"EFFECTS_FIRST"}, want: "assertion violated (pubVersion>=effReply)"},
	{name: "mutant/STOP_DISCOVERY", defines: []string{"STOP_DISCOVERY"}, want: "assertion violated ((coordKnown||discover)|| !(needsCoord))"},
	{name: "mutant/SPURIOUS_WAKE", defines: []string{"SPURIOUS_WAKE"}, want: "assertion violated (((q_len(inbox)>0)"},
}

// TestModel runs Spin's exhaustive search on the model and on each model
// mutant: the model satisfies every assertion (invariants 2, 4, 5, 7), has
// no invalid end state, and satisfies both LTL properties under weak
// fairness; each mutant violates the property of its invariant, and its
// counterexample (pan's trail, replayed by spin -t) is printed.
func TestModel(t *testing.T) {
	spin, cc := requireTools(t)
	src, err := os.ReadFile(modelFile)
	if err != nil {
		t.Fatal(err)
	}
	var total atomic.Int64
	start := time.Now()
	// The runs are separate processes: in parallel (GOMAXPROCS at a time),
	// the check takes about half its CPU time on two cores.
	t.Run("runs", func(t *testing.T) {
		for _, r := range runs {
			t.Run(r.name, func(t *testing.T) {
				t.Parallel()
				res := verify(t, spin, cc, src, r)
				total.Add(res.stored)
				t.Logf("%s: %d states stored, %d transitions, depth %d, %.2f s (pan), errors %d",
					r.name, res.stored, res.transitions, res.depth, res.seconds, res.errors)
				switch {
				case r.want == "" && res.errors != 0:
					t.Errorf("%s: want no error, pan reported:\n%s\ncounterexample:\n%s", r.name, res.errLine, res.trail)
				case r.want != "" && res.errors == 0:
					t.Errorf("%s: the mutant survived: pan found no error (%d states)", r.name, res.stored)
				case r.want != "" && !strings.Contains(res.errLine, r.want):
					t.Errorf("%s: pan reported %q, want an error containing %q\ncounterexample:\n%s", r.name, res.errLine, r.want, res.trail)
				case r.want != "":
					t.Logf("%s killed: %s\ncounterexample (spin -t, process steps):\n%s", r.name, res.errLine, res.trail)
				}
			})
		}
	})
	t.Logf("all runs: %d states stored, %.1f s including spin and gcc", total.Load(), time.Since(start).Seconds())
}

func requireTools(t *testing.T) (spin, cc string) {
	t.Helper()
	spin, err1 := exec.LookPath("spin")
	cc, err2 := exec.LookPath("gcc")
	if err1 == nil && err2 == nil {
		return spin, cc
	}
	msg := "the model check needs spin and gcc on PATH (Debian: apt-get install -y spin gcc)"
	if os.Getenv(RequireSpinEnv) != "" {
		t.Fatalf("%s; %s is set, so this fails instead of skipping", msg, RequireSpinEnv)
	}
	t.Skipf("%s; skipped (set %s=1 to fail instead)", msg, RequireSpinEnv)
	return "", ""
}

type result struct {
	errors, depth       int
	stored, transitions int64
	seconds             float64
	errLine, trail      string
}

var (
	reErrors      = regexp.MustCompile(`depth reached (\d+), errors: (\d+)`)
	reStored      = regexp.MustCompile(`(\d+) states, stored`)
	reTransitions = regexp.MustCompile(`(\d+) transitions`)
	reElapsed     = regexp.MustCompile(`pan: elapsed time ([0-9.e+]+) seconds`)
	reErrLine     = regexp.MustCompile(`(?m)^pan:1: (.*)$`)
)

func verify(t *testing.T, spin, cc string, src []byte, r run) result {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, modelFile), src, 0o644); err != nil {
		t.Fatal(err)
	}
	var defs []string
	for _, d := range r.defines {
		defs = append(defs, "-D"+d)
	}
	sh(t, dir, spin, append(append([]string{}, defs...), "-a", modelFile)...)
	ccArgs := []string{"-O2", "-o", "pan", "pan.c", fmt.Sprintf("-DNFAIR=%d", nfair)}
	panArgs := []string{"-m200000"}
	if r.claim == "" {
		ccArgs = append(ccArgs, "-DSAFETY", "-DNOCLAIM")
	} else {
		panArgs = append(panArgs, "-a", "-f", "-N", r.claim)
		if r.want != "" {
			panArgs = append(panArgs, "-A") // the mutant's assertion aside: the liveness violation itself
		}
	}
	sh(t, dir, cc, ccArgs...)
	out := shOK(t, dir, filepath.Join(dir, "pan"), panArgs...)
	var res result
	m := reErrors.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("pan output without a result line:\n%s", out)
	}
	res.depth, _ = strconv.Atoi(m[1])
	res.errors, _ = strconv.Atoi(m[2])
	if m := reStored.FindStringSubmatch(out); m != nil {
		res.stored, _ = strconv.ParseInt(m[1], 10, 64)
	}
	if m := reTransitions.FindStringSubmatch(out); m != nil {
		res.transitions, _ = strconv.ParseInt(m[1], 10, 64)
	}
	if m := reElapsed.FindStringSubmatch(out); m != nil {
		res.seconds, _ = strconv.ParseFloat(m[1], 64)
	}
	if strings.Contains(out, "Search not completed") && res.errors == 0 {
		t.Fatalf("pan did not complete the search (raise -m):\n%s", out)
	}
	if res.errors > 0 {
		if m := reErrLine.FindStringSubmatch(out); m != nil {
			res.errLine = m[1]
		}
		// The trail names its claim: spin -t replays it without -N (which
		// names a never-claim file there).
		trailArgs := append(append([]string{}, defs...), "-t", "-p", "-k", modelFile+".trail", modelFile)
		res.trail = steps(shOK(t, dir, spin, trailArgs...))
	}
	return res
}

// steps keeps the trail's process steps (drops the variable dump).
func steps(trail string) string {
	var b strings.Builder
	for _, l := range strings.Split(trail, "\n") {
		if strings.Contains(l, "proc ") || strings.Contains(l, "assertion violated") || strings.Contains(l, "START OF CYCLE") {
			b.WriteString(l)
			b.WriteString("\n")
		}
	}
	return b.String()
}

func sh(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// shOK runs a command whose non-zero exit is not an error here (pan and
// spin -t exit 0 either way; the output says what happened).
func shOK(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if _, exit := err.(*exec.ExitError); err != nil && !exit {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}
