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
	fs := newFlagSet("diff", "A/summary.json B/summary.json", stderr)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return badFlag(fs, "want two summary.json files, got %d arguments", fs.NArg())
	}
	var vs [2]reports.Verdicts
	for i, p := range fs.Args() {
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
		return errors.New(fmt.Sprint(len(diff), " verdicts differ between ", fs.Arg(0), " and ", fs.Arg(1)))
	}
	fmt.Fprintf(stdout, "%d verdicts agree\n", len(vs[0]))
	return nil
}
