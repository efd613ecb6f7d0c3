package bench

import (
	"context"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kreactor/kreactor/fakebroker"
)

// Turns go to every topic in order, each turn starting one topic further
// on, every topic gets exactly its records, and the last turn may be
// short.
func TestAlternate(t *testing.T) {
	got := alternate([]string{"a", "b", "c"}, 5, 2)
	want := []produceSlice{{"a", 2}, {"b", 2}, {"c", 2}, {"b", 2}, {"c", 2}, {"a", 2}, {"c", 1}, {"a", 1}, {"b", 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("alternate:\n got %v\nwant %v", got, want)
	}
	per := map[string]int{}
	for _, s := range alternate([]string{"x", "y"}, 10_000, 1000) {
		per[s.topic] += s.records
	}
	if per["x"] != 10_000 || per["y"] != 10_000 {
		t.Fatalf("records per topic %v", per)
	}
}

// The alternating kind end to end on kfake, children and all: every
// subject's job reads every record of its own topic, and the producer
// wrote the topics in turns while both consumers were in their timed part
// (a record produced in the other's turn lands within the job's wall).
func TestRunAlternating(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Targets, o.Subjects, o.Kinds = []string{TargetKfake}, []string{SubjectReactor, SubjectKgo}, []string{KindAlternating}
	o.LatencyRate, o.LatencyDuration, o.LatencyRounds, o.AlternateEvery = 200, time.Second, 1, 250*time.Millisecond
	o.JobTimeout, o.Exe = 30*time.Second, exe
	var lines strings.Builder
	o.Bench = &lines
	start := time.Now()
	results, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var alt []Result
	for _, r := range results {
		if r.Job.Kind == KindAlternating {
			alt = append(alt, r)
		}
	}
	if len(alt) != 2 {
		t.Fatalf("%d alternating results, want 2: %+v", len(alt), results)
	}
	for _, r := range alt {
		if r.Err != "" || r.Latency == nil || r.Latency.N != 200 || r.Records+r.Untimed != 200 {
			t.Fatalf("%s: %+v latency %+v", r.Job.Subject, r, r.Latency)
		}
		// Two subjects, 1 s each in turns: each job's timed part spans
		// about both seconds, not its own one.
		if r.Wall < 1500*time.Millisecond || r.Wall > time.Since(start) {
			t.Errorf("%s: timed part %s: want about 2 s (both subjects' turns)", r.Job.Subject, r.Wall)
		}
	}
	for _, want := range []string{"BenchmarkLatencyAlternating/target=kfake/subject=reactor\t1\t", "BenchmarkLatencyAlternating/target=kfake/subject=kgo\t1\t"} {
		if !strings.Contains(lines.String(), want) {
			t.Errorf("lines lack %q:\n%s", want, lines.String())
		}
	}
	if strings.Contains(lines.String(), "ns-cpu/record") {
		t.Errorf("an alternating line has CPU per record (it spans the other turns):\n%s", lines.String())
	}
}

// A child that ends before it is ready (here: its job is invalid) stops
// the round: nothing is produced, and the other child, ready later, is
// stopped with that error rather than left waiting out its timeout for
// records.
func TestTogetherChildNeverReady(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	br, err := fakebroker.Start(fakebroker.Config{Brokers: 1, Topics: map[string]int32{"t": 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	r := &runner{o: Options{Exe: exe, Log: io.Discard}, log: slog.New(slog.DiscardHandler)}
	good := Job{Kind: KindAlternating, Subject: SubjectKgo, Target: TargetKfake, Addrs: br.Addrs(), Topic: "t", Group: "g-good",
		Partitions: 1, Records: 10, MaxPollRecords: 10, Timeout: 20 * time.Second, StampAt: 0}
	bad := good
	bad.Group, bad.Partitions = "g-bad", 0
	ran := false
	res := r.together(context.Background(), []Job{good, bad}, func() error { ran = true; return nil })
	if ran {
		t.Fatal("produced although a child ended before it was ready")
	}
	if !strings.Contains(res[1].Err, "partitions 0") {
		t.Errorf("the invalid job's result: %+v", res[1])
	}
	if want := "kgo (g-bad) ended before it was ready"; !strings.Contains(res[0].Err, want) {
		t.Errorf("the other job's error %q lacks %q", res[0].Err, want)
	}
	if strings.Contains(res[0].Err, "deadline exceeded") {
		t.Errorf("the other job waited out its timeout: %q", res[0].Err)
	}
}
