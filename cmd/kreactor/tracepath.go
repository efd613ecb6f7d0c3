package main

import (
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
	files, err := filesAndFlags(fs, args, stderr, "trace FILE")
	if files == nil {
		return err // -h (nil) or no file (errUsage)
	}
	for i, name := range files {
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
