package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/kreactor/kreactor/bench/tracepath"
)

// runTracepath implements `kreactor tracepath`: the in-client path of each
// answer in the execution traces `kreactor bench -traces` wrote (package
// tracepath), one table per file for its most common shape (-all: every
// shape).
func runTracepath(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("tracepath", "[-app FUNC] [-all] FILE.trace...", stderr)
	app := fs.String("app", tracepath.DefaultApp, "the application goroutine: a function it blocks in (substring of the name)")
	all := fs.Bool("all", false, "every path shape, not only the most common")
	if err := fs.Parse(args); err != nil { // not parseFlags: files follow the flags
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return errUsage
	}
	if fs.NArg() == 0 {
		return badFlag(fs, "no trace file given")
	}
	for i, name := range fs.Args() {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if err := tracepathFile(stdout, name, *app, *all); err != nil {
			return err
		}
	}
	return nil
}

func tracepathFile(w io.Writer, name, app string, all bool) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	res, err := tracepath.ReadPaths(f, app)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	fmt.Fprintf(w, "== %s\n", name)
	for i, s := range tracepath.Summarize(res.Paths) {
		if i > 0 && !all {
			break
		}
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := tracepath.Write(w, s, res); err != nil {
			return err
		}
	}
	return nil
}
