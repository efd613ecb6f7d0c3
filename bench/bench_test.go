package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/kreactor/kreactor/fakebroker"
	"github.com/kreactor/kreactor/reports"
)

// TestMain is also the child of the tests that run Run: the runner
// starts Options.Exe as `Exe bench -job JSON`, and Exe is this binary.
func TestMain(m *testing.M) {
	if len(os.Args) == 4 && os.Args[1] == "bench" && os.Args[2] == "-job" {
		if fakeChild(os.Args[3]) {
			os.Exit(0)
		}
		if err := ServeJob(context.Background(), os.Args[3], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// Each Go subject's job, in this process on a kfake broker: every record
// is counted in the timed part, the meters moved, and the latency job sees
// every stamped record.
func TestRunJobOnKfake(t *testing.T) {
	const records, parts = 3000, 3
	br, err := fakebroker.Start(fakebroker.Config{Brokers: 1, Topics: map[string]int32{"c": parts, "b": parts, "l0": parts, "l1": parts, "l2": parts}})
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	ctx := context.Background()
	for _, topic := range []string{"c", "b"} {
		if err := produce(ctx, br.Addrs(), topic, parts, records, 100, ValuesRandom); err != nil {
			t.Fatal(err)
		}
	}
	base := Job{Target: TargetKfake, Addrs: br.Addrs(), Partitions: parts, MaxPollRecords: 500, Timeout: 30 * time.Second, StampAt: -1}
	for i, s := range []string{SubjectReactor, SubjectBaseline, SubjectKgo} {
		latency := fmt.Sprintf("l%d", i) // a topic per subject: each latency job reads only its own stamps
		t.Run(s, func(t *testing.T) {
			j := base
			j.Kind, j.Subject, j.Topic, j.Records, j.Group = KindThroughput, s, "c", records, "tc-"+s
			readied := false
			r := RunJob(ctx, j, func(Ready) { readied = true })
			if r.Err != "" || !readied || r.Records+r.Untimed != records || r.Records == 0 || r.Wall <= 0 || r.CPU <= 0 || r.AllocBytes <= 0 {
				t.Fatalf("throughput %+v (ready %v)", r, readied)
			}
			if (s == SubjectKgo) != (r.Steps == 0) {
				t.Errorf("loop steps %d for %s", r.Steps, s)
			}

			j.Kind, j.Topic, j.Records, j.Settle, j.Group = KindBacklog, "b", records, 100*time.Millisecond, "tb-"+s
			r = RunJob(ctx, j, func(Ready) {})
			if r.Err != "" || r.Records+r.Untimed != records || r.RSS <= 0 || r.PeakRSS < r.RSS || r.HeapUsed <= 0 || r.HeapLive <= 0 {
				t.Fatalf("backlog %+v", r)
			}

			const rate, dur = 200, time.Second
			j.Kind, j.Topic, j.Records, j.StampAt, j.Group = KindLatency, latency, int(rate*dur.Seconds()), 0, "tl-"+s
			j.CPUProfile, j.CPUProfileHz = filepath.Join(t.TempDir(), "latency.cpu.pprof"), 1000 // as -profiles does
			j.MemProfile = filepath.Join(t.TempDir(), "latency.allocs.pprof")
			var produced int
			var perr error
			done := make(chan struct{})
			r = RunJob(ctx, j, func(Ready) {
				go func() { // as the parent does: produce while the job polls
					defer close(done)
					p, err := newStampedProducer(br.Addrs())
					if err != nil {
						perr = err
						return
					}
					defer p.close()
					produced, perr = p.run(ctx, latency, parts, rate, dur, 100)
				}()
			})
			<-done
			if perr != nil || r.Err != "" || r.Latency == nil || r.Latency.N != int64(produced) || r.Latency.P50 <= 0 || r.Latency.P99 < r.Latency.P50 || r.Latency.P50 > time.Second {
				t.Fatalf("latency %+v %+v (produced %d, %v)", r, r.Latency, produced, perr)
			}
			// The context-switch meter moved: the latency job waits about
			// 5 ms for each record, so the consumer's threads block. (The
			// throughput job can read its few records already fetched
			// without a thread blocking on a quiet machine.)
			if r.ContextSwitches <= 0 {
				t.Errorf("context switches %d for %s's latency job", r.ContextSwitches, s)
			}
			// The part inside the client is part of the whole: at every quantile
			// no larger (the socket Read comes after the produce stamp).
			if q := r.ReadToPoll; q == nil || q.N != r.Latency.N || q.P50 <= 0 || q.P50 > r.Latency.P50 || q.P99 > r.Latency.P99 {
				t.Errorf("read-to-poll %+v against latency %+v", q, r.Latency)
			}
			for _, f := range []string{j.CPUProfile, j.MemProfile} {
				if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
					t.Errorf("latency job's profile %s: %v (%v)", f, fi, err)
				}
			}
		})
	}
}

func TestJobValidate(t *testing.T) {
	good := Job{Kind: KindThroughput, Subject: SubjectReactor, Addrs: []string{"x:1"}, Topic: "t", Group: "g", Partitions: 1, Records: 1, MaxPollRecords: 1, Timeout: time.Second, StampAt: -1}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mut := range map[string]func(*Job){
		`kind "x"`:         func(j *Job) { j.Kind = "x" },
		`subject "y"`:      func(j *Job) { j.Subject = "y" },
		"records 0":        func(j *Job) { j.Records = 0 },
		"stamp_at >= 0":    func(j *Job) { j.Kind = KindLatency },
		"idle window 0s":   func(j *Job) { j.Kind = KindIdle },
		"partitions 0":     func(j *Job) { j.Partitions = 0 },
		"max.poll.records": func(j *Job) { j.MaxPollRecords = 0 },
	} {
		j := good
		mut(&j)
		if err := j.Validate(); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The A/A control is a subject of its own, measured only when named.
func TestKgoTwinOnlyWhenNamed(t *testing.T) {
	o := DefaultOptions()
	if slices.Contains(o.Subjects, SubjectKgoTwin) {
		t.Errorf("default subjects %v include the A/A control %s", o.Subjects, SubjectKgoTwin)
	}
	if tw := Perf(o, nil).Twin; tw != "" {
		t.Errorf("perf table of the default subjects has twin %q", tw)
	}
	o.Subjects, o.Exe = []string{SubjectKgo, SubjectKgoTwin}, "kreactor"
	if err := o.validate(); err != nil {
		t.Errorf("subjects %v: %v", o.Subjects, err)
	}
	if tw := Perf(o, nil).Twin; tw != SubjectKgoTwin {
		t.Errorf("perf table of %v has twin %q, want %s", o.Subjects, tw, SubjectKgoTwin)
	}
}

// Lines in the go test -bench format, the perf table with its rounds and
// ratios, and a failed job as a comment.
func TestOutputs(t *testing.T) {
	o := DefaultOptions()
	res := func(s string, round int, wall time.Duration) Result {
		return Result{Job: Job{Kind: KindThroughput, Subject: s, Target: TargetKfake, Round: round}, Records: 1000, Wall: wall,
			CPU: 500 * time.Microsecond, Allocs: 10, AllocBytes: 100_000}
	}
	rs := []Result{res(SubjectKgo, 1, time.Second), res(SubjectReactor, 1, time.Second/2), res(SubjectKgo, 2, time.Second), res(SubjectReactor, 2, time.Second/4),
		{Job: Job{Kind: KindThroughput, Subject: SubjectJava, Target: TargetKfake}, Err: "boom\nagain"}}
	var b bytes.Buffer
	for _, r := range rs {
		writeLine(&b, r)
	}
	out := b.String()
	for _, want := range []string{
		"BenchmarkConsume/target=kfake/subject=reactor\t1\t5e+08 ns/op\t2000 records/s\t500 ns-cpu/record\t0.01 allocs/record\t100 B/record\n",
		"# BenchmarkConsume/target=kfake/subject=java round 0: FAILED: boom again\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lines lack %q:\n%s", want, out)
		}
	}
	// The latency job's per-record figures: CPU for every subject, the
	// allocation figures only where the child measured the consumer's
	// own (Go subjects; Java's are -1), none for a job without records.
	lat := func(s string, records int, allocs int64) Result {
		return Result{Job: Job{Kind: KindLatency, Subject: s, Target: TargetKfake}, Records: records,
			Latency: &LatencyQuantiles{N: int64(records), P50: time.Millisecond, P99: 2 * time.Millisecond},
			CPU:     200 * time.Millisecond, Allocs: allocs, AllocBytes: 50_000}
	}
	for _, tc := range []struct {
		r          Result
		want, lack []string
	}{
		{lat(SubjectReactor, 1000, 70_000), []string{"200000 ns-cpu/record", "70 allocs/record", "50 B/record"}, nil},
		{lat(SubjectJavaDriver, 1000, -1), []string{"200000 ns-cpu/record"}, []string{"allocs/record", "B/record"}},
		{lat(SubjectKgo, 0, 70_000), nil, []string{"ns-cpu/record", "allocs/record"}},
	} {
		var lb bytes.Buffer
		writeLine(&lb, tc.r)
		for _, w := range tc.want {
			if !strings.Contains(lb.String(), w) {
				t.Errorf("%s latency line lacks %q: %s", tc.r.Job.Subject, w, lb.String())
			}
		}
		for _, l := range tc.lack {
			if strings.Contains(lb.String(), l) {
				t.Errorf("%s latency line has %q: %s", tc.r.Job.Subject, l, lb.String())
			}
		}
	}

	tab := Perf(o, rs)
	var rate []float64
	for _, row := range tab.Rows {
		if row.Subject == SubjectReactor && row.Unit == "records/s" {
			rate = row.Values
			if q := tab.Ratio(row); !q.OK || q.Median != 3 || q.Lo != 2 || q.Hi != 4 {
				t.Errorf("ratio %+v", q)
			}
		}
		if row.Subject == SubjectJava {
			t.Errorf("a failed job in the table: %+v", row)
		}
	}
	if len(rate) != 2 || rate[0] != 2000 || rate[1] != 4000 {
		t.Fatalf("reactor records/s rounds %v", rate)
	}
	raw, err := json.Marshal(tab)
	if err != nil || !strings.Contains(string(raw), `"ratio_to":"kgo"`) {
		t.Fatalf("%s %v", raw, err)
	}
	var sum bytes.Buffer
	WriteSummary(&sum, tab)
	if !strings.Contains(sum.String(), "3.00 [2.00-4.00]") {
		t.Errorf("summary:\n%s", sum.String())
	}
}

// With the A/A control measured, the summary reads every row against it
// too, in a last column; without it, the column is not there.
func TestSummaryWithTwin(t *testing.T) {
	row := func(s string, v ...float64) reports.PerfRow {
		return reports.PerfRow{Benchmark: "latency", Subject: s, Target: TargetKfake, Unit: "p50-ms", Values: v}
	}
	tab := &reports.PerfTable{Version: reports.PerfVersion, RatioTo: SubjectKgo, Twin: SubjectKgoTwin, Rows: []reports.PerfRow{
		row(SubjectKgo, 1, 1), row(SubjectKgoTwin, 2, 2), row(SubjectReactor, 4, 2)}}
	var sum bytes.Buffer
	WriteSummary(&sum, tab)
	lines := strings.Split(sum.String(), "\n")
	if !strings.HasSuffix(strings.TrimSpace(lines[0]), "ratio to kgo-twin") {
		t.Errorf("header %q lacks the twin's column", lines[0])
	}
	seen := 0
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) > 3 && (f[3] == SubjectReactor || f[3] == SubjectKgoTwin || f[3] == SubjectKgo) {
			seen++
		}
		switch {
		case len(f) > 3 && f[3] == SubjectKgo:
			if f[len(f)-10] != "-" || !strings.HasSuffix(l, "0.50 [0.50-0.50]; rounds 0.50, below in 2 of 2") {
				t.Errorf("kgo line %q: want - to itself, then 0.50 to the twin last", l)
			}
		case len(f) > 3 && f[3] == SubjectReactor:
			// kgo: rounds 4 and 2, median 3; twin: rounds 2 and 1, median 1.5.
			if !strings.Contains(l, "3.00 [2.00-4.00]") || !strings.HasSuffix(strings.TrimSpace(l), "1.50 [1.00-2.00]; rounds 1.50, below in 0 of 2") {
				t.Errorf("reactor line %q: want 3.00 [2.00-4.00] to kgo and 1.50 [1.00-2.00] to the twin", l)
			}
		case len(f) > 3 && f[3] == SubjectKgoTwin:
			if !strings.Contains(l, "2.00 [2.00-2.00]") || !strings.HasSuffix(strings.TrimSpace(l), "-") {
				t.Errorf("twin line %q: want 2.00 to kgo and - to itself", l)
			}
		}
	}
	if seen != 3 {
		t.Errorf("%d kgo, reactor and twin lines, want 3:\n%s", seen, sum.String())
	}
	tab.Twin, tab.Rows = "", tab.Rows[:1]
	sum.Reset()
	WriteSummary(&sum, tab)
	if strings.Contains(sum.String(), SubjectKgoTwin) {
		t.Errorf("summary without the twin names it:\n%s", sum.String())
	}
}
