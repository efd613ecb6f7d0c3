package main

// kreactor matrix: the release matrix (make java-matrix) from the
// run files of one real client in several releases.

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/kreactor/kreactor/reports"
)

func runMatrix(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("matrix", "-in FILE[,FILE...] [-subject java] [-target kfake] [-out FILE] [-seconds N] [-command TEXT]", stderr)
	in := fs.String("in", "", "comma-separated Ginkgo --json-report files, one per release of the subject (provenance names each release)")
	subject := fs.String("subject", "java", "the subject whose releases are the columns")
	target := fs.String("target", "kfake", "the target the runs used")
	out := fs.String("out", filepath.Join("reports", "out", "release-matrix.json"), "the matrix as JSON (kreactor report -releases FILE renders it); a .md with the same name is written next to it")
	seconds := fs.Float64("seconds", 0, "how long the runs took (shown with the matrix)")
	command := fs.String("command", "make java-matrix", "the command that reruns it (shown with the matrix)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if math.IsNaN(*seconds) || math.IsInf(*seconds, 0) || *seconds < 0 {
		return badFlag(fs, "-seconds %v: want a finite number of seconds >= 0", *seconds)
	}
	cat, run, err := parseRuns(fs, stderr, *in, reports.Options{})
	if err != nil {
		return err
	}
	m, err := reports.BuildReleaseMatrix(reports.BuildRun(cat, run), *subject, *target)
	if err != nil {
		return err
	}
	m.Seconds, m.Command = *seconds, *command
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	md := strings.TrimSuffix(*out, filepath.Ext(*out)) + ".md"
	if err := os.WriteFile(md, []byte(m.Markdown()), 0o644); err != nil {
		return err
	}
	fmt.Fprint(stdout, m.Markdown())
	fmt.Fprintf(stdout, "wrote %s, %s\n", *out, md)
	if p := m.Problems(); len(p) > 0 {
		for _, line := range p {
			fmt.Fprintf(stderr, "harness error: %s\n", line)
		}
		return fmt.Errorf("%d harness error(s) in the release runs: they say nothing about the client", len(p))
	}
	return nil
}
