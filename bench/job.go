package bench

import (
	"encoding/binary"
	"fmt"
	"slices"
	"time"
)

// Subjects, in the order the benchmark lists them.
const (
	SubjectReactor    = "reactor"     // consumer.New: the KIP-1371 reactor consumer
	SubjectBaseline   = "baseline"    // baseline.New: the model of today's execution
	SubjectKgo        = "kgo"         // raw franz-go kgo v1.22.3 (KIP-848), PollRecords
	SubjectJavaDriver = "java-driver" // Java's KafkaConsumer through the JSON-lines driver (poll)
	SubjectJava       = "java"        // the same KafkaConsumer polling inside the JVM (consume), first pass of a fresh JVM
	// SubjectJavaWarm is java's second pass over the same records in the
	// same JVM (after seekToBeginning): Java with its JIT warm. Throughput
	// only.
	SubjectJavaWarm = "java-warm"
	// SubjectKgoTwin is a second kgo subject: the same client and options
	// (client id bench-kgo-twin), in a group of its own and, in the
	// latency, alternating and idle kinds, on a topic of its own. It is
	// the A/A control: its ratio to kgo is what the bench reports for two
	// identical clients, the resolution against which the other
	// subjects' ratios are read (docs/bench.md, "The A/A control"). Not
	// measured unless named in Options.Subjects.
	SubjectKgoTwin = "kgo-twin"
)

// DefaultSubjects are the subjects measured when none are named: all but
// the A/A control.
var DefaultSubjects = []string{SubjectReactor, SubjectBaseline, SubjectKgo, SubjectJavaDriver, SubjectJava, SubjectJavaWarm}

// Subjects lists every subject the benchmark knows.
var Subjects = append(slices.Clone(DefaultSubjects), SubjectKgoTwin)

// isJava reports whether s runs Java's consumer.
func isJava(s string) bool { return s == SubjectJava || s == SubjectJavaWarm || s == SubjectJavaDriver }

// Kinds of measurement.
const (
	KindThroughput = "throughput"
	KindLatency    = "latency"
	KindBacklog    = "backlog"
	KindIdle       = "idle"
	// KindAlternating is produce-to-Poll latency with every subject's
	// consumer running at once, each on its own topic, while the producer
	// writes to one topic at a time, for Options.AlternateEvery each, in
	// turn. A sequential latency round gives each subject its own 10 s on
	// a machine whose speed drifts between them by more than the subjects
	// differ (docs/bench.md, "Latency with the subjects alternating");
	// alternating every second spreads that drift over all of them.
	KindAlternating = "latency-alternating"
)

// Kinds lists every kind, in the order Run measures them.
var Kinds = []string{KindThroughput, KindLatency, KindAlternating, KindBacklog, KindIdle}

// stamped reports whether the job measures each record's produce-to-Poll
// latency (its value carries the produce time at StampAt).
func (j Job) stamped() bool { return j.Kind == KindLatency || j.Kind == KindAlternating }

// Job is one measurement, run by a child process (RunJob).
type Job struct {
	Kind    string   `json:"kind"`
	Subject string   `json:"subject"`
	Target  string   `json:"target"`
	Round   int      `json:"round"`
	Addrs   []string `json:"addrs"`
	Topic   string   `json:"topic"`
	Group   string   `json:"group"`
	// Partitions the member must own before the clock starts.
	Partitions int `json:"partitions"`
	// Records to receive after the clock started (throughput, latency,
	// backlog: the whole backlog).
	Records int `json:"records"`
	// MaxPollRecords is max.poll.records (records per Poll).
	MaxPollRecords int `json:"max_poll_records"`
	// Timeout bounds the job's consumption.
	Timeout time.Duration `json:"timeout"`
	// Settle (backlog) is how long the consumer does not poll before its
	// memory is read; Window (idle) is the measured idle time.
	Settle time.Duration `json:"settle,omitempty"`
	Window time.Duration `json:"window,omitempty"`
	// StampAt (latency) is where the produce time stamp starts in each
	// value; -1 for none.
	StampAt int `json:"stamp_at"`
	// CPUProfile and MemProfile, if set, are files the child writes pprof
	// profiles of the timed part to (Go subjects). CPUProfileHz, if
	// positive, is the CPU profile's sampling rate (default 100 Hz): the
	// idle and latency jobs use little CPU (an idle consumer a few ms per
	// second), so at 100 Hz their profiles hold a handful of samples.
	CPUProfile   string `json:"cpu_profile,omitempty"`
	CPUProfileHz int    `json:"cpu_profile_hz,omitempty"`
	MemProfile   string `json:"mem_profile,omitempty"`
	// Trace, if set, is a file the child writes a runtime execution trace
	// of the timed part to (Go subjects), for package tracepath.
	Trace string `json:"trace,omitempty"`
}

// Validate reports the first field out of range, naming it.
func (j Job) Validate() error {
	switch {
	case !slices.Contains(Kinds, j.Kind):
		return fmt.Errorf("bench job: kind %q: want one of %v", j.Kind, Kinds)
	case !slices.Contains(Subjects, j.Subject):
		return fmt.Errorf("bench job: subject %q: want one of %v", j.Subject, Subjects)
	case len(j.Addrs) == 0:
		return fmt.Errorf("bench job: no broker addresses")
	case j.Topic == "" || j.Group == "":
		return fmt.Errorf("bench job: topic %q and group %q must be set", j.Topic, j.Group)
	case j.Partitions < 1:
		return fmt.Errorf("bench job: partitions %d: want >= 1", j.Partitions)
	case j.Records < 0 || (j.Kind != KindIdle && j.Records == 0):
		return fmt.Errorf("bench job: records %d: want > 0 (idle: >= 0)", j.Records)
	case j.MaxPollRecords < 1:
		return fmt.Errorf("bench job: max.poll.records %d: want >= 1", j.MaxPollRecords)
	case j.Timeout <= 0:
		return fmt.Errorf("bench job: timeout %s: want > 0", j.Timeout)
	case j.Kind == KindIdle && j.Window <= 0:
		return fmt.Errorf("bench job: idle window %s: want > 0", j.Window)
	case j.stamped() && j.StampAt < 0:
		return fmt.Errorf("bench job: %s needs stamp_at >= 0, got %d", j.Kind, j.StampAt)
	}
	return nil
}

// Result is what a child reports for its Job.
type Result struct {
	Job Job `json:"job"`
	// Records received in the timed part; Untimed before it (while the
	// member waited for its assignment).
	Records int `json:"records"`
	Untimed int `json:"untimed"`
	// Wall and CPU of the timed part (CPU: the consumer's process; for
	// java-driver the JVM plus the Go side of the driver).
	Wall time.Duration `json:"wall"`
	CPU  time.Duration `json:"cpu"`
	// ContextSwitches are the consumer process's thread context switches
	// over the timed part (getrusage ru_nvcsw + ru_nivcsw; Go subjects
	// only: for Java 0, not measured). Thread wake-ups cost kernel and
	// scheduler time, most of an idle consumer's CPU, and their count is
	// far steadier between runs than CPU time.
	ContextSwitches int64 `json:"context_switches,omitempty"`
	// GoCPU and JVMCPU split CPU where both take part (java-driver).
	GoCPU  time.Duration `json:"go_cpu,omitempty"`
	JVMCPU time.Duration `json:"jvm_cpu,omitempty"`
	// Allocs and AllocBytes over the timed part (Go: runtime.MemStats
	// Mallocs and TotalAlloc; Java: bytes only, Allocs -1).
	Allocs     int64 `json:"allocs"`
	AllocBytes int64 `json:"alloc_bytes"`
	// Memory (backlog): resident set while the backlog waits, its peak
	// after the drain, and the Go heap (in use, and live after a GC) or
	// the JVM heap in use.
	RSS      int64 `json:"rss,omitempty"`
	PeakRSS  int64 `json:"peak_rss,omitempty"`
	HeapUsed int64 `json:"heap_used,omitempty"`
	HeapLive int64 `json:"heap_live,omitempty"`
	// Latency quantiles (latency).
	Latency *LatencyQuantiles `json:"latency,omitempty"`
	// ReadToPoll (latency, Go subjects) are the quantiles of each record's
	// time from its connection's last Read to Poll's return: the part of
	// Latency spent inside the client (readClock).
	ReadToPoll *LatencyQuantiles `json:"read_to_poll,omitempty"`
	// Steps are the reactor or baseline loop steps over the timed part.
	Steps uint64 `json:"steps,omitempty"`
	// Polls are the application's Poll calls over the timed part.
	Polls int64  `json:"polls"`
	Err   string `json:"error,omitempty"`
}

// LatencyQuantiles are produce-to-poll latencies (nearest rank).
type LatencyQuantiles struct {
	N                  int64
	P50, P90, P99, Max time.Duration
}

// quantiles returns the nearest-rank quantiles of lat (sorted in place).
func quantiles(lat []time.Duration) *LatencyQuantiles {
	slices.Sort(lat)
	q := &LatencyQuantiles{N: int64(len(lat))}
	if len(lat) == 0 {
		return q
	}
	at := func(p float64) time.Duration {
		rank := int(p*float64(len(lat)) + 0.999999)
		return lat[min(max(rank-1, 0), len(lat)-1)]
	}
	q.P50, q.P90, q.P99, q.Max = at(0.50), at(0.90), at(0.99), lat[len(lat)-1]
	return q
}

// putStamp writes t as 8-byte big-endian Unix nanoseconds at the start of v
// (the latency job's produce time stamp; StampAt 0).
func putStamp(v []byte, t time.Time) { binary.BigEndian.PutUint64(v, uint64(t.UnixNano())) }
