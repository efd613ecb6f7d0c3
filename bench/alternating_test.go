package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kreactor/kreactor/bench/tracepath"
	"github.com/kreactor/kreactor/fakebroker"
)

// Turns go to the topics in order, every topic gets exactly its records,
// and a topic's last turn may be short.
func TestTurns(t *testing.T) {
	type turn struct {
		topic   string
		records int
	}
	collect := func(topics []string, records, every int) (out []turn) {
		for topic, n := range turns(topics, records, every) {
			out = append(out, turn{topic, n})
		}
		return out
	}
	got := collect([]string{"a", "b", "c"}, 5, 2)
	want := []turn{{"a", 2}, {"b", 2}, {"c", 2}, {"a", 2}, {"b", 2}, {"c", 2}, {"a", 1}, {"b", 1}, {"c", 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("turns:\n got %v\nwant %v", got, want)
	}
	if got := collect([]string{"t"}, 7, 7); !slices.Equal(got, []turn{{"t", 7}}) {
		t.Fatalf("one topic, one turn: %v", got)
	}
	// Two subjects take single turns: x y x y, never x y y x (which
	// would make every turn but the first and last twice as long).
	per := map[string]int{}
	for i, s := range collect([]string{"x", "y"}, 10_000, 1000) {
		if want := []string{"x", "y"}[i%2]; s.topic != want || s.records != 1000 {
			t.Fatalf("turn %d: %v, want %s with 1000 records", i, s, want)
		}
		per[s.topic] += s.records
	}
	if per["x"] != 10_000 || per["y"] != 10_000 {
		t.Fatalf("records per topic %v", per)
	}
}

// Each subject's turn follows each of the other subjects' turns in as
// many rounds, and each subject goes first in as many: with three subjects
// six rounds take all six orders; with two, four rounds take both twice.
func TestTurnOrder(t *testing.T) {
	for _, tc := range []struct {
		subjects []string
		rounds   int
	}{{[]string{"r", "k", "t"}, 6}, {[]string{"r", "k"}, 4}} {
		n := len(tc.subjects)
		seen := map[string]int{}
		first := map[string]int{}
		follows := map[[2]string]int{} // {subject, the one whose turn comes before it}
		for round := range tc.rounds {
			order := turnOrder(tc.subjects, round)
			if got := slices.Sorted(slices.Values(order)); !slices.Equal(got, slices.Sorted(slices.Values(tc.subjects))) {
				t.Fatalf("round %d: order %v is not the subjects %v", round, order, tc.subjects)
			}
			seen[strings.Join(order, "")]++
			first[order[0]]++
			for i, s := range order {
				follows[[2]string{s, order[(i+n-1)%n]}]++ // turns cycle: the first follows the last
			}
		}
		perms := 1
		for i := 2; i <= n; i++ {
			perms *= i
		}
		if len(seen) != min(perms, tc.rounds) {
			t.Errorf("%v over %d rounds: orders %v, want %d different", tc.subjects, tc.rounds, seen, min(perms, tc.rounds))
		}
		for _, s := range tc.subjects {
			if first[s] != tc.rounds/n {
				t.Errorf("%v: %s first in %d of %d rounds, want %d", tc.subjects, s, first[s], tc.rounds, tc.rounds/n)
			}
			for _, p := range tc.subjects {
				if p == s {
					continue
				}
				if want := tc.rounds / (n - 1); follows[[2]string{s, p}] != want {
					t.Errorf("%v: %s follows %s in %d of %d rounds, want %d", tc.subjects, s, p, follows[[2]string{s, p}], tc.rounds, want)
				}
			}
		}
	}
}

// The alternating kind end to end on kfake, children and all, with the A/A
// control as a third subject: every subject's job reads every record of
// its own topic, and its timed part spans the other subjects' turns too,
// not its own 1 s of records.
func TestRunAlternating(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	// kgo-twin, the A/A control, runs as a subject of its own: its own
	// topic, group, line and trace.
	o.Targets, o.Subjects, o.Kinds = []string{TargetKfake}, []string{SubjectReactor, SubjectKgo, SubjectKgoTwin}, []string{KindAlternating}
	o.LatencyRate, o.LatencyDuration, o.LatencyRounds, o.AlternateEvery = 200, time.Second, 1, 250*time.Millisecond
	o.JobTimeout, o.Exe = 30*time.Second, exe
	o.TraceDir = t.TempDir()
	var lines strings.Builder
	o.Bench = &lines
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
	if len(alt) != len(o.Subjects) {
		t.Fatalf("%d alternating results, want %d: %+v", len(alt), len(o.Subjects), results)
	}
	for _, r := range alt {
		if r.Err != "" || r.Latency == nil || r.Latency.N != 200 || r.Records+r.Untimed != 200 {
			t.Fatalf("%s: %+v latency %+v", r.Job.Subject, r, r.Latency)
		}
		// Three subjects, 1 s each in turns of 250 ms: each job's timed
		// part starts when every child is ready and ends at its last
		// record, 2.5-3 s of the 3 s schedule by its turns' places; 2 s
		// leaves room for a busy machine and is still twice its own 1 s.
		if r.Wall < 2*time.Second {
			t.Errorf("%s: timed part %s: want 2.5-3 s (every subject's turns), at least 2 s", r.Job.Subject, r.Wall)
		}
	}
	for _, s := range o.Subjects {
		if want := "BenchmarkLatencyAlternating/target=kfake/subject=" + s + "\t1\t"; !strings.Contains(lines.String(), want) {
			t.Errorf("lines lack %q:\n%s", want, lines.String())
		}
	}
	if strings.Contains(lines.String(), "ns-cpu/record") {
		t.Errorf("an alternating line has CPU per record (it spans the other turns):\n%s", lines.String())
	}
	// Each Go subject's job wrote an execution trace in which most of its
	// 200 answers can be followed to Poll's return.
	for _, s := range o.Subjects {
		name := filepath.Join(o.TraceDir, fmt.Sprintf("%s-%s-%s-r1.trace", TargetKfake, s, KindAlternating))
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		res, err := tracepath.ReadPaths(f, "")
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(res.Paths) < 100 {
			t.Errorf("%s: %d paths to Poll's return, want at least 100 of the 200 records' (%+v)", name, len(res.Paths), res)
		}
	}
}

// A child that ends before it is ready (here: its job is invalid) stops
// the round: nothing is produced, and the other child, still joining, is
// stopped with that error rather than left waiting out its timeout for
// records.
func TestTogetherChildNeverReady(t *testing.T) {
	br, err := fakebroker.Start(fakebroker.Config{Brokers: 1, Topics: map[string]int32{"t": 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	good := Job{Kind: KindAlternating, Subject: SubjectKgo, Target: TargetKfake, Addrs: br.Addrs(), Topic: "t", Group: "g-good",
		Partitions: 1, Records: 10, MaxPollRecords: 10, Timeout: 20 * time.Second, StampAt: 0}
	bad := good
	bad.Group, bad.Partitions = "g-bad", 0
	ran := false
	res := testRunner(t).together(context.Background(), []Job{good, bad}, func() error { ran = true; return nil })
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

// Children that misbehave (fakeChild): one that writes its ready line three
// times is counted once; one that ends before its ready line with a clean
// result still fails; a caller that gives up before every child is ready
// fails every job with its cause, and nothing is produced.
func TestTogetherMisbehavingChildren(t *testing.T) {
	r := testRunner(t)
	job := func(group string) Job {
		return Job{Kind: KindAlternating, Subject: SubjectKgo, Target: TargetKfake, Addrs: []string{"127.0.0.1:1"}, Topic: "t",
			Group: group, Partitions: 1, Records: 1, MaxPollRecords: 1, Timeout: time.Minute, StampAt: 0}
	}
	runs := 0
	run := func() error { runs++; return nil }

	res := r.together(context.Background(), []Job{job("fake-ready-thrice"), job("fake-ready")}, run)
	if runs != 1 || res[0].Err != "" || res[1].Err != "" || res[0].Records != 1 {
		t.Fatalf("ready thrice: %d runs, results %+v", runs, res)
	}

	runs = 0
	res = r.together(context.Background(), []Job{job("fake-ready"), job("fake-clean-unready")}, run)
	if runs != 0 || !strings.Contains(res[1].Err, "ended before its ready line") || !strings.Contains(res[0].Err, "fake-clean-unready") {
		t.Fatalf("clean exit before ready: %d runs, results %+v", runs, res)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res = r.together(ctx, []Job{job("fake-slow"), job("fake-slow")}, run)
	for i, x := range res {
		if !strings.Contains(x.Err, "round stopped before every subject was ready: context deadline exceeded") {
			t.Errorf("job %d after the caller gave up: %q", i, x.Err)
		}
	}
	if runs != 0 {
		t.Errorf("produced %d times after the caller gave up", runs)
	}
}

// testRunner is a runner whose children are this test binary (TestMain).
func testRunner(t *testing.T) *runner {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &runner{o: Options{Exe: exe, Log: io.Discard}, log: slog.New(slog.DiscardHandler)}
}

// fakeChild plays a misbehaving child for a job whose group names the
// behaviour (fake-ready, fake-ready-thrice, fake-clean-unready,
// fake-slow) and reports whether it did; any other job is a real one.
func fakeChild(spec string) bool {
	var j Job
	if err := json.Unmarshal([]byte(spec), &j); err != nil || !strings.HasPrefix(j.Group, "fake-") {
		return false
	}
	enc := json.NewEncoder(os.Stdout)
	ready := func() { _ = enc.Encode(childLine{Ready: &Ready{Ready: true}}) }
	switch j.Group {
	case "fake-ready":
		ready()
	case "fake-ready-thrice":
		ready()
		ready()
		ready()
	case "fake-slow":
		time.Sleep(time.Minute)
	}
	_ = enc.Encode(childLine{Result: &Result{Job: j, Records: 1}})
	return true
}

// The latency options are checked only for the kinds that use them, and
// each error names the bad value.
func TestOptionsLatencyChecks(t *testing.T) {
	base := DefaultOptions()
	base.Exe = "kreactor"
	for _, tc := range []struct {
		name  string
		set   func(o *Options)
		error string // "" for none
	}{
		{"default", func(*Options) {}, ""},
		{"turn of 0s", func(o *Options) { o.AlternateEvery = 0 }, "alternate every 0s"},
		{"turn shorter than a record", func(o *Options) { o.AlternateEvery = 500 * time.Microsecond }, "alternate every 500µs"},
		{"turn as long as the job", func(o *Options) { o.AlternateEvery = o.LatencyDuration }, "alternate every 10s"},
		{"turn of 0s, not alternating", func(o *Options) { o.AlternateEvery, o.Kinds = 0, []string{KindThroughput, KindLatency} }, ""},
		{"rate past the producer", func(o *Options) { o.LatencyRate = 2_000_000_000 }, "latency rate 2000000000 records/s"},
		{"no record", func(o *Options) { o.LatencyRate, o.LatencyDuration = 1, 500*time.Millisecond }, "latency rate 1 records/s for 500ms"},
	} {
		o := base
		tc.set(&o)
		err := o.validate()
		switch {
		case tc.error == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.error != "" && (err == nil || !strings.Contains(err.Error(), tc.error)):
			t.Errorf("%s: error %v, want one naming %q", tc.name, err, tc.error)
		}
	}
}
