package main

import (
	"context"
	"fmt"
	"io"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/scenario"
	"github.com/kreactor/kreactor/harness/targets"
)

// runScenario implements `kreactor run FILE... [-subject S] [-target T]`:
// run scenario files and print each verdict with its figures. Flags may come
// before or after the files. It fails (exit 1) if any scenario fails or
// cannot be run; a file that does not load is an error naming the file, line
// and key.
func runScenario(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", "FILE... [-subject reactor|baseline] [-target kfake|kafka] [-timeout 2m] [-v]", stderr)
	subjectName := fs.String("subject", "reactor", "subject: the consumer under test ("+strings.Join(harness.SortedNames(harness.Subjects), ", ")+")")
	targetName := fs.String("target", targets.Default, "target: the broker ("+strings.Join(targets.Names(), ", ")+")")
	timeout := fs.Duration("timeout", 2*time.Minute, "bound on each scenario run")
	verbose := fs.Bool("v", false, "also print the consumer's diagnosis (recent decisions) after each run")
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if help, _ := parseFlags(fs, []string{"-h"}); help && strings.Contains(err.Error(), "help") {
				return nil
			}
			return errUsage
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "kreactor run: at least one scenario FILE is required")
		fs.Usage()
		return errUsage
	}
	subject, ok := harness.Subjects[*subjectName]
	if !ok {
		return fmt.Errorf("unknown -subject %q (known: %s)", *subjectName, strings.Join(harness.SortedNames(harness.Subjects), ", "))
	}
	target, ok := targets.ByName[*targetName]
	if !ok {
		return fmt.Errorf("unknown -target %q (known: %s)", *targetName, strings.Join(targets.Names(), ", "))
	}
	var scs []*scenario.Scenario
	for _, f := range files {
		sc, err := scenario.Load(f)
		if err != nil {
			return err
		}
		scs = append(scs, sc)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	defer targets.CloseShared() //nolint:errcheck // best effort at exit
	failed := 0
	for _, sc := range scs {
		rctx, cancel := context.WithTimeout(ctx, *timeout)
		out, err := scenario.Run(rctx, sc, subject, target)
		cancel()
		if err != nil {
			return err
		}
		printOutcome(stdout, out)
		if *verbose {
			fmt.Fprintf(stdout, "  diagnosis:\n    %s\n", strings.ReplaceAll(out.Diagnose, "\n", "\n    "))
		}
		if !out.Passed() {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d scenario(s) failed", failed, len(scs))
	}
	return nil
}

func printOutcome(w io.Writer, o *scenario.Outcome) {
	verdict := "PASS"
	if !o.Passed() {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "%s %s (subject %s, target %s, %s)\n  %s\n", verdict, o.Scenario.ID, o.Subject, o.Target, o.Duration.Round(time.Millisecond), o.Scenario.Title)
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
