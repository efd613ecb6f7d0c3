package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/kreactor/kreactor/reports"
)

// runDiff compares the verdicts of two summary.json files (reports.Verdicts):
// a sharded run against the unsharded one, a parallel run against a serial
// one. It prints every difference and fails when there is one.
func runDiff(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("diff", "-a A/summary.json -b B/summary.json", stderr)
	a := fs.String("a", "", "the first report's summary.json (e.g. the unsharded run)")
	b := fs.String("b", "", "the second report's summary.json (e.g. the shards' merged report)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *a == "" || *b == "" {
		return badFlag(fs, "-a %q, -b %q: want two summary.json files", *a, *b)
	}
	var vs [2]reports.Verdicts
	for i, p := range []string{*a, *b} {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		vs[i], err = reports.ReadVerdicts(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	diff := vs[0].Diff(vs[1])
	for _, d := range diff {
		fmt.Fprintln(stdout, d)
	}
	if len(diff) > 0 {
		return errors.New(fmt.Sprint(len(diff), " verdicts differ between ", *a, " and ", *b))
	}
	fmt.Fprintf(stdout, "%d verdicts agree\n", len(vs[0]))
	return nil
}
