// Command kreactor is the kreactor harness CLI.
//
//	kreactor report    [-in FILE[,FILE...]] [-out DIR|-] [-format html,md,json,jira] [-check R,C[,N...]]
//	                   write conformance.html, conformance.md, summary.json, conformance.jira.txt
//	kreactor catalogue [-format text|markdown]                      print the behaviour catalogue
//
//	kreactor run       FILE... [-subject S[,S...]] [-target T]         run scenario files, print verdicts and figures
//	kreactor check     FILE|DIR...                                    validate scenario files (the rules run and the suite apply)
//	kreactor mutants   [-out FILE] [-only NAME,...]                   the kill matrix of the reactor path's mutants (make mutants)
//	kreactor bench     [-targets T,...] [-subjects S,...] [-rounds N]  side-by-side benchmark (benchstat lines, perf JSON)
//	kreactor matrix    -in FILE,... [-subject java] [-out FILE]         release matrix of a real client (make java-matrix)
//	kreactor plan      [-subjects S,...] [-shard i/N] [-exec -out DIR]     units of work and shards of a conformance run
//	kreactor diff      -a A/summary.json -b B/summary.json             verdicts that differ between two reports
//	kreactor lease     [-exclusive] -- COMMAND [ARG...]               run a command holding the machine lease (package machinelease)
//	kreactor explore   -subject S -seeds N [-budget D] [-out DIR]      simulation runs from seeds (make explore)
//	kreactor broker    [-brokers N] [-topics T:P,...] [-control ADDR]  a fake cluster with an HTTP control API, until SIGTERM
//	kreactor proxy     -upstream HOST:PORT [-control ADDR]             the same API in front of a real cluster
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/catalogue"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reports"
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
	{"report", "read Ginkgo JSON reports and write DIR/conformance.html, conformance.md, summary.json and conformance.jira.txt", runReport},
	{"catalogue", "print the catalogue of KIP-1371 properties, scenarios and regressions", runCatalogue},
	{"run", "run scenario files against subjects and a target and print verdicts, figures and (several subjects) whether each discriminates", runScenario},
	{"check", "validate scenario files with the rules run and the suite apply, naming file, line and key", checkScenarios},
	{"mutants", "run the regression specs and scenario files on each mutant of the reactor path (build tag mutants) and write the kill matrix", runMutants},
	{"bench", "side-by-side benchmark: reactor, baseline, kgo and Java on kfake and real Kafka (benchstat lines, perf JSON)", runBench},
	{"explore", "simulation runs: random fault schedules from seeds on a subject (kfake in a synctest bubble; java on the wall clock over loopback), a history checker, failing schedules shrunk to .json and scenario .yaml files; exit 1 on any anomaly", runExplore},
	{"broker", "serve a fake Kafka cluster until SIGTERM with an HTTP control API (faults, request log, groups, topics)", runBroker},
	{"proxy", "front a real Kafka cluster until SIGTERM, recording requests and injecting faults, with the same HTTP control API", runProxy},
	{"matrix", "release matrix: regression x release of a real client (make java-matrix) from its per-release run files, as JSON and Markdown", runMatrix},
	{"plan", "the units of work of a conformance run (suite x spec x subject x target x release x run), shards balanced by measured durations; -exec runs one shard", runPlan},
	{"lease", "run a command holding the machine lease (shared, or -exclusive) that specs judging CPU or timing take exclusively across every harness process", runLease},
	{"diff", "compare the verdicts (rows, item statuses, the check) of two summary.json files; fails when they differ", runDiff},
	{"tracepath", "the path of each answer inside a Go client, from the network wake-up to Poll's return, in the execution traces of bench -traces: read, each goroutine's work and each hand-off's wait", runTracepath},
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
		var status exitStatus
		switch {
		case err == nil:
			return 0
		case errors.Is(err, errUsage):
			return 2
		case errors.As(err, &status):
			return int(status)
		default:
			fmt.Fprintf(stderr, "kreactor %s: %v\n", name, err)
			return 1
		}
	}
	planned := ""
	if p := names(false); len(p) > 0 {
		planned = " (not yet implemented: " + strings.Join(p, ", ") + ")"
	}
	fmt.Fprintf(stderr, "kreactor: unknown command %q; known commands: %s%s\n", name, strings.Join(names(true), ", "), planned)
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

// badFlag prints msg (which names the flag and its bad value) and the
// usage, and returns errUsage (exit 2).
func badFlag(fs *flag.FlagSet, format string, a ...any) error {
	fmt.Fprintf(fs.Output(), format+"\n", a...)
	fs.Usage()
	return errUsage
}

// reportFormats are the files `kreactor report` can write, by -format name.
var reportFormats = []struct {
	name, file string
	write      func(io.Writer, reports.Report) error
}{
	{"html", "conformance.html", reports.WriteHTML},
	{"md", "conformance.md", reports.WriteMarkdown},
	{"json", "summary.json", reports.WriteJSON},
	{"jira", "conformance.jira.txt", reports.WriteJira},
}

func formatNames() []string {
	var out []string
	for _, f := range reportFormats {
		out = append(out, f.name)
	}
	return out
}

func runReport(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", "[-in FILE[,FILE...]] [-out DIR|-] [-format html,md,json,jira] [-lenient] [-strict-provenance] [-check REFERENCE,CONTROL[,NULL...]] [-mutants FILE] [-perf FILE] [-releases FILE] [-findings] [-explore DIR]", stderr)
	in := fs.String("in", filepath.Join("reports", "out", "ginkgo.json"),
		"comma-separated Ginkgo --json-report files to merge (e.g. one per subject, target and repeat)")
	out := fs.String("out", filepath.Join("reports", "out"), "directory for the reports; - writes the one -format given to stdout")
	format := fs.String("format", strings.Join(formatNames(), ","),
		"comma-separated formats to write: html (conformance.html), md (conformance.md), json (summary.json), jira (conformance.jira.txt: Jira wiki markup for "+reports.UmbrellaJira+")")
	lenient := fs.Bool("lenient", false,
		"keep specs without an id: label (id derived from the spec text) and duplicate spec ids as warnings instead of failing")
	strictProv := fs.Bool("strict-provenance", false,
		"refuse run files that measured different code (commit, dirty tree) instead of keeping the newest run's and listing the others as not merged")
	check := fs.String("check", "",
		"REFERENCE,CONTROL[,NULL...] subjects (e.g. reactor,baseline,null): every item must pass on REFERENCE, every regression spec must fail on CONTROL on one of its declared signals and on each NULL control (a consumer that never sends) on one of its liveness keys; exit 1 otherwise (the report is written first)")
	mutants := fs.String("mutants", "", "kill matrix JSON (make mutants) to show as the mutation section")
	releases := fs.String("releases", "", "release matrix JSON (make java-matrix) to show as the release matrix section")
	perf := fs.String("perf", "", "benchmark JSON (make bench) to show as the perf section")
	findings := fs.Bool("findings", false, "print the findings of the -releases matrix (default reports/out/release-matrix.json): per regression, the release its shape starts (regressed in) or stops (fixed in) reproducing on, with the rates per release, the spec, the command and a Jira-markup block; also written to -out as findings.md and findings.jira.txt. -in is not read")
	exploreDir := fs.String("explore", "", "print the simulation findings `kreactor explore` wrote to DIR (anomaly, subject, release, shrunk file, rate over replays, classification, replay command); also written to -out as explore-findings.md. -in is not read")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *exploreDir != "" {
		return writeExploreFindings(*exploreDir, *out, stdout)
	}
	if *findings {
		path := *releases
		if path == "" {
			path = filepath.Join("reports", "out", "release-matrix.json")
		}
		return writeFindings(path, *out, stdout)
	}
	reference, control, nulls, ok := parseCheck(*check)
	if !ok {
		fmt.Fprintf(stderr, "-check %q: want REFERENCE,CONTROL[,NULL...], different subjects\n", *check)
		fs.Usage()
		return errUsage
	}
	formats, err := parseFormats(*format, *out, stderr)
	if err != nil {
		fs.Usage()
		return err
	}
	cat, run, err := parseRuns(fs, stderr, *in, reports.Options{Lenient: *lenient, StrictProvenance: *strictProv})
	if err != nil {
		return err
	}
	rep := reports.BuildRun(cat, run)
	var checkErr error
	if *check != "" {
		checkErr = applyCheck(&rep, *check, reference, control, nulls)
	}
	if err := loadSections(&rep, *mutants, *perf, *releases); err != nil {
		return err
	}
	rep.ErrorClasses = errorClassification()

	written, err := writeReports(rep, formats, *out, stdout)
	if err != nil {
		return err
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	msg := stdout
	if *out == "-" {
		msg = stderr
	}
	if len(written) > 0 {
		fmt.Fprintf(msg, "wrote %s (%d specs from %d file(s))\n", strings.Join(written, ", "), rep.Totals.Specs, len(splitList(*in)))
	}
	if checkErr != nil {
		return checkErr
	}
	return checkOutcome(rep.Expect, written, msg, stderr)
}

// parseCheck splits -check's REFERENCE,CONTROL[,NULL...]; ok is false for
// fewer than two names, an empty one or a repeated one. An empty -check is ok.
func parseCheck(check string) (reference, control string, nulls []string, ok bool) {
	if check == "" {
		return "", "", nil, true
	}
	names := strings.Split(check, ",")
	seen := map[string]bool{}
	bad := len(names) < 2
	for _, n := range names {
		bad = bad || n == "" || seen[n]
		seen[n] = true
	}
	if bad {
		return "", "", nil, false
	}
	return names[0], names[1], names[2:], true
}

// parseFormats checks -format against the known formats: at least one, and
// exactly one with -out -.
func parseFormats(format, out string, stderr io.Writer) ([]string, error) {
	var formats []string
	for _, f := range splitList(format) {
		if !slices.Contains(formatNames(), f) {
			fmt.Fprintf(stderr, "unknown -format %q (want some of %s)\n", f, strings.Join(formatNames(), ", "))
			return nil, errUsage
		}
		formats = append(formats, f)
	}
	if len(formats) == 0 || (out == "-" && len(formats) != 1) {
		fmt.Fprintf(stderr, "-format %q: name at least one format, and exactly one with -out -\n", format)
		return nil, errUsage
	}
	return formats, nil
}

// applyCheck sets rep's expectations for the -check subjects, or returns
// the error the run fails with after writing the report when one of them
// ran no spec (the report is then written without expectations).
func applyCheck(rep *reports.Report, check, reference, control string, nulls []string) error {
	ran := map[string]bool{}
	var ranNames []string
	for _, c := range rep.Columns {
		if !ran[c.Subject] {
			ran[c.Subject] = true
			ranNames = append(ranNames, c.Subject)
		}
	}
	slices.Sort(ranNames)
	for _, n := range append([]string{reference, control}, nulls...) {
		if !ran[n] {
			return fmt.Errorf("-check %q: subject %q is unknown to the -in files: no spec ran on it (subjects that ran: %s)", check, n, strings.Join(ranNames, ", "))
		}
	}
	ex := rep.Check(reference, control, nulls...)
	rep.Expect = &ex
	return nil
}

// loadSections reads the optional sections later tools write: the kill
// matrix, the benchmark and the release matrix ("" leaves one out).
func loadSections(rep *reports.Report, mutants, perf, releases string) error {
	var err error
	if mutants != "" {
		if rep.Mutants, err = reports.LoadKillMatrix(mutants); err != nil {
			return fmt.Errorf("-mutants %s: %w", mutants, err)
		}
	}
	if perf != "" {
		if rep.Perf, err = reports.LoadPerf(perf); err != nil {
			return fmt.Errorf("-perf %s: %w", perf, err)
		}
	}
	if releases != "" {
		if rep.Releases, err = reports.LoadReleaseMatrix(releases); err != nil {
			return fmt.Errorf("-releases %s: %w", releases, err)
		}
	}
	return nil
}

// writeReports writes each format of rep into out (or the one format to
// stdout for -out -) and returns the paths written.
func writeReports(rep reports.Report, formats []string, out string, stdout io.Writer) ([]string, error) {
	var written []string
	for _, rf := range reportFormats {
		if !slices.Contains(formats, rf.name) {
			continue
		}
		if out == "-" {
			if err := rf.write(stdout, rep); err != nil {
				return nil, err
			}
			continue
		}
		if err := os.MkdirAll(out, 0o755); err != nil {
			return nil, err
		}
		path := filepath.Join(out, rf.file)
		if err := writeFile(path, func(w io.Writer) error { return rf.write(w, rep) }); err != nil {
			return nil, err
		}
		written = append(written, path)
	}
	return written, nil
}

// checkOutcome reports the expectations: each broken one on stderr and an
// error, or the line saying they hold.
func checkOutcome(ex *reports.Expectations, written []string, msg, stderr io.Writer) error {
	if ex == nil {
		return nil
	}
	for _, p := range ex.Problems {
		fmt.Fprintf(stderr, "expectation broken: %s\n", p)
	}
	if len(ex.Problems) > 0 {
		return fmt.Errorf("%d expectation(s) broken (reference %s, control %s); see %s", len(ex.Problems), ex.Reference, ex.Control, strings.Join(written, ", "))
	}
	fmt.Fprintf(msg, "expectations hold: every item passes on %s, every regression spec fails on %s on its signal", ex.Reference, ex.Control)
	for _, n := range ex.Nulls {
		fmt.Fprintf(msg, " and on %s on a liveness key", n)
	}
	fmt.Fprintln(msg)
	return nil
}

// parseRuns parses the Ginkgo JSON reports -in names (comma-separated) with
// opt and loads the catalogue. An -in naming no file is a usage error, a
// run without specs an error (ranSomething).
func parseRuns(fs *flag.FlagSet, stderr io.Writer, in string, opt reports.Options) (catalogue.Catalogue, reports.Run, error) {
	paths := splitList(in)
	if len(paths) == 0 {
		fmt.Fprintln(stderr, "-in names no file")
		fs.Usage()
		return catalogue.Catalogue{}, reports.Run{}, errUsage
	}
	cat, err := catalogue.Load()
	if err != nil {
		return cat, reports.Run{}, err
	}
	run, err := reports.ParseFiles(paths, opt)
	if err != nil {
		return cat, run, err
	}
	return cat, run, ranSomething(run)
}

// ranSomething fails when no spec ran in any merged file: a label filter that matches
// nothing must not pass as an empty green report.
func ranSomething(run reports.Run) error {
	for _, r := range run.Rows {
		if r.Verdict != reports.VerdictSkipped && r.Verdict != reports.VerdictPending {
			return nil
		}
	}
	var filters []string
	for _, s := range run.Suites {
		if s.LabelFilter != "" && !slices.Contains(filters, s.LabelFilter) {
			filters = append(filters, s.LabelFilter)
		}
	}
	if len(filters) > 0 {
		return fmt.Errorf("no spec ran: label filter %q matched no spec (%d rows, all skipped or pending)", strings.Join(filters, `", "`), len(run.Rows))
	}
	return fmt.Errorf("no spec ran (%d rows, all skipped or pending): check the label filter or focus", len(run.Rows))
}

// errorClassification is the error-classification table (API x error -> class), one row per
// row of the managers' own table (managers.ErrorTable), so the report shows the code's
// decisions, not a copy of them: the error with its scope and code, the class, what the Java
// 4.4.0 consumer does, and why the managers differ where they do.
func errorClassification() []reports.ErrorClass {
	rows := managers.ErrorTable()
	out := make([]reports.ErrorClass, 0, len(rows))
	for _, r := range rows {
		name := r.ErrorName()
		if r.Match == managers.MatchCode {
			name = fmt.Sprintf("%s (%d)", name, r.Code())
		}
		if r.Match != managers.MatchTransport {
			name = r.Scope.String() + ": " + name
		}
		out = append(out, reports.ErrorClass{API: kmsg.NameForKey(int16(r.API)), Error: name, Class: r.ClassName(), Note: r.Java, Differs: r.Differs})
	}
	return out
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
	fs := newFlagSet("catalogue", "[-kind KIND] [-format text|markdown|label-filter]", stderr)
	format := fs.String("format", "text", "output format: text (aligned columns), markdown (a table) or label-filter (a Ginkgo label filter selecting the specs that cover the items: covers:A || covers:B)")
	kind := fs.String("kind", "", "only the items of this kind (regression, property, contract, ...)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	cat, err := catalogue.Load()
	if err != nil {
		return err
	}
	if *kind != "" {
		var items []catalogue.Item
		for _, it := range cat.Items {
			if string(it.Kind) == *kind {
				items = append(items, it)
			}
		}
		if len(items) == 0 {
			fmt.Fprintf(stderr, "-kind %q: no catalogue item is of that kind\n", *kind)
			return errUsage
		}
		cat.Items = items
	}
	if *format == "label-filter" {
		covers := make([]string, len(cat.Items))
		for i, it := range cat.Items {
			covers[i] = "covers:" + it.ID
		}
		fmt.Fprintln(stdout, strings.Join(covers, " || "))
		return nil
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
	fmt.Fprintf(stderr, "unknown -format %q (want text, markdown or label-filter)\n", *format)
	fs.Usage()
	return errUsage
}
