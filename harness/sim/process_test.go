package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Child processes of these tests: the parent re-runs the test binary with
// one of these set in the environment and -test.run naming the child test.
const (
	envChildHistory = "KREACTOR_SIM_CHILD_HISTORY" // file the child writes its History to (JSON)
	envChildFrozen  = "KREACTOR_SIM_CHILD_FROZEN"  // file the child writes its Frozen report to
)

// frozenExit is the exit status of a child whose bubble froze.
const frozenExit = 3

// runChild runs the test binary's test named test in a child process
// with env set, and returns its combined output and error.
func runChild(t *testing.T, test string, env ...string) ([]byte, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	return cmd.CombinedOutput()
}

// TestDeterminismAcrossProcesses runs the outage scenario (faults off
// round times, Procs 1: the setting that is deterministic within one
// process) once in each of -sim.runs fresh processes with one seed and
// reports how many histories differ: in a fresh process every
// process-wide source (kfake's topic id pool, crypto/rand through
// cryptotest) starts the same, so what differs is scheduling alone.
func TestDeterminismAcrossProcesses(t *testing.T) {
	if os.Getenv(envChildHistory) != "" {
		t.Skip("in a child")
	}
	dir := t.TempDir()
	var hs []*History
	for i := range *determinismRuns {
		path := filepath.Join(dir, fmt.Sprintf("history-%d.json", i))
		if out, err := runChild(t, "TestDeterminismChild", envChildHistory+"="+path); err != nil {
			t.Fatalf("child %d: %v\n%s", i, err, out)
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var h History
		if err := json.Unmarshal(raw, &h); err != nil {
			t.Fatal(err)
		}
		hs = append(hs, &h)
	}
	t.Logf("one process per run, GOMAXPROCS 1: %s", measure(hs))
}

// TestDeterminismChild is one run of TestDeterminismAcrossProcesses.
func TestDeterminismChild(t *testing.T) {
	path := os.Getenv(envChildHistory)
	if path == "" {
		t.Skip("only as a child of TestDeterminismAcrossProcesses")
	}
	var marks scenarioMarks
	h, err := Run(t, Config{Seed: seed, Cluster: scenarioCluster(), Procs: 1}, scenarioRun(newReactor, true, &marks))
	if err != nil {
		t.Fatal(err)
	}
	checkOutageHistory(t, h, marks)
	raw, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestBaselineFreezesTheBubble runs the outage scenario on the baseline
// consumer inside a bubble, in a child process: during the coordinator
// outage the baseline's network thread busy-loops (a heartbeat due with no
// coordinator collapses to a zero wait: KAFKA-20253's shape), so the
// bubble's clock stops at the outage's start and the watchdog reports the
// loop. A bubble with a goroutine that never blocks cannot go on, so the
// child exits.
func TestBaselineFreezesTheBubble(t *testing.T) {
	if os.Getenv(envChildFrozen) != "" {
		t.Skip("in a child")
	}
	path := filepath.Join(t.TempDir(), "frozen.txt")
	wall := time.Now()
	out, err := runChild(t, "TestBaselineFreezesChild", envChildFrozen+"="+path)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != frozenExit {
		t.Fatalf("child ended with %v, want exit status %d (frozen)\n%s", err, frozenExit, out)
	}
	report, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := string(report)
	if !strings.Contains(r, "baseline.(*Loop[...]).run") {
		t.Fatalf("the frozen report does not name the baseline's loop among the spinning goroutines:\n%s", r)
	}
	head, _, _ := strings.Cut(r, "\n")
	t.Logf("after %s of wall time: %s", time.Since(wall).Round(time.Millisecond), head)
}

// TestBaselineFreezesChild is the child of TestBaselineFreezesTheBubble.
func TestBaselineFreezesChild(t *testing.T) {
	path := os.Getenv(envChildFrozen)
	if path == "" {
		t.Skip("only as a child of TestBaselineFreezesTheBubble")
	}
	var marks scenarioMarks
	cfg := Config{Seed: seed, Cluster: scenarioCluster(), FrozenAfter: 2 * time.Second, OnFrozen: func(f Frozen) {
		_ = os.WriteFile(path, []byte(f.String()), 0o600)
		os.Exit(frozenExit)
	}}
	_, err := Run(t, cfg, outageScenario(newBaseline, &marks))
	t.Fatalf("the baseline's run ended (%v): want its clock frozen by the outage", err)
}
