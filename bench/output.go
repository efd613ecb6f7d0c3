package bench

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/kreactor/kreactor/reports"
)

// header writes the configuration lines benchstat reads before the results.
func (r *runner) header() {
	o := r.o
	w := r.o.Bench
	fmt.Fprintf(w, "goos: %s\ngoarch: %s\npkg: github.com/kreactor/kreactor/bench\n", runtime.GOOS, runtime.GOARCH)
	if cpu := cpuModel(); cpu != "" {
		fmt.Fprintf(w, "cpu: %s\n", cpu)
	}
	fmt.Fprintf(w, "cores: %d\nworkload: %d records x %d B, %d partitions, max.poll.records %d, %d interleaved rounds\n",
		runtime.NumCPU(), o.Records, o.ValueBytes, o.Partitions, o.MaxPollRecords, o.Rounds)
}

// cpuModel is /proc/cpuinfo's first "model name".
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// benchName is a result's benchmark name: Benchmark<Kind>/target=T/subject=S.
func benchName(j Job) string {
	kind := map[string]string{KindThroughput: "Consume", KindLatency: "Latency", KindAlternating: "LatencyAlternating", KindBacklog: "Backlog", KindIdle: "Idle"}[j.Kind]
	return fmt.Sprintf("Benchmark%s/target=%s/subject=%s", kind, j.Target, j.Subject)
}

// metric is one value of a result with its benchmark unit.
type metric struct {
	v    float64
	unit string
}

// metrics are res's figures in the units written to the benchmark lines
// and the perf table.
func metrics(res Result) []metric {
	n := float64(res.Records)
	var out []metric
	switch res.Job.Kind {
	case KindThroughput:
		out = append(out, metric{float64(res.Wall.Nanoseconds()), "ns/op"},
			metric{n / res.Wall.Seconds(), "records/s"},
			metric{float64(res.CPU.Nanoseconds()) / n, "ns-cpu/record"})
		if res.Allocs >= 0 {
			out = append(out, metric{float64(res.Allocs) / n, "allocs/record"})
		}
		if res.AllocBytes >= 0 {
			out = append(out, metric{float64(res.AllocBytes) / n, "B/record"})
		}
		if res.Steps > 0 {
			out = append(out, metric{float64(res.Steps) / n, "steps/record"})
		}
		if res.JVMCPU > 0 {
			out = append(out, metric{float64(res.JVMCPU.Nanoseconds()) / n, "ns-cpu-jvm/record"},
				metric{float64(res.GoCPU.Nanoseconds()) / n, "ns-cpu-go/record"})
		}
	case KindLatency, KindAlternating:
		ms := func(d float64) float64 { return d / 1e6 }
		if q := res.Latency; q != nil && q.N > 0 {
			out = append(out, metric{ms(float64(q.P50)), "p50-ms"}, metric{ms(float64(q.P90)), "p90-ms"},
				metric{ms(float64(q.P99)), "p99-ms"}, metric{ms(float64(q.Max)), "max-ms"})
		}
		if q := res.ReadToPoll; q != nil && q.N > 0 {
			out = append(out, metric{ms(float64(q.P50)), "read-p50-ms"}, metric{ms(float64(q.P99)), "read-p99-ms"})
		}
		if res.Job.Kind == KindAlternating {
			// The timed part spans the other subjects' turns, in which
			// this consumer idles: its CPU and allocations are not a
			// record's cost (the latency job's are).
			break
		}
		if res.ContextSwitches > 0 && n > 0 {
			out = append(out, metric{float64(res.ContextSwitches) / n, "ctxsw/record"})
		}
		// The consumer process's CPU (user + system, every thread) over
		// the timed part, per record: at this rate about one Fetch answer
		// a record, so mostly what each arriving record costs the client,
		// with its heartbeats, GC and the kernel's network work in it.
		if n > 0 && res.CPU > 0 {
			out = append(out, metric{float64(res.CPU.Nanoseconds()) / n, "ns-cpu/record"})
		}
		if n > 0 && res.Allocs > 0 { // Go subjects only (Java: -1)
			out = append(out, metric{float64(res.Allocs) / n, "allocs/record"}, metric{float64(res.AllocBytes) / n, "B/record"})
		}
	case KindBacklog:
		mb := func(b int64) float64 { return float64(b) / (1 << 20) }
		out = append(out, metric{mb(res.RSS), "rss-MB"}, metric{mb(res.HeapUsed), "heap-MB"})
		if res.HeapLive > 0 {
			out = append(out, metric{mb(res.HeapLive), "heap-live-MB"})
		}
		out = append(out, metric{mb(res.PeakRSS), "peak-rss-MB"}, metric{n / res.Wall.Seconds(), "records/s"})
	case KindIdle:
		perMin := float64(res.CPU.Nanoseconds()) / 1e6 / res.Wall.Minutes()
		out = append(out, metric{perMin, "cpu-ms/min"}, metric{float64(res.Polls) / res.Wall.Minutes(), "polls/min"})
		if res.ContextSwitches > 0 {
			out = append(out, metric{float64(res.ContextSwitches) / res.Wall.Minutes(), "ctxsw/min"})
		}
		if res.Steps > 0 {
			out = append(out, metric{float64(res.Steps) / res.Wall.Minutes(), "steps/min"})
		}
	}
	return out
}

// writeLine writes res as one benchmark line (a comment for a failed job).
func writeLine(w io.Writer, res Result) {
	if res.Err != "" {
		fmt.Fprintf(w, "# %s round %d: FAILED: %s\n", benchName(res.Job), res.Job.Round, strings.ReplaceAll(res.Err, "\n", " "))
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\t1", benchName(res.Job))
	for _, m := range metrics(res) {
		fmt.Fprintf(&b, "\t%.6g %s", m.v, m.unit)
	}
	fmt.Fprintln(w, b.String())
}

// perfUnits are the figures the perf table keeps, per kind.
var perfUnits = map[string][]string{
	KindThroughput:  {"records/s", "ns-cpu/record", "allocs/record", "B/record", "steps/record"},
	KindLatency:     {"p50-ms", "p99-ms", "read-p50-ms", "ctxsw/record", "ns-cpu/record", "allocs/record", "B/record"},
	KindAlternating: {"p50-ms", "p99-ms", "read-p50-ms"},
	KindBacklog:     {"rss-MB", "heap-MB", "peak-rss-MB"},
	KindIdle:        {"cpu-ms/min", "ctxsw/min", "steps/min"},
}

// Perf builds the report's perf table (reports.PerfTable, `kreactor report
// -perf`) from results: one row per kind, subject, target and unit with the
// value of every round, compared with kgo.
func Perf(o Options, results []Result) *reports.PerfTable {
	t := &reports.PerfTable{Version: reports.PerfVersion, RatioTo: SubjectKgo}
	if slices.Contains(o.Subjects, SubjectKgoTwin) {
		t.Twin = SubjectKgoTwin
	}
	names := map[string]string{
		KindThroughput: fmt.Sprintf("consume %d x %d B, %d partitions, max.poll.records %d", o.Records, o.ValueBytes, o.Partitions, o.MaxPollRecords),
		KindLatency:    fmt.Sprintf("produce-to-poll latency at %d records/s, %s per round", o.LatencyRate, o.LatencyDuration),
		KindAlternating: fmt.Sprintf("produce-to-poll latency at %d records/s, %s per subject, subjects together, turns of %s",
			o.LatencyRate, o.LatencyDuration, o.AlternateEvery),
		KindBacklog: fmt.Sprintf("memory with %d records waiting", o.BacklogRecords),
		KindIdle:    fmt.Sprintf("idle consumer CPU (%s window)", o.IdleWindow),
	}
	index := map[[4]string]int{}
	for _, res := range results {
		if res.Err != "" {
			continue
		}
		for _, m := range metrics(res) {
			if !slices.Contains(perfUnits[res.Job.Kind], m.unit) {
				continue
			}
			k := [4]string{res.Job.Kind, res.Job.Subject, res.Job.Target, m.unit}
			i, ok := index[k]
			if !ok {
				t.Rows = append(t.Rows, reports.PerfRow{Benchmark: names[res.Job.Kind], Subject: res.Job.Subject, Target: res.Job.Target, Unit: m.unit})
				i = len(t.Rows) - 1
				index[k] = i
			}
			t.Rows[i].Values = append(t.Rows[i].Values, m.v)
		}
	}
	return t
}

// WritePerf writes the perf table as JSON to path.
func WritePerf(path string, t *reports.PerfTable) error {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// WriteSummary renders t as a text table: per figure, subject and target,
// min / median / max over the rounds and the ratio to t.RatioTo
// (PerfRatio.String). With an A/A control measured (t.Twin: kgo-twin),
// a last column gives each row's ratio to it as well, so the reactor is
// read against two identical references, whose ratio to each other is
// the twin's row.
func WriteSummary(w io.Writer, t *reports.PerfTable) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "figure\ttarget\tsubject\trounds\tmin\tmedian\tmax\tratio to %s", t.RatioTo)
	if t.Twin != "" {
		fmt.Fprintf(tw, "\tratio to %s", t.Twin)
	}
	fmt.Fprintln(tw)
	rows := slices.Clone(t.Rows)
	slices.SortStableFunc(rows, func(a, b reports.PerfRow) int {
		return cmp.Or(cmp.Compare(a.Benchmark, b.Benchmark), cmp.Compare(a.Unit, b.Unit), cmp.Compare(a.Target, b.Target))
	})
	for _, r := range rows {
		s := r.Stats()
		ratio := t.Ratio(r).String()
		fmt.Fprintf(tw, "%s %s\t%s\t%s\t%d\t%.4g\t%.4g\t%.4g\t%s", r.Benchmark, r.Unit, r.Target, r.Subject, len(r.Values), s.Min, s.Median, s.Max, ratio)
		if t.Twin != "" {
			fmt.Fprintf(tw, "\t%s", t.TwinRatio(r))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}
