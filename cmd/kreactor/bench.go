package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/kreactor/kreactor/bench"
)

// runBench implements `kreactor bench`: the side-by-side benchmark of issue
// 15 (package bench). With -job it is the child that runs one measurement.
func runBench(args []string, stdout, stderr io.Writer) error {
	d := bench.DefaultOptions()
	fs := newFlagSet("bench", "[-targets kfake,kafka] [-subjects S,...] [-kinds throughput,latency,latency-alternating,backlog,idle] [-rounds 5] [-out FILE] [-perf FILE] [-profiles DIR] [-traces DIR]", stderr)
	targets := fs.String("targets", strings.Join(d.Targets, ","), "targets: "+strings.Join(bench.Targets, ", "))
	subjects := fs.String("subjects", strings.Join(d.Subjects, ","), "subjects: "+strings.Join(bench.Subjects, ", ")+" ("+bench.SubjectKgoTwin+", the A/A control, only when named)")
	kinds := fs.String("kinds", strings.Join(d.Kinds, ","), "measurements: "+strings.Join(bench.Kinds, ", "))
	fs.IntVar(&d.Rounds, "rounds", d.Rounds, "interleaved throughput rounds")
	fs.IntVar(&d.Records, "records", d.Records, "throughput records")
	fs.StringVar(&d.Values, "values", d.Values, "record values: random (incompressible, uncompressed) or zero (snappy)")
	fs.IntVar(&d.MaxPollRecords, "max-poll-records", d.MaxPollRecords, "max.poll.records of every subject")
	fs.DurationVar(&d.LatencyDuration, "latency-duration", d.LatencyDuration, "latency: how long records are produced")
	fs.IntVar(&d.LatencyRate, "latency-rate", d.LatencyRate, "latency: records per second")
	fs.IntVar(&d.LatencyRounds, "latency-rounds", d.LatencyRounds, "latency, latency-alternating: rounds (the order of the subjects changed each round)")
	fs.DurationVar(&d.AlternateEvery, "alternate-every", d.AlternateEvery, "latency-alternating: one subject's turn of records")
	fs.IntVar(&d.BacklogRecords, "backlog", d.BacklogRecords, "backlog: records waiting")
	fs.DurationVar(&d.IdleWindow, "idle-window", d.IdleWindow, "idle: measured window")
	fs.IntVar(&d.IdleRounds, "idle-rounds", d.IdleRounds, "idle: rounds (every subject idle together in each)")
	fs.StringVar(&d.ProfileDir, "profiles", "", "directory for CPU and allocation profiles of each Go subject's throughput and latency jobs, and CPU profiles of its idle jobs (latency and idle CPU profiles at 1000 Hz)")
	fs.StringVar(&d.TraceDir, "traces", "", "directory for a runtime execution trace of each Go subject's latency jobs (read them with kreactor tracepath; the tracer slows what it traces)")
	out := fs.String("out", "-", "benchmark lines (benchstat format); - for stdout")
	perf := fs.String("perf", "", "perf table JSON for `kreactor report -perf`")
	job := fs.String("job", "", "(child) run one measurement given as JSON and write its result to stdout")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *job != "" {
		return bench.ServeJob(ctx, *job, stdout)
	}
	d.Targets, d.Subjects, d.Kinds = split(*targets), split(*subjects), split(*kinds)
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	d.Exe, d.Log, d.Bench = exe, stderr, stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		d.Bench = io.MultiWriter(f, stdout)
	}
	start := time.Now()
	results, err := bench.Run(ctx, d)
	if len(results) > 0 {
		t := bench.Perf(d, results)
		fmt.Fprintln(stderr)
		bench.WriteSummary(stderr, t)
		if *perf != "" {
			if werr := bench.WritePerf(*perf, t); werr != nil && err == nil {
				err = werr
			}
		}
	}
	fmt.Fprintf(stderr, "kreactor bench: %d jobs in %s\n", len(results), time.Since(start).Round(time.Second))
	if err != nil {
		return err
	}
	for _, r := range results {
		if r.Err != "" {
			return fmt.Errorf("%d of %d jobs failed (see the FAILED lines)", failed(results), len(results))
		}
	}
	return nil
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func failed(rs []bench.Result) int {
	n := 0
	for _, r := range rs {
		if r.Err != "" {
			n++
		}
	}
	return n
}
