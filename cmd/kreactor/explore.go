package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/kreactor/kreactor/harness/explore"
)

// runExplore implements `kreactor explore`: random schedules on
// a subject against the fake cluster, checked, and shrunk to files. The
// simulations run inside testing/synctest bubbles, which only a test binary
// can open (synctest needs a *testing.T), so this command runs
// harness/explore's TestExplore with `go test` from the module's source
// tree and streams its output.
func runExplore(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("explore", "-subject S [-seeds N] [-first SEED] [-budget D] [-parallel N] [-out DIR] [-shrinktime D] [-replays N] [-groups regular,share] [-replay FILE.json] [-race]", stderr)
	subject := fs.String("subject", "", "subject: reactor (the default), kgo, null in synctest bubbles; baseline (it freezes a bubble's clock), java, java-classic (a JVM per member, brokers on loopback) on the wall clock; with -replay, default the file's")
	seeds := fs.Int("seeds", 100, "schedules to run (seeds first .. first+N-1)")
	first := fs.Uint64("first", 1, "first schedule seed")
	budget := fs.Duration("budget", 10*time.Minute, "wall-time budget for running schedules (0: none)")
	out := fs.String("out", "explore-out", "directory for findings: <subject>-<anomaly>-seed<N>.json (replayable) and .yaml (scenario file)")
	shrink := fs.Duration("shrinktime", time.Minute, "time bound of each shrink (negative: no shrinking)")
	groups := fs.String("groups", "regular,share", "group kinds to draw: regular, share")
	replay := fs.String("replay", "", "run one finding (.json) -replays times and print its anomalies and rate (exit status 1 when any run shows an anomaly)")
	parallel := fs.Int("parallel", 0, "schedules (and replays) at once on the wall clock (0: the number of CPUs); bubble runs are one at a time")
	replays := fs.Int("replays", 10, "replays of each shrunk finding for its rate over replays (negative: none); with -replay, how many runs")
	summary := fs.String("summary", "", "write the summary as JSON to this file")
	race := fs.Bool("race", false, "build with the race detector")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	// Every flag value is checked here, before building or running anything
	// (the test binary checks them again: it can be run without this command).
	if *subject == "" && *replay == "" {
		*subject = "reactor"
	}
	if *subject != "" {
		if err := explore.CheckSubject(*subject); err != nil {
			return badFlag(fs, "-subject: %v", err)
		}
	}
	if *parallel < 0 {
		return badFlag(fs, "-parallel %d: must be >= 0 (0: the number of CPUs)", *parallel)
	}
	if _, err := explore.ParseGroups(*groups); err != nil {
		return badFlag(fs, "-groups: %v", err)
	}
	if *seeds < 1 {
		return badFlag(fs, "-seeds %d: must be >= 1", *seeds)
	}
	if *budget < 0 {
		return badFlag(fs, "-budget %s: must be >= 0", *budget)
	}
	if *out == "" {
		return badFlag(fs, "-out %q: name a directory", *out)
	}
	if *replay != "" {
		if st, err := os.Stat(*replay); err != nil || st.IsDir() {
			return badFlag(fs, "-replay %q: not a readable finding file (.json)", *replay)
		}
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		wd, _ := os.Getwd()
		return filepath.Join(wd, p)
	}
	timeout := 60 * time.Minute
	if *budget > 0 {
		timeout = *budget + 20*max(*shrink, time.Minute) + 5*time.Minute
	}
	if *replay != "" && *replays > 0 {
		timeout = max(timeout, time.Duration(*replays)*time.Minute)
	}
	goArgs := []string{"test", "-run", "^TestExplore$", "-count=1", "-v", "-timeout", timeout.String()}
	if *race {
		goArgs = append(goArgs, "-race")
	}
	goArgs = append(goArgs, "./harness/explore", "-args",
		"-explore.subject="+*subject, fmt.Sprintf("-explore.seeds=%d", *seeds), fmt.Sprintf("-explore.first=%d", *first),
		"-explore.budget="+budget.String(), "-explore.out="+abs(*out), "-explore.shrinktime="+shrink.String(),
		"-explore.groups="+*groups, "-explore.replay="+abs(*replay), "-explore.summary="+abs(*summary),
		fmt.Sprintf("-explore.parallel=%d", *parallel), fmt.Sprintf("-explore.replays=%d", *replays))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cmd := exec.CommandContext(ctx, "go", goArgs...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = root, stdout, stderr
	fmt.Fprintf(stderr, "kreactor explore: go %s (in %s)\n", strings.Join(goArgs, " "), root)
	var exit *exec.ExitError
	if err := cmd.Run(); errors.As(err, &exit) {
		// TestExplore fails on an anomaly (its ANOMALIES line) and on
		// harness errors: either way the exit status says so.
		return fmt.Errorf("exit status %d: an anomaly was found (the ANOMALIES line above) or the harness failed", exit.ExitCode())
	} else if err != nil {
		return err
	}
	return nil
}

// moduleRoot is the kreactor module's source directory: the one `go env
// GOMOD` names from the working directory.
func moduleRoot() (string, error) {
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w (kreactor explore runs from the kreactor source tree)", err)
	}
	mod := strings.TrimSpace(string(b))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside a Go module: run kreactor explore from the kreactor source tree")
	}
	return filepath.Dir(mod), nil
}
