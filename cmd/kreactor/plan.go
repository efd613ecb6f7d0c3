package main

// kreactor plan: the units of work of a conformance run (suite x spec x
// subject x target x release x run), split into shards that balance by
// measured durations, and the run of one shard (package internal/plan).

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kreactor/kreactor/harness/targets"
	"github.com/kreactor/kreactor/internal/plan"
	"github.com/kreactor/kreactor/reports"
)

// planOptions are the flags of kreactor plan.
type planOptions struct {
	subjects, targets, releases, suites, nullSuites []string
	runs                                            int
	durations, shard, labelFilter                   string
	asJSON, exec                                    bool
	out, ginkgoFlags                                string
	procs, javaProcs                                int
	record, durationsOut                            string
}

func runPlan(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("plan", "[-subjects S,...] [-targets T,...] [-releases R,...] [-runs N] [-durations FILE] [-shard i/N|N] [-json] [-exec -out DIR] | -record FILE,... -durations-out FILE", stderr)
	var o planOptions
	subjects := fs.String("subjects", "reactor,baseline,null,java,kgo", "subjects (the null subject runs -null-suites only)")
	targetsFlag := fs.String("targets", "kfake", "targets")
	releases := fs.String("releases", "4.4.0", "kafka-clients releases of the java subject (other subjects have none)")
	suites := fs.String("suites", "./specs/...", "suite packages")
	nullSuites := fs.String("null-suites", "./specs/regressions", "suite packages of the null subject")
	fs.IntVar(&o.runs, "runs", 1, fmt.Sprintf("repeats of every unit (KREACTOR_RUN 1..N), at most %d", maxPlanRuns))
	fs.StringVar(&o.durations, "durations", filepath.Join("internal", "plan", "durations.json"), "measured durations per unit (kreactor plan -record); missing: every unit 5 s")
	fs.StringVar(&o.shard, "shard", "", "i/N: the 0-based shard i of N; N alone takes i from $JOB_COMPLETION_INDEX; empty: every unit")
	fs.StringVar(&o.labelFilter, "label-filter", "", "a Ginkgo label filter every shard runs within")
	fs.BoolVar(&o.asJSON, "json", false, "print the plan as JSON (the shards with their units) instead of one unit a line")
	fs.BoolVar(&o.exec, "exec", false, "run the shard's units (Ginkgo per suite, subject, target, release and run), run files into -out")
	fs.StringVar(&o.out, "out", filepath.Join("reports", "out"), "-exec: directory of the run files (ginkgo-SUBJECT-TARGET-runK-SUITE-shardIofN.json)")
	fs.StringVar(&o.ginkgoFlags, "ginkgo-flags", "", "-exec: extra Ginkgo flags, space separated (e.g. --race)")
	fs.IntVar(&o.procs, "procs", 4, "-exec: Ginkgo processes per suite run")
	fs.IntVar(&o.javaProcs, "java-procs", 2, "-exec: Ginkgo processes per suite run of the java subject")
	fs.StringVar(&o.record, "record", "", "Ginkgo JSON reports (comma separated) to record durations from, instead of planning")
	fs.StringVar(&o.durationsOut, "durations-out", "", "-record: the durations file to write")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return badFlag(fs, "unexpected argument %q", fs.Arg(0))
	}
	if o.record != "" {
		return recordDurations(fs, o, stdout)
	}
	o.subjects, o.targets, o.releases = splitList(*subjects), splitList(*targetsFlag), splitList(*releases)
	o.suites, o.nullSuites = splitList(*suites), splitList(*nullSuites)
	if err := checkPlanOptions(fs, o); err != nil {
		return err
	}
	index, n := 0, 1
	if o.shard != "" {
		var err error
		if index, n, err = plan.ParseShard(o.shard, os.Getenv("JOB_COMPLETION_INDEX")); err != nil {
			return badFlag(fs, "-shard: %v", err)
		}
	}
	durations := plan.Durations{Seconds: map[string]float64{}}
	if _, err := os.Stat(o.durations); err == nil {
		if durations, err = plan.ReadDurations(o.durations); err != nil {
			return err
		}
	} else if fs.Lookup("durations").Value.String() != fs.Lookup("durations").DefValue {
		return fmt.Errorf("-durations: %w", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	root, err := planRoot()
	if err != nil {
		return err
	}
	units, err := planUnits(ctx, o, root, durations)
	if err != nil {
		return err
	}
	shards, err := plan.Assign(units, n)
	if err != nil {
		return err
	}
	mine := shards
	if o.shard != "" {
		mine = shards[index : index+1]
	}
	if o.exec {
		return execShard(ctx, o, root, mine[0], index, n, stdout, stderr)
	}
	return printPlan(o.asJSON, mine, n, stdout, stderr)
}

// maxPlanRuns bounds -runs: every repeat multiplies the units the plan
// holds in memory, and a thousand repeats of a spec is beyond any use.
const maxPlanRuns = 1000

// checkPlanOptions refuses unknown subjects and targets, empty lists,
// counts below one and -runs above maxPlanRuns.
func checkPlanOptions(fs *flag.FlagSet, o planOptions) error {
	for _, s := range o.subjects {
		if !slices.Contains(planSubjects, s) {
			return badFlag(fs, "-subjects: unknown subject %q (known: %s)", s, strings.Join(planSubjects, ", "))
		}
	}
	for _, t := range o.targets {
		if !slices.Contains(targets.Names(), t) {
			return badFlag(fs, "-targets: unknown target %q (known: %s)", t, strings.Join(targets.Names(), ", "))
		}
	}
	switch {
	case len(o.subjects) == 0 || len(o.targets) == 0 || len(o.suites) == 0:
		return badFlag(fs, "-subjects, -targets and -suites must each name at least one")
	case slices.Contains(o.subjects, "java") && len(o.releases) == 0:
		return badFlag(fs, "-releases names no release for the java subject")
	case o.runs < 1 || o.runs > maxPlanRuns:
		return badFlag(fs, "-runs %d: want 1..%d", o.runs, maxPlanRuns)
	case o.procs < 1 || o.javaProcs < 1:
		return badFlag(fs, "-procs %d, -java-procs %d: want at least 1", o.procs, o.javaProcs)
	}
	return nil
}

// printPlan prints the shards: as JSON, or one unit a line with a summary
// per shard on stderr.
func printPlan(asJSON bool, mine []plan.Shard, n int, stdout, stderr io.Writer) error {
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Shards []plan.Shard `json:"shards"`
			Of     int          `json:"of"`
		}{mine, n})
	}
	for _, s := range mine {
		for _, u := range s.Units {
			fmt.Fprintf(stdout, "%d/%d %s\n", s.Index, n, u)
		}
	}
	for _, s := range mine {
		fmt.Fprintf(stderr, "shard %d/%d: %d units, %.0f s measured\n", s.Index, n, len(s.Units), s.Seconds)
	}
	return nil
}

// planSubjects are the subjects a plan may name (subjects.Selected's).
var planSubjects = []string{"reactor", "baseline", "null", "java", "kgo"}

// splitList is a comma-separated flag's non-empty entries, trimmed.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ginkgoCommand is how Ginkgo is run: $KREACTOR_GINKGO (space separated;
// the harness image's ginkgo binary) or the module's tool.
func ginkgoCommand() []string {
	if c := strings.Fields(os.Getenv("KREACTOR_GINKGO")); len(c) > 0 {
		return c
	}
	return []string{"go", "tool", "ginkgo"}
}

// planRoot is the directory holding go.mod, from the working directory up
// (without the go command: the harness image has none).
func planRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod in %s or above: run kreactor plan inside the module", wd)
		}
	}
}

// planUnits lists every unit: a dry run per subject and target gives the
// specs; releases (java) and runs multiply them.
func planUnits(ctx context.Context, o planOptions, root string, d plan.Durations) ([]plan.Unit, error) {
	var units []plan.Unit
	for _, subject := range o.subjects {
		suites := o.suites
		if subject == "null" {
			suites = o.nullSuites
		}
		releases := []string{""}
		if subject == "java" {
			releases = o.releases
		}
		for _, target := range o.targets {
			args := make([]string, len(suites))
			for i, s := range suites {
				args[i] = suiteArg(root, strings.TrimPrefix(s, "./"))
			}
			specs, err := plan.Inventory(ctx, ginkgoCommand(), root, args, subject, target, o.labelFilter)
			if err != nil {
				return nil, err
			}
			for _, sp := range specs {
				for _, rel := range releases {
					for k := 1; k <= o.runs; k++ {
						u := plan.Unit{Suite: sp.Suite, Spec: sp.ID, Subject: subject, Target: target, Release: rel, Run: k, Alone: sp.Alone}
						u.Seconds = d.Of(u)
						units = append(units, u)
					}
				}
			}
		}
	}
	plan.Sort(units)
	return units, nil
}

// execShard runs shard's units: one Ginkgo run per group (suite, subject,
// target, release, run) with a label filter naming the group's spec ids
// (reports.ShardFilter), its JSON report in o.out. Failing specs are
// results (the baseline fails the regressions), not errors: it fails only
// when Ginkgo wrote no report.
func execShard(ctx context.Context, o planOptions, root string, shard plan.Shard, index, n int, stdout, stderr io.Writer) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	out, err := filepath.Abs(o.out)
	if err != nil {
		return err
	}
	groups := map[plan.Group][]string{}
	var order []plan.Group
	for _, u := range shard.Units {
		g := plan.GroupOf(u)
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], u.Spec)
	}
	fmt.Fprintf(stdout, "== plan: shard %d/%d, %d units in %d suite runs, %.0f s measured\n", index, n, len(shard.Units), len(order), shard.Seconds)
	var problems []string
	for _, g := range order {
		name := runFileName(g, index, n)
		procs := o.procs
		if strings.HasPrefix(g.Subject, "java") {
			procs = o.javaProcs
		}
		ginkgo := ginkgoCommand()
		args := append(ginkgo[1:len(ginkgo):len(ginkgo)], "--keep-going", "--no-color", "--procs="+strconv.Itoa(procs),
			"--label-filter="+reports.ShardFilter(o.labelFilter, groups[g], index, n),
			"--json-report="+name+".json", "--junit-report="+name+".xml", "--output-dir="+out)
		args = append(args, strings.Fields(o.ginkgoFlags)...)
		args = append(args, suiteArg(root, g.Suite))
		cmd := exec.CommandContext(ctx, ginkgo[0], args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "KREACTOR_SUBJECT="+g.Subject, "KREACTOR_TARGET="+g.Target,
			"KREACTOR_RUN="+strconv.Itoa(g.Run), "KREACTOR_RUNS="+strconv.Itoa(o.runs))
		if g.Release != "" {
			cmd.Env = append(cmd.Env, "KREACTOR_JAVA_CLIENTS="+g.Release)
		}
		cmd.Stdout, cmd.Stderr = stdout, stderr
		fmt.Fprintf(stdout, "== plan: %s %s on %s run %d: %d specs\n", g.Suite, g.Subject, g.Target, g.Run, len(groups[g]))
		runErr := cmd.Run()
		if _, err := os.Stat(filepath.Join(out, name+".json")); err != nil {
			problems = append(problems, fmt.Sprintf("%s %s on %s run %d: no run file (%v)", g.Suite, g.Subject, g.Target, g.Run, runErr))
		} else if runErr != nil {
			fmt.Fprintf(stdout, "== plan: %s had failing specs (expected for the baseline and null regressions)\n", name)
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("shard %d/%d: %s", index, n, strings.Join(problems, "; "))
	}
	return nil
}

// runFileName is a group's run file name without extension: it starts as
// make conformance's (ginkgo-SUBJECT-TARGET-...) so make report reads it.
func runFileName(g plan.Group, index, n int) string {
	rel := ""
	if g.Release != "" {
		rel = "-" + g.Release
	}
	return fmt.Sprintf("ginkgo-%s-%s%s-run%d-%s-shard%dof%d", g.Subject, g.Target, rel, g.Run, filepath.Base(g.Suite), index, n)
}

// suiteArg is what Ginkgo runs for a suite: with
// $KREACTOR_SUITE_BINARIES=1 (the harness image) its precompiled test
// binary (SUITE/NAME.test, what ginkgo build writes) when present, else the
// package. Opt-in: a binary left in a working tree would be stale code.
func suiteArg(root, suite string) string {
	if strings.Contains(suite, "...") || os.Getenv("KREACTOR_SUITE_BINARIES") != "1" {
		return "./" + suite
	}
	bin := filepath.Join(root, suite, filepath.Base(suite)+".test")
	if st, err := os.Stat(bin); err == nil && !st.IsDir() {
		return "./" + filepath.ToSlash(filepath.Join(suite, filepath.Base(suite)+".test"))
	}
	return "./" + suite
}

// recordDurations writes the durations of the -record run files.
func recordDurations(fs *flag.FlagSet, o planOptions, stdout io.Writer) error {
	paths := splitList(o.record)
	if o.durationsOut == "" {
		fs.Usage()
		return errUsage
	}
	d, err := plan.Record(paths, "kreactor plan -record "+strings.Join(paths, ","))
	if err != nil {
		return err
	}
	f, err := os.Create(o.durationsOut)
	if err != nil {
		return err
	}
	if err := d.Write(f); err != nil {
		f.Close()
		return err
	}
	fmt.Fprintf(stdout, "%s: %d units\n", o.durationsOut, len(d.Seconds))
	return f.Close()
}
