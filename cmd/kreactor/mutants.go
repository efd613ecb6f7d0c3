package main

// kreactor mutants: the mutation runs. It builds every suite that can kill
// (mutantSuites: the regression specs and scenario files, the properties,
// the contract, e2e and share suites) and the model package's trace
// validation once with the `mutants` build tag, runs them once with no
// mutant (every spec must pass, or a kill proves nothing) and once per
// mutant of internal/mutant's catalogue, on the reactor subject and the
// kfake target (where every reactor consumer's trace is also validated
// against the protocol's model at the end of its spec), reads each run's
// Ginkgo JSON report, prints the kill matrix (mutant x spec) and writes it
// for `kreactor report -mutants FILE`. It fails when a mutant survives, when
// a mutant of a seed failure shape is killed only by specs of other shapes,
// or when a spec fails without a mutant.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kreactor/kreactor/catalogue"
	"github.com/kreactor/kreactor/internal/mutant"
	"github.com/kreactor/kreactor/reports"
)

// mutantSuites are the packages whose specs make up the matrix's columns:
// every suite whose specs run on the reactor subject and can kill a
// mutant (fidelity compares targets, not subjects).
var mutantSuites = []string{"./specs/regressions", "./specs/properties", "./specs/contract", "./specs/e2e", "./specs/share"}

// traceCheckSpec is the matrix column of trace validation outside the
// suites: the model package's workload on a reactor Loop, replayed against
// the protocol's model (model.CheckEvents); it kills publication-race
// mutants of the engine's own paths (WaitFor, publish, effects) that no
// consumer call exercises.
const traceCheckSpec = "trace.model-workload"

// mutantRunTimeout bounds one run of the suite on one mutant: the null-like
// mutants wait out every consume step and close (10 s each) in 14 specs.
const mutantRunTimeout = 15 * time.Minute

func runMutants(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("mutants", "[-out FILE] [-dir DIR] [-only NAME[,NAME...]] [-suites PKG[,PKG...]] [-go GO]", stderr)
	out := fs.String("out", filepath.Join("reports", "out", "mutants.json"), "kill matrix JSON to write (read by kreactor report -mutants)")
	dir := fs.String("dir", filepath.Join("reports", "out", "mutants"), "directory for the test binary, each run's Ginkgo JSON report and log")
	only := fs.String("only", "", "comma-separated mutant names to run (default: the whole catalogue)")
	goTool := fs.String("go", "go", "the go command that builds the test binary")
	suitesFlag := fs.String("suites", strings.Join(mutantSuites, ","), "comma-separated suite packages to run on every mutant")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if err := mutant.Validate(); err != nil {
		return err
	}
	chosen, err := chooseMutants(*only, stderr)
	if err != nil {
		fs.Usage()
		return err
	}
	cat, err := catalogue.Load()
	if err != nil {
		return err
	}
	absDir, err := filepath.Abs(*dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(absDir, 0o755); err != nil {
		return err
	}
	start := time.Now()
	r := &mutantRunner{cat: cat, dir: *dir, absDir: absDir,
		km: &reports.KillMatrix{Version: reports.KillMatrixVersion, SpecShapes: map[string][]catalogue.Shape{}, Subject: "reactor", Target: "kfake"}}
	if err := r.build(*goTool, splitList(*suitesFlag), stdout, stderr); err != nil {
		return err
	}
	km := r.km
	km.Specs = append(km.Specs, traceCheckSpec)
	km.SpecShapes[traceCheckSpec] = []catalogue.Shape{catalogue.ShapePublicationRace}
	fmt.Fprintf(stdout, "== mutants: control run (no mutant)\n")
	control, d, err := r.run("control", "")
	if err != nil {
		return err
	}
	km.Control = control
	fmt.Fprintf(stdout, "   %d specs, %d pass, %s\n", len(control), count(control, reports.VerdictPass), d.Round(time.Second))
	for i, m := range chosen {
		fmt.Fprintf(stdout, "== mutants: %d/%d %s (%s)\n", i+1, len(chosen), m.Name, m.EnvValue())
		v, d, err := r.run(m.Name, m.EnvValue())
		if err != nil {
			return err
		}
		km.Mutants = append(km.Mutants, reports.Mutant{Name: m.Name, Shape: m.Shape, Description: m.Description, Where: m.Where, Source: m.Source, Verdicts: v, Seconds: d.Seconds()})
		killed := km.KilledBy(km.Mutants[len(km.Mutants)-1])
		fmt.Fprintf(stdout, "   killed by %d of %d specs, %s\n", len(killed), len(v), d.Round(time.Second))
	}
	km.Seconds = time.Since(start).Seconds()
	return finishKillMatrix(km, *out, start, stdout, stderr)
}

// chooseMutants is the catalogue, or the mutants -only names.
func chooseMutants(only string, stderr io.Writer) ([]mutant.Mutant, error) {
	if only == "" {
		return mutant.Mutants, nil
	}
	var chosen []mutant.Mutant
	for _, n := range strings.Split(only, ",") {
		m, ok := mutant.Lookup(strings.TrimSpace(n))
		if !ok {
			fmt.Fprintf(stderr, "-only: unknown mutant %q (known: %s)\n", n, strings.Join(mutantNames(), ", "))
			return nil, errUsage
		}
		chosen = append(chosen, m)
	}
	return chosen, nil
}

// mutantRunner runs the suites' and the trace check's test binaries, built
// once with the mutants tag, on one mutant after another, and adds each
// run's verdicts to the kill matrix.
type mutantRunner struct {
	cat         catalogue.Catalogue
	dir, absDir string // the -dir flag, and it absolute
	km          *reports.KillMatrix
	suites      []mutantSuite
	traceBin    string // the model package's test binary
	modelDir    string
}

// mutantSuite is one suite package, its test binary and its directory.
type mutantSuite struct{ pkg, bin, dir string }

// build builds every suite's test binary and the trace check's with the
// mutants tag.
func (r *mutantRunner) build(goTool string, pkgs []string, stdout, stderr io.Writer) error {
	for _, pkg := range pkgs {
		bin := filepath.Join(r.absDir, filepath.Base(pkg)+".mutants.test")
		fmt.Fprintf(stdout, "== mutants: building %s with -tags mutants\n", pkg)
		build := exec.Command(goTool, "test", "-c", "-tags", "mutants", "-o", bin, pkg)
		build.Stdout, build.Stderr = stderr, stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build the mutant test binary of %s: %w", pkg, err)
		}
		dir, err := filepath.Abs(filepath.FromSlash(strings.TrimPrefix(pkg, "./")))
		if err != nil {
			return err
		}
		r.suites = append(r.suites, mutantSuite{pkg, bin, dir})
	}
	r.traceBin = filepath.Join(r.absDir, "model.mutants.test")
	build := exec.Command(goTool, "test", "-c", "-tags", "mutants", "-o", r.traceBin, "./model")
	build.Stdout, build.Stderr = stderr, stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build the trace-validation test binary: %w", err)
	}
	var err error
	r.modelDir, err = filepath.Abs("model")
	return err
}

// run runs the trace check and every suite on the mutation points (""
// none) and returns the verdict of every spec that ran.
func (r *mutantRunner) run(name, points string) (map[string]reports.Verdict, time.Duration, error) {
	t0 := time.Now()
	verdicts := map[string]reports.Verdict{}
	tv, err := r.traceCheck(name, points)
	if err != nil {
		return nil, 0, err
	}
	verdicts[traceCheckSpec] = tv
	for _, su := range r.suites {
		if err := r.runSuite(name, points, su, verdicts); err != nil {
			return nil, 0, err
		}
	}
	return verdicts, time.Since(t0), nil
}

// traceCheck runs the model package's trace-validation workload on the
// mutant: it fails only when a recorded step breaks the model.
func (r *mutantRunner) traceCheck(name, points string) (reports.Verdict, error) {
	cmd := exec.Command(r.traceBin, "-test.run=^TestCheckTraceOfALoop$", "-test.count=1", "-test.v")
	cmd.Dir = r.modelDir
	cmd.Env = append(os.Environ(), mutant.Env+"="+points)
	out, err := cmd.CombinedOutput()
	_ = os.WriteFile(filepath.Join(r.absDir, name+"-trace.log"), out, 0o644)
	switch {
	case err == nil:
		return reports.VerdictPass, nil
	case strings.Contains(string(out), "breaks the model"):
		return reports.VerdictFail, nil
	}
	return "", fmt.Errorf("mutant %s: the trace-validation run failed for another reason (%v; see %s-trace.log)", name, err, filepath.Join(r.dir, name))
}

// runSuite runs one suite's binary on the mutant and adds its verdicts
// (and each new spec, with the shapes of the items it covers, to the
// matrix's columns).
func (r *mutantRunner) runSuite(name, points string, su mutantSuite, verdicts map[string]reports.Verdict) error {
	name = name + "-" + filepath.Base(su.pkg)
	report := filepath.Join(r.absDir, name+".json")
	_ = os.Remove(report)
	logf, err := os.Create(filepath.Join(r.absDir, name+".log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	ctx, cancel := context.WithTimeout(context.Background(), mutantRunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, su.bin, "-test.timeout="+mutantRunTimeout.String(), "-ginkgo.no-color", "-ginkgo.json-report="+report)
	cmd.Dir = su.dir
	cmd.Env = append(os.Environ(), "KREACTOR_SUBJECT=reactor", "KREACTOR_TARGET=kfake", mutant.Env+"="+points)
	cmd.Stdout, cmd.Stderr = logf, logf
	runErr := cmd.Run() // a failing spec is the point: the report decides
	rows, err := reports.ParseFiles([]string{report}, reports.Options{})
	if err != nil {
		return fmt.Errorf("mutant %s: no usable report (%v; the run: %v; see %s.log)", name, err, runErr, filepath.Join(r.dir, name))
	}
	km := r.km
	for _, row := range rows.Rows {
		if row.Verdict == reports.VerdictSkipped {
			continue
		}
		verdicts[row.ID] = row.Verdict
		if !slices.Contains(km.Specs, row.ID) {
			km.Specs = append(km.Specs, row.ID)
			for _, c := range row.Covers {
				if it, ok := r.cat.Lookup(c); ok && !slices.Contains(km.SpecShapes[row.ID], it.Shape) {
					km.SpecShapes[row.ID] = append(km.SpecShapes[row.ID], it.Shape)
				}
			}
		}
	}
	return nil
}

// finishKillMatrix sorts the columns, prints the matrix, writes it to out
// and fails on its problems.
func finishKillMatrix(km *reports.KillMatrix, out string, start time.Time, stdout, stderr io.Writer) error {
	slices.SortStableFunc(km.Specs, func(a, b string) int {
		// The Go regression specs first, then the scenario files, each by id.
		sa, sb := strings.HasPrefix(a, "scenario."), strings.HasPrefix(b, "scenario.")
		switch {
		case sa != sb && sa:
			return 1
		case sa != sb:
			return -1
		}
		return strings.Compare(a, b)
	})
	printKillMatrix(stdout, km)
	data, err := json.MarshalIndent(km, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(out, append(data, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d mutants x %d specs) in %s\n", out, len(km.Mutants), len(km.Specs), time.Since(start).Round(time.Second))
	if probs := km.Problems(); len(probs) > 0 {
		for _, p := range probs {
			fmt.Fprintf(stderr, "mutants: %s\n", p)
		}
		return fmt.Errorf("%d problem(s) in the kill matrix", len(probs))
	}
	fmt.Fprintf(stdout, "every mutant is killed, each of a seed shape by a spec of its shape\n")
	return nil
}

// printKillMatrix prints the matrix with numbered columns (the spec ids are
// long), then, per mutant, the specs of its own shape that killed it.
func printKillMatrix(w io.Writer, km *reports.KillMatrix) {
	fmt.Fprintf(w, "\nKill matrix (K: the spec failed on the mutant, .: it passed, -: did not run); subject %s, target %s\n", km.Subject, km.Target)
	for i, s := range km.Specs {
		shapes := make([]string, len(km.SpecShapes[s]))
		for j, sh := range km.SpecShapes[s] {
			shapes[j] = string(sh)
		}
		fmt.Fprintf(w, "  %2d %s (%s)\n", i+1, s, strings.Join(shapes, ", "))
	}
	tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
	fmt.Fprintf(tw, "\nmutant\tshape\t")
	for i := range km.Specs {
		fmt.Fprintf(tw, "%d\t", i+1)
	}
	fmt.Fprintf(tw, "killed\tby its shape\n")
	mark := func(v reports.Verdict, ok bool) string {
		switch {
		case !ok:
			return "-"
		case v.Failed():
			return "K"
		}
		return "."
	}
	if km.Control != nil {
		fmt.Fprintf(tw, "(no mutant)\t\t")
		for _, s := range km.Specs {
			v, ok := km.Control[s]
			fmt.Fprintf(tw, "%s\t", strings.ReplaceAll(mark(v, ok), "K", "F"))
		}
		fmt.Fprintf(tw, "\t\n")
	}
	for _, m := range km.Mutants {
		fmt.Fprintf(tw, "%s\t%s\t", m.Name, m.Shape)
		for _, s := range km.Specs {
			v, ok := m.Verdicts[s]
			fmt.Fprintf(tw, "%s\t", mark(v, ok))
		}
		by := km.KilledByShape(m)
		fmt.Fprintf(tw, "%d/%d\t%s\n", len(km.KilledBy(m)), len(m.Verdicts), strings.Join(by, ", "))
	}
	tw.Flush()
	fmt.Fprintln(w)
}

func count(v map[string]reports.Verdict, want reports.Verdict) int {
	n := 0
	for _, x := range v {
		if x == want {
			n++
		}
	}
	return n
}

func mutantNames() []string {
	var out []string
	for _, m := range mutant.Mutants {
		out = append(out, m.Name)
	}
	return out
}
