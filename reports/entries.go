package reports

// Structured report entries: the harness attaches these with Ginkgo's
// AddReportEntry (visibility Never: they are data for this package, not
// console output) and Decode reads them back by name. Each value carries a
// version; Decode rejects a version it does not know with an error naming
// the entry, the spec and the file, so an old report tool never misreads a
// newer run.

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"
)

// Report entry names the harness writes and Decode reads.
const (
	// EntrySeries holds a Series: the spec's time series (requests per API
	// key, loop steps, CPU, call durations, fault windows).
	EntrySeries = "kreactor.series"
	// EntryProvenance holds a Provenance; it is attached to each suite's
	// BeforeSuite node (suite.RecordProvenance).
	EntryProvenance = "kreactor.provenance"
	// EntrySignals holds a JSON array of strings: the expectation keys that
	// express the covered Jira's symptom. A regression spec on the
	// control subject counts as failing "for the Jira's reason" only when a
	// key in EntryFailedKeys is one of these.
	EntrySignals = "kreactor.signals"
	// EntryFailedKeys holds a JSON array of strings: the expectation keys
	// that failed in this spec.
	EntryFailedKeys = "kreactor.failed-keys"
	// EntryLiveness holds a JSON array of strings: the expectation keys
	// that express progress (records delivered, a commit completing, an
	// error surfaced). A regression spec on a null control (a
	// consumer that never sends) counts as failing for the right reason
	// only when a key in EntryFailedKeys is one of these.
	EntryLiveness = "kreactor.liveness"
	// EntryHarnessError holds a JSON array of strings: harness errors a spec
	// hit that say nothing about the subject's behaviour (the java
	// subject's driver crashed, hung or was sent a command it could not
	// run). The check fails on them for every subject, evidence
	// subjects included.
	EntryHarnessError = "kreactor.harness-error"
)

// isStructured reports whether name is one of the entries above (kept out
// of the figure list).
func isStructured(name string) bool {
	return name == EntrySeries || name == EntryProvenance || name == EntrySignals || name == EntryFailedKeys || name == EntryLiveness || name == EntryHarnessError || name == EntryEvidence || name == EntryLoad
}

// SeriesVersion is the version of the Series layout this package reads and
// the harness writes. Bump it on an incompatible change.
const SeriesVersion = 1

// Series is what the harness recorded over one spec, bucketed on one time
// grid: bucket i covers [StartMS + i*BucketMS, StartMS + (i+1)*BucketMS)
// milliseconds after Start. Every slice of counts has the same length
// (Buckets). It is small by construction: at most MaxBuckets buckets (the
// harness doubles the bucket width until the spec fits), at most
// MaxDurationSamples call durations per call kind.
type Series struct {
	Version int `json:"version"`
	// Start is when recording began (the first cluster or consumer of the
	// spec); times below are milliseconds after it.
	Start time.Time `json:"start"`
	// BucketMS is the bucket width in milliseconds (100, or a power-of-two
	// multiple of it for long specs).
	BucketMS int64 `json:"bucket_ms"`
	// Buckets is the number of buckets.
	Buckets int `json:"buckets"`
	// Requests are the requests the brokers recorded from the spec's
	// consumers (by client id), per API key, per bucket.
	Requests []KeyCounts `json:"requests,omitempty"`
	// Consumers are the spec's consumers, in creation order.
	Consumers []ConsumerSeries `json:"consumers,omitempty"`
	// Faults are the fault windows (and request taps) installed through the
	// cluster, in installation order.
	Faults []FaultWindow `json:"faults,omitempty"`
}

// MaxBuckets caps Series.Buckets.
const MaxBuckets = 600

// MaxDurationSamples caps CallDurations.SamplesMS.
const MaxDurationSamples = 256

// KeyCounts is one API key's request count per bucket.
type KeyCounts struct {
	// Key is the API key's name ("FindCoordinator").
	Key    string  `json:"key"`
	Counts []int64 `json:"counts"`
}

// ConsumerSeries is one consumer's loop and CPU figures per bucket, and its
// application calls' durations.
type ConsumerSeries struct {
	// Client is the consumer's client id.
	Client string `json:"client"`
	// Kind is "consumer" (KIP-848 group consumer) or "share" (KIP-932).
	Kind string `json:"kind"`
	// Steps are loop steps per bucket; nil when the subject has no loop
	// probe (a black-box client).
	Steps []int64 `json:"steps,omitempty"`
	// SpuriousWakeups and AppWakeups per bucket, as the subject counts them
	// (see the glossary); nil without a probe.
	SpuriousWakeups []int64 `json:"spurious_wakeups,omitempty"`
	AppWakeups      []int64 `json:"app_wakeups,omitempty"`
	// CPUMS is CPU time (user + system) per bucket in milliseconds, over
	// CPUScope.
	CPUMS []float64 `json:"cpu_ms,omitempty"`
	// CPUScope says whose CPU CPUMS is: "process" (the test process: the
	// in-process subject, the harness and an in-process kfake) or
	// "subject" (a black-box subject's own process, measure.CPUSampler).
	CPUScope string `json:"cpu_scope,omitempty"`
	// Threads are a black-box subject's named threads' CPU per bucket (ms),
	// when its CPUSampler reports them (e.g. the Java consumer's background
	// thread).
	Threads []ThreadCPU `json:"threads,omitempty"`
	// Calls are the application calls' durations, per call kind.
	Calls []CallDurations `json:"calls,omitempty"`
}

// ThreadCPU is one named thread's CPU time per bucket in milliseconds.
type ThreadCPU struct {
	Name  string    `json:"name"`
	CPUMS []float64 `json:"cpu_ms"`
}

// CallDurations summarises the durations of one kind of application call
// ("poll", "commit_sync", "close"): exact count, minimum and maximum, and a
// uniform sample (reservoir) of at most MaxDurationSamples durations.
type CallDurations struct {
	Call      string    `json:"call"`
	Count     int64     `json:"count"`
	MinMS     float64   `json:"min_ms"`
	MaxMS     float64   `json:"max_ms"`
	SamplesMS []float64 `json:"samples_ms"`
}

// FaultWindow is one fault's lifetime, in milliseconds after Series.Start.
// ToMS is -1 when the fault was still installed when recording ended.
type FaultWindow struct {
	// Kind is the fault's kind: "coordinator-unavailable", "broker-stopped",
	// a FaultSpec kind ("hold", "delay", ...), or "observe" (a request tap,
	// which changes no answer and is not shaded in plots).
	Kind string `json:"kind"`
	// Detail names what the fault acts on ("group g", "node 1",
	// "OffsetCommit").
	Detail string `json:"detail,omitempty"`
	FromMS int64  `json:"from_ms"`
	ToMS   int64  `json:"to_ms"`
}

// IsFault is false for request taps ("observe"), which change nothing.
func (f FaultWindow) IsFault() bool { return f.Kind != "observe" }

// Validate checks s's version and shape: every per-bucket slice has Buckets
// entries, the bucket width is positive and values are finite.
func (s *Series) Validate() error {
	if s.Version != SeriesVersion {
		return fmt.Errorf("series version %d, this report reads %d", s.Version, SeriesVersion)
	}
	if s.BucketMS <= 0 || s.Buckets < 0 || s.Buckets > MaxBuckets {
		return fmt.Errorf("series bucket_ms %d, buckets %d: want bucket_ms > 0 and 0 <= buckets <= %d", s.BucketMS, s.Buckets, MaxBuckets)
	}
	check := func(what string, n int) error {
		if n != 0 && n != s.Buckets {
			return fmt.Errorf("series %s has %d buckets, want %d", what, n, s.Buckets)
		}
		return nil
	}
	for _, k := range s.Requests {
		if err := check("requests "+k.Key, len(k.Counts)); err != nil {
			return err
		}
	}
	for _, c := range s.Consumers {
		for _, x := range []struct {
			what string
			n    int
		}{{"steps", len(c.Steps)}, {"spurious_wakeups", len(c.SpuriousWakeups)}, {"app_wakeups", len(c.AppWakeups)}, {"cpu_ms", len(c.CPUMS)}} {
			if err := check(c.Client+" "+x.what, x.n); err != nil {
				return err
			}
		}
		if slices.ContainsFunc(c.CPUMS, notFinite) {
			return fmt.Errorf("series %s cpu_ms holds a non-finite value", c.Client)
		}
		for _, t := range c.Threads {
			if err := check(c.Client+" thread "+t.Name, len(t.CPUMS)); err != nil {
				return err
			}
		}
		for _, d := range c.Calls {
			if len(d.SamplesMS) > MaxDurationSamples || slices.ContainsFunc(d.SamplesMS, notFinite) {
				return fmt.Errorf("series %s call %s: %d samples (max %d) or a non-finite one", c.Client, d.Call, len(d.SamplesMS), MaxDurationSamples)
			}
		}
	}
	return nil
}

func notFinite(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

// decodeSeries decodes an EntrySeries value.
func decodeSeries(asJSON string) (*Series, error) {
	var s Series
	if err := json.Unmarshal([]byte(asJSON), &s); err != nil {
		return nil, fmt.Errorf("decode %s: %w", EntrySeries, err)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", EntrySeries, err)
	}
	return &s, nil
}

// decodeStrings decodes a JSON array of strings (EntrySignals,
// EntryFailedKeys, EntryLiveness).
func decodeStrings(name, asJSON string) ([]string, error) {
	var out []string
	if err := json.Unmarshal([]byte(asJSON), &out); err != nil {
		return nil, fmt.Errorf("decode %s (want a JSON array of strings): %w", name, err)
	}
	return out, nil
}
