// Command kreactor is the kreactor harness CLI.
//
//	kreactor report    [-in FILE[,FILE...]] [-out DIR] [-lenient]   write conformance.md and summary.json
//	kreactor catalogue [-format text|markdown]                      print the behaviour catalogue
//
//	kreactor run       FILE... [-subject S] [-target T]                run scenario files, print verdicts and figures
//
// `broker` (standalone fault-injecting fake broker) is planned.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/kreactor/kreactor/reports"
	"github.com/kreactor/kreactor/specs/catalogue"
)

// command is one subcommand. run gets the arguments after the subcommand name; it returns
// errUsage (after printing usage) for bad flags.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error // nil: planned, not yet implemented
}

// commands is the subcommand table, in the order help lists it. Add new subcommands here.
var commands = []command{
	{"report", "read Ginkgo JSON reports and write DIR/conformance.md and DIR/summary.json", runReport},
	{"catalogue", "print the catalogue of KIP-1371 properties, scenarios and regressions", runCatalogue},
	{"broker", "start the standalone fault-injecting fake broker", nil},
	{"run", "run scenario files against a subject and target and print verdicts and figures", runScenario},
}

// errUsage means the usage text was already printed; main only sets the exit status.
var errUsage = errors.New("usage")

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the CLI and returns the exit status: 0 ok, 1 failure, 2 usage error.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	name := args[0]
	for _, c := range commands {
		if c.name != name {
			continue
		}
		if c.run == nil {
			fmt.Fprintf(stderr, "kreactor %s: not yet implemented (available: %s)\n", name, strings.Join(names(true), ", "))
			return 2
		}
		err := c.run(args[1:], stdout, stderr)
		switch {
		case err == nil:
			return 0
		case errors.Is(err, errUsage):
			return 2
		default:
			fmt.Fprintf(stderr, "kreactor %s: %v\n", name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "kreactor: unknown command %q; known commands: %s (not yet implemented: %s)\n",
		name, strings.Join(names(true), ", "), strings.Join(names(false), ", "))
	return 2
}

// names lists the implemented (or, with implemented false, the planned) subcommands.
func names(implemented bool) []string {
	var out []string
	for _, c := range commands {
		if (c.run != nil) == implemented {
			out = append(out, c.name)
		}
	}
	return out
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: kreactor <command> [flags]\n\ncommands:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range commands {
		s := c.summary
		if c.run == nil {
			s += " (not yet implemented)"
		}
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, s)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nRun 'kreactor <command> -h' for a command's flags.")
}

// newFlagSet makes a subcommand's FlagSet that reports errors instead of exiting.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("kreactor "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: kreactor %s %s\n\nflags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args; -h is success (exit 0 after usage), other errors are errUsage.
func parseFlags(fs *flag.FlagSet, args []string) (help bool, err error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return true, nil
		}
		return false, errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "unexpected arguments: %s\n", strings.Join(fs.Args(), " "))
		fs.Usage()
		return false, errUsage
	}
	return false, nil
}

func runReport(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", "[-in FILE[,FILE...]] [-out DIR] [-lenient] [-check REFERENCE,CONTROL]", stderr)
	in := fs.String("in", filepath.Join("reports", "out", "ginkgo.json"),
		"comma-separated Ginkgo --json-report files to merge (e.g. one per target)")
	out := fs.String("out", filepath.Join("reports", "out"), "directory for conformance.md and summary.json")
	lenient := fs.Bool("lenient", false,
		"keep specs without an id: label (id derived from the spec text) and duplicate spec ids as warnings instead of failing")
	check := fs.String("check", "",
		"REFERENCE,CONTROL subjects (e.g. reactor,baseline): every item must pass on REFERENCE and every regression spec fail on CONTROL; exit 1 otherwise (the report is written first)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	var reference, control string
	if *check != "" {
		var ok bool
		reference, control, ok = strings.Cut(*check, ",")
		if !ok || reference == "" || control == "" || reference == control {
			fmt.Fprintf(stderr, "-check %q: want REFERENCE,CONTROL, two different subjects\n", *check)
			fs.Usage()
			return errUsage
		}
	}
	var paths []string
	for _, p := range strings.Split(*in, ",") {
		if p = strings.TrimSpace(p); p != "" {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		fmt.Fprintln(stderr, "-in names no file")
		fs.Usage()
		return errUsage
	}
	cat, err := catalogue.Load()
	if err != nil {
		return err
	}
	run, err := reports.ParseFiles(paths, reports.Options{Lenient: *lenient})
	if err != nil {
		return err
	}
	rep := reports.BuildRun(cat, run)
	if *check != "" {
		ex := rep.Check(reference, control)
		rep.Expect = &ex
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	md := filepath.Join(*out, "conformance.md")
	js := filepath.Join(*out, "summary.json")
	if err := writeFile(md, func(w io.Writer) error { return reports.WriteMarkdown(w, rep) }); err != nil {
		return err
	}
	if err := writeFile(js, func(w io.Writer) error { return reports.WriteJSON(w, rep) }); err != nil {
		return err
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	fmt.Fprintf(stdout, "wrote %s and %s (%d specs from %d file(s))\n", md, js, rep.Totals.Specs, len(paths))
	if ex := rep.Expect; ex != nil {
		for _, p := range ex.Problems {
			fmt.Fprintf(stderr, "expectation broken: %s\n", p)
		}
		if len(ex.Problems) > 0 {
			return fmt.Errorf("%d expectation(s) broken (reference %s, control %s); see %s", len(ex.Problems), reference, control, md)
		}
		fmt.Fprintf(stdout, "expectations hold: every item passes on %s, every regression spec fails on %s\n", reference, control)
	}
	return nil
}

// writeFile writes via a temporary file in the same directory and renames it into place, so
// a failed run never leaves a half-written report.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // no-op after a successful rename
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

func runCatalogue(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("catalogue", "[-format text|markdown]", stderr)
	format := fs.String("format", "text", "output format: text (aligned columns) or markdown (a table)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	cat, err := catalogue.Load()
	if err != nil {
		return err
	}
	excluded := func(it catalogue.Item) string {
		var ts []string
		for _, e := range it.TargetsExcluded {
			ts = append(ts, e.Target)
		}
		if len(ts) == 0 {
			return "-"
		}
		return strings.Join(ts, ",")
	}
	switch *format {
	case "text":
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tKIND\tSHAPE\tSOURCE\tEXCLUDED\tTITLE")
		for _, it := range cat.Items {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", it.ID, it.Kind, it.Shape, it.Source, excluded(it), it.Title)
		}
		return tw.Flush()
	case "markdown":
		esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
		fmt.Fprintln(stdout, "| ID | Kind | Shape | Source | Excluded targets | Statement |")
		fmt.Fprintln(stdout, "| --- | --- | --- | --- | --- | --- |")
		for _, it := range cat.Items {
			fmt.Fprintf(stdout, "| %s | %s | %s | %s | %s | %s |\n",
				it.ID, it.Kind, it.Shape, esc(it.Source), esc(excluded(it)), esc(it.Title))
		}
		return nil
	}
	fmt.Fprintf(stderr, "unknown -format %q (want text or markdown)\n", *format)
	fs.Usage()
	return errUsage
}
