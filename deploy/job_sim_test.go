package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kreactor/kreactor/internal/plan"
	"github.com/kreactor/kreactor/reports"
)

// TestSimulatedJob runs the Indexed Job of k8s/job.yaml on this machine:
// KREACTOR_SIM_SHARDS processes of `kreactor plan -shard N -exec`, at once,
// each with JOB_COMPLETION_INDEX=i as the Job controller sets it, and an
// unsharded run of the same suites (Ginkgo directly, as make conformance
// runs them). The shards' units must be disjoint and together the plan's,
// and the report over the shards' run files must have the unsharded
// report's verdicts. It runs real suites (minutes): make shards-check.
func TestSimulatedJob(t *testing.T) {
	if os.Getenv("KREACTOR_SIM_JOB") != "1" {
		t.Skip("runs real suites for minutes: make shards-check (KREACTOR_SIM_JOB=1)")
	}
	n, err := strconv.Atoi(envOr("KREACTOR_SIM_SHARDS", "4"))
	if err != nil || n < 2 {
		t.Fatalf("KREACTOR_SIM_SHARDS=%q: want an integer >= 2", os.Getenv("KREACTOR_SIM_SHARDS"))
	}
	suites := envOr("KREACTOR_SIM_SUITES", "./specs/contract,./specs/e2e")
	subjects := envOr("KREACTOR_SIM_SUBJECTS", "reactor,baseline")
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	kreactor := filepath.Join(dir, "kreactor")
	run(t, root, nil, "go", "build", "-o", kreactor, "./cmd/kreactor")
	common := []string{"plan", "-subjects", subjects, "-targets", "kfake", "-suites", suites}

	// The unsharded run, as make suites runs it.
	var wholeFiles []string
	for _, s := range strings.Split(subjects, ",") {
		name := "ginkgo-" + s + "-kfake-run1.json"
		args := []string{"tool", "ginkgo", "--keep-going", "--no-color", "--procs=4", "--json-report=" + name, "--output-dir=" + filepath.Join(dir, "whole")}
		for _, p := range strings.Split(suites, ",") {
			args = append(args, p)
		}
		runAllowFail(t, root, []string{"KREACTOR_SUBJECT=" + s, "KREACTOR_TARGET=kfake", "KREACTOR_RUN=1", "KREACTOR_RUNS=1"}, "go", args...)
		wholeFiles = append(wholeFiles, filepath.Join(dir, "whole", name))
	}

	// The suites compiled once, as in the harness image: the N processes
	// share this source tree, and Ginkgo compiles a suite into its package
	// directory (concurrent compiles of one package remove each other's
	// binary; so does the unsharded run's Ginkgo, hence after it).
	for _, p := range strings.Split(suites, ",") {
		bin := filepath.Join(root, p, filepath.Base(p)+".test")
		run(t, root, nil, "go", "test", "-c", "-o", bin, p)
		t.Cleanup(func() { os.Remove(bin) })
	}
	t.Setenv("KREACTOR_SUITE_BINARIES", "1")

	// The plan, whole and per index.
	whole := listUnits(t, root, nil, kreactor, append(common, "-shard", "0/1"))
	seen := map[string]int{}
	for i := range n {
		env := []string{"JOB_COMPLETION_INDEX=" + strconv.Itoa(i)}
		for _, u := range listUnits(t, root, env, kreactor, append(common, "-shard", strconv.Itoa(n))) {
			k := fmt.Sprintf("%s|run%d", u.Key(), u.Run)
			if prev, dup := seen[k]; dup {
				t.Errorf("unit %s in shards %d and %d", k, prev, i)
			}
			seen[k] = i
		}
	}
	for _, u := range whole {
		if _, ok := seen[fmt.Sprintf("%s|run%d", u.Key(), u.Run)]; !ok {
			t.Errorf("unit %s in no shard", u)
		}
	}
	if len(seen) != len(whole) {
		t.Fatalf("the shards hold %d units, the plan %d", len(seen), len(whole))
	}

	// The Job: N processes at once, the index from the environment.
	var wg sync.WaitGroup
	errs := make([]error, n)
	outs := make([]bytes.Buffer, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(kreactor, append(common, "-shard", strconv.Itoa(n), "-procs", "1", "-exec", "-out", filepath.Join(dir, "shard-"+strconv.Itoa(i)))...)
			cmd.Dir, cmd.Stdout, cmd.Stderr = root, &outs[i], &outs[i]
			cmd.Env = append(os.Environ(), "JOB_COMPLETION_INDEX="+strconv.Itoa(i))
			errs[i] = cmd.Run()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("shard %d: %v\n%s", i, err, outs[i].String())
		}
	}
	shardFiles, err := filepath.Glob(filepath.Join(dir, "shard-*", "ginkgo-*.json"))
	if err != nil || len(shardFiles) == 0 {
		t.Fatalf("no shard run files (%v)", err)
	}

	a := verdictsOf(t, root, kreactor, wholeFiles, filepath.Join(dir, "report-whole"))
	b := verdictsOf(t, root, kreactor, shardFiles, filepath.Join(dir, "report-shards"))
	if d := a.Diff(b); len(d) > 0 {
		t.Fatalf("the %d shards' merged report differs from the unsharded run in %d verdicts:\n%s", n, len(d), strings.Join(d, "\n"))
	}
	t.Logf("%d units in %d shards (%d run files): %d verdicts agree with the unsharded run", len(whole), n, len(shardFiles), len(a))
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func run(t *testing.T, dir string, env []string, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// runAllowFail runs a suite: failing specs (the baseline's) are results.
func runAllowFail(t *testing.T, dir string, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Logf("%s %s: %v (failing specs are results)\n%s", name, strings.Join(args, " "), err, lastLines(out, 5))
	}
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func listUnits(t *testing.T, dir string, env []string, kreactor string, args []string) []plan.Unit {
	t.Helper()
	var p struct {
		Shards []plan.Shard `json:"shards"`
	}
	if err := json.Unmarshal(run(t, dir, env, kreactor, append(args, "-json")...), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Shards) != 1 {
		t.Fatalf("%d shards listed, want 1", len(p.Shards))
	}
	return p.Shards[0].Units
}

// verdictsOf writes the report over files (its check may fail: these are
// parts of the matrix) and reads its summary.json's verdicts.
func verdictsOf(t *testing.T, dir, kreactor string, files []string, out string) reports.Verdicts {
	t.Helper()
	slices.Sort(files)
	cmd := exec.Command(kreactor, "report", "-in", strings.Join(files, ","), "-out", out, "-format", "json", "-check", "reactor,baseline")
	cmd.Dir = dir
	_ = cmd.Run() // the check's status; the verdicts are compared below
	f, err := os.Open(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatalf("report over %s: %v", strings.Join(files, ","), err)
	}
	defer f.Close()
	v, err := reports.ReadVerdicts(f)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
