package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/kreactor/kreactor/catalogue"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/scenario"
	"github.com/kreactor/kreactor/harness/subjects"
	"github.com/kreactor/kreactor/harness/targets"
	"github.com/kreactor/kreactor/reports"
)

// runScenario implements `kreactor run FILE... [-subject S[,S...]] [-target
// T]`: validate every file first (the rules of `kreactor check`), then run
// each on each subject and print each verdict with its figures; with several
// subjects, say per file whether it discriminates (for a file covering a
// regression: fails on baseline on one of its signals, passes on reactor).
// Flags may come before or after the files. It fails (exit 1) if a file does
// not load, a run fails (on the reference subject, or on any subject when it
// is the only one), or a regression file does not discriminate.
func runScenario(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", "FILE... [-subject reactor[,baseline,...]] [-target kfake|kafka] [-timeout 0] [-v]\n\n"+
		"Exit status: 0 when every run passed (with several subjects: on the reference, and every\n"+
		"regression file discriminates); 1 when a file does not load, a run fails (on the reference\n"+
		"subject, or on any subject when it is the only one) or a regression file does not\n"+
		"discriminate; 2 on bad flags.", stderr)
	subjectNames := fs.String("subject", "reactor", "subjects, comma-separated: the consumers under test ("+strings.Join(subjects.Names(), ", ")+")")
	targetName := fs.String("target", targets.Default, "target: the broker ("+strings.Join(targets.Names(), ", ")+")")
	timeout := fs.Duration("timeout", 0, "bound on each scenario run (0: the file's own bound, its timeline plus "+scenario.RunSlack.String()+")")
	verbose := fs.Bool("v", false, "also print the consumers' diagnosis (recent decisions) after each run")
	files, err := filesAndFlags(fs, args, stderr, "scenario FILE (or directory)")
	if err != nil || files == nil {
		return err
	}
	if *timeout < 0 {
		return badFlag(fs, "-timeout %s: must be >= 0 (0: the file's own bound)", *timeout)
	}
	var subs []harness.Subject
	for _, name := range strings.Split(*subjectNames, ",") {
		s, ok := subjects.Lookup(strings.TrimSpace(name))
		if !ok {
			return badFlag(fs, "-subject %q: unknown subject %q (known: %s)", *subjectNames, name, strings.Join(subjects.Names(), ", "))
		}
		if !slices.ContainsFunc(subs, func(x harness.Subject) bool { return x.Name() == s.Name() }) {
			subs = append(subs, s)
		}
	}
	target, ok := targets.Lookup(*targetName)
	if !ok {
		return badFlag(fs, "-target %q: unknown target (known: %s)", *targetName, strings.Join(targets.Names(), ", "))
	}
	scs, err := loadAll(files, stderr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	defer targets.CloseShared() //nolint:errcheck // best effort at exit
	var problems []string
	for _, sc := range scs {
		outs := map[string]*scenario.Outcome{}
		for _, subject := range subs {
			rctx, cancel := ctx, context.CancelFunc(func() {})
			if *timeout > 0 {
				rctx, cancel = context.WithTimeout(ctx, *timeout)
			}
			out, err := scenario.Run(rctx, sc, subject, target)
			cancel()
			if err != nil {
				return err
			}
			outs[subject.Name()] = out
			printOutcome(stdout, out)
			if *verbose {
				fmt.Fprintf(stdout, "  diagnosis:\n    %s\n", strings.ReplaceAll(out.Diagnose, "\n", "\n    "))
			}
			if len(subs) == 1 && !out.Passed() && out.NotApplicable == "" {
				problems = append(problems, fmt.Sprintf("%s failed on %s", sc.ID, subject.Name()))
			}
		}
		if len(subs) > 1 {
			line, ok := discrimination(sc, outs)
			fmt.Fprintf(stdout, "%s %s\n", sc.ID, line)
			if !ok {
				problems = append(problems, sc.ID+" "+line)
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d problem(s):\n  %s", len(problems), strings.Join(problems, "\n  "))
	}
	return nil
}

// controlVerdict is how a control subject's outcome o went against keys,
// what it must fail on (named what): "passes", "n/a", "fails on WHAT (its
// failed keys)" or "fails, but not on WHAT (its failed keys, then hint)";
// failed is whether it failed on one of keys.
func controlVerdict(o *scenario.Outcome, what string, keys []string, hint string) (on string, failed bool) {
	failed = slices.ContainsFunc(o.FailedKeys, func(k string) bool { return slices.Contains(keys, k) })
	switch {
	case o.NotApplicable != "":
		return "n/a", failed
	case failed:
		return "fails on " + what + " (" + strings.Join(o.FailedKeys, ", ") + ")", true
	case !o.Passed():
		return "fails, but not on " + what + " (" + strings.Join(o.FailedKeys, ", ") + hint + ")", false
	}
	return "passes", false
}

// discrimination says, for a file run on several subjects, whether it tells
// the reference subject from the control: a file covering a regression must
// pass on reactor, fail on baseline on one of its signals, and fail on null
// on one of its liveness keys (each subject that was run). ok is false when
// a check that applies does not hold.
func discrimination(sc *scenario.Scenario, outs map[string]*scenario.Outcome) (string, bool) {
	regression := false
	if cat, err := catalogue.Load(); err == nil {
		for _, c := range sc.Covers {
			it, _ := cat.Lookup(c)
			regression = regression || it.Kind == catalogue.KindRegression
		}
	}
	var parts []string
	ok := true
	ref, hasRef := outs[subjects.Reference]
	if hasRef {
		parts = append(parts, "reactor "+ref.Verdict())
		ok = ok && ref.Passed()
	}
	if ctl, has := outs["baseline"]; has {
		on, failed := controlVerdict(ctl, "a signal", sc.Signals, "; signals "+strings.Join(sc.Signals, ", "))
		parts = append(parts, "baseline "+on)
		if regression {
			ok = ok && failed
		}
	}
	if nul, has := outs["null"]; has {
		on, failed := controlVerdict(nul, "liveness", sc.Liveness, "")
		parts = append(parts, "null "+on)
		if regression {
			ok = ok && (nul.NotApplicable != "" || failed)
		}
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range outs {
			if !yield(n) {
				return
			}
		}
	}) {
		if name != subjects.Reference && name != "baseline" && name != "null" {
			parts = append(parts, name+" "+outs[name].Verdict())
		}
	}
	verdict := "discriminates"
	switch {
	case !regression:
		verdict = "covers no regression (no control check)"
	case !hasRef || outs["baseline"] == nil:
		verdict = "discrimination needs -subject reactor,baseline"
		ok = false
	case !ok:
		verdict = "DOES NOT discriminate"
	}
	return verdict + ": " + strings.Join(parts, "; "), ok || !regression
}

// filesAndFlags parses flags given before or after the files; nil files
// (and nil error) after -h. what names the files in the error for none
// ("scenario FILE (or directory)").
func filesAndFlags(fs *flag.FlagSet, args []string, stderr io.Writer, what string) ([]string, error) {
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if strings.Contains(err.Error(), "help") {
				return nil, nil
			}
			return nil, errUsage
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) == 0 {
		fmt.Fprintf(stderr, "%s: at least one %s is required\n", fs.Name(), what)
		fs.Usage()
		return nil, errUsage
	}
	return files, nil
}

// loadAll expands directories to their *.yaml files and loads every file
// with the suite's rules (ids unique across them); every error is printed.
// It returns the files that loaded, and an error when any did not (run then
// runs nothing).
func loadAll(args []string, stderr io.Writer) ([]*scenario.Scenario, error) {
	var files []string
	for _, a := range args {
		if st, err := os.Stat(a); err == nil && st.IsDir() {
			ms, _ := filepath.Glob(filepath.Join(a, "*.yaml"))
			slices.Sort(ms)
			if len(ms) == 0 {
				return nil, fmt.Errorf("%s: no *.yaml files", a)
			}
			files = append(files, ms...)
			continue
		}
		files = append(files, a)
	}
	var scs []*scenario.Scenario
	bad := 0
	for _, l := range scenario.LoadFiles(files...) {
		if l.Err != nil {
			fmt.Fprintln(stderr, l.Err)
			bad++
			continue
		}
		scs = append(scs, l.Scenario)
	}
	if bad > 0 {
		return scs, fmt.Errorf("%d of %d scenario file(s) do not load", bad, len(files))
	}
	return scs, nil
}

// checkScenarios implements `kreactor check FILE|DIR...`: the validation pass
// alone (what `run` and the suite apply first), one line per file.
func checkScenarios(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("check", "FILE|DIR...", stderr)
	files, err := filesAndFlags(fs, args, stderr, "scenario FILE (or directory)")
	if err != nil || files == nil {
		return err
	}
	scs, err := loadAll(files, stderr)
	for _, sc := range scs {
		fmt.Fprintf(stdout, "ok %s (%s: %d consumer(s), %d steps, %d expectations, timeline bound %s)\n",
			sc.File, sc.ID, len(sc.Consumers), len(sc.Steps), len(sc.Expect), sc.Bound())
	}
	if err != nil {
		return err
	}
	return nil
}

func printOutcome(w io.Writer, o *scenario.Outcome) {
	fmt.Fprintf(w, "%s %s (subject %s, target %s, %s)\n  %s\n", o.Verdict(), o.Scenario.ID, o.Subject, o.Target, o.Duration.Round(time.Millisecond), o.Scenario.Title)
	if o.NotApplicable != "" {
		fmt.Fprintf(w, "  n/a: %s\n", o.NotApplicable)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range o.Figures {
		mark := "  "
		if f.Bound != "" && !f.Pass {
			mark = "✗ "
		}
		detail := ""
		if f.Detail != "" {
			detail = "  (" + strings.ReplaceAll(f.Detail, "\n", " ") + ")"
		}
		value := strconv.FormatFloat(f.Value, 'f', -1, 64)
		if f.NotApplicable {
			value = harness.NotApplicableText
		}
		fmt.Fprintf(tw, "  %s%s\t%s %s\t%s%s\n", mark, f.Name, value, f.Unit, f.Bound, detail)
	}
	tw.Flush()
	if short := floorShortfall(o); short != "" {
		fmt.Fprintf(w, "  inconclusive: %s (the verdict says nothing about the subject)\n", short)
	}
	for _, msg := range o.Failures {
		fmt.Fprintf(w, "  failure: %s\n", msg)
	}
	if len(o.FailedKeys) > 0 {
		// Which keys failed, next to the file's signal (the Jira's
		// symptom: what the baseline must fail on) and liveness keys
		// (progress: what the null subject must fail on).
		fmt.Fprintf(w, "  failed keys: %s; signals: %s; liveness: %s\n", strings.Join(o.FailedKeys, ", "),
			strings.Join(o.Scenario.Signals, ", "), strings.Join(o.Scenario.Liveness, ", "))
	}
}

// floorShortfall judges the outcome against the file's evidence floor
// (reports.FloorShortfall, the rule the report applies).
func floorShortfall(o *scenario.Outcome) string {
	row := reports.Row{Floors: o.Scenario.Floors()}
	for _, f := range o.Figures {
		if !f.NotApplicable {
			row.Figures = append(row.Figures, reports.NamedFigure{Name: f.Name, Figure: reports.Figure{Value: f.Value}})
		}
	}
	return reports.FloorShortfall(row)
}
