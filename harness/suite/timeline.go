package suite

// The spec timeline: what the conformance report plots. Every cluster and
// consumer a spec makes through the selected target and subject (Selected
// returns them wrapped, see recorded.go) is recorded on the running spec's
// timeline without the spec doing anything:
//
//   - the cluster's recorder is read when the cluster closes (or when the
//     spec's cleanup runs) and the spec's consumers' requests are counted
//     per API key in buckets;
//   - each consumer is sampled every SampleInterval (loop Stats, application
//     wakeups, CPU) from creation until it closes or the spec ends, and its
//     Poll / CommitSync / Close durations are kept;
//   - faults installed through the cluster (CoordinatorUnavailable,
//     StopBroker, Inject, Observe) are timestamped, and so are their Heal.
//
// When the spec ends (a DeferCleanup registered with the first record,
// so it runs after every later cleanup: consumer closes, cluster closes)
// the timeline is attached to the spec as one reports.EntrySeries report
// entry (visibility Never), at most reports.MaxBuckets buckets long. Every
// sampler goroutine has stopped by then, so the suites' goleak check holds.
//
// Outside a running Ginkgo spec (the CLI's `kreactor run`, BeforeSuite)
// nothing is recorded and the wrappers are not installed.
//
// A cluster or consumer made in a BeforeAll is recorded on the spec running
// when it was made and flushed after the Ordered container's last spec.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/reports"
)

const (
	// SampleInterval is how often a consumer's counters and CPU are read.
	// Reading them is a few atomic loads and one getrusage call, so 100 ms
	// does not perturb what the specs measure.
	SampleInterval = 100 * time.Millisecond
	// BucketWidth is the series' bucket width before doubling for specs
	// longer than reports.MaxBuckets buckets.
	BucketWidth = 100 * time.Millisecond
)

// recording is the running spec's timeline. Fields after mu are guarded by
// it; spec and start are set once.
type recording struct {
	spec  string // identity of the spec it belongs to (location + start)
	start time.Time

	mu        sync.Mutex
	faults    []*faultRecord
	consumers []*consumerTrack
	clusters  []*recordedCluster
	requests  []harness.Request // snapshots of closed clusters' recorders
	flushed   bool
}

// faultRecord is one fault window; to is zero while installed. Guarded by
// recording.mu.
type faultRecord struct {
	kind, detail string
	from, to     time.Time
}

var (
	recMu   sync.Mutex
	current *recording // the running spec's recording; guarded by recMu
)

// inSpec reports whether a Ginkgo spec (its It or a setup node of it) is
// running on this process.
func inSpec() bool {
	r := ginkgo.CurrentSpecReport()
	return r.LeafNodeType == types.NodeTypeIt && !r.StartTime.IsZero()
}

// specRecording returns the running spec's recording, starting it (and
// registering its flush) on first use; nil outside a spec.
func specRecording() *recording {
	if !inSpec() {
		return nil
	}
	r := ginkgo.CurrentSpecReport()
	id := fmt.Sprintf("%s@%d", r.LeafNodeLocation, r.StartTime.UnixNano())
	recMu.Lock()
	defer recMu.Unlock()
	if current != nil && current.spec == id {
		return current
	}
	if current != nil {
		current.stopSamplers() // a previous spec's, never flushed
	}
	rec := &recording{spec: id, start: time.Now()}
	current = rec
	ginkgo.DeferCleanup(rec.flush)
	return rec
}

// addFault records a fault installed now and returns it wrapped so its Heal
// is timestamped. A failed install (err != nil) records nothing.
func (r *recording) addFault(f harness.Fault, err error, kind, detail string) (harness.Fault, error) {
	if err != nil || f == nil {
		return f, err
	}
	fr := &faultRecord{kind: kind, detail: detail, from: time.Now()}
	r.mu.Lock()
	r.faults = append(r.faults, fr)
	r.mu.Unlock()
	return &recordedFault{Fault: f, rec: r, fr: fr}, nil
}

// healed marks fr healed at now (first Heal only).
func (r *recording) healed(fr *faultRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if fr.to.IsZero() {
		fr.to = time.Now()
	}
}

// recordedFault timestamps Heal.
type recordedFault struct {
	harness.Fault
	rec  *recording
	fr   *faultRecord
	once sync.Once
}

// Heal records the heal time and heals the fault.
func (f *recordedFault) Heal() {
	f.once.Do(func() { f.rec.healed(f.fr) })
	f.Fault.Heal()
}

func (r *recording) stopSamplers() {
	r.mu.Lock()
	cs := slices.Clone(r.consumers)
	r.mu.Unlock()
	for _, c := range cs {
		c.stop()
	}
}

// flush stops the samplers, snapshots open clusters' recorders and attaches
// the series to the spec.
func (r *recording) flush() {
	r.stopSamplers()
	r.mu.Lock()
	clusters := slices.Clone(r.clusters)
	r.mu.Unlock()
	for _, c := range clusters {
		c.snapshot()
	}
	end := time.Now()
	r.mu.Lock()
	r.flushed = true
	s := r.series(end)
	r.mu.Unlock()
	recMu.Lock()
	if current == r {
		current = nil
	}
	recMu.Unlock()
	ginkgo.AddReportEntry(reports.EntrySeries, s, ginkgo.ReportEntryVisibilityNever)
}

// series builds the bucketed series; r.mu is held.
func (r *recording) series(end time.Time) *reports.Series {
	width := BucketWidth
	n := bucketsIn(end.Sub(r.start), width)
	for n > reports.MaxBuckets {
		width *= 2
		n = bucketsIn(end.Sub(r.start), width)
	}
	s := &reports.Series{Version: reports.SeriesVersion, Start: r.start, BucketMS: width.Milliseconds(), Buckets: n}
	bucket := func(t time.Time) int {
		i := int(t.Sub(r.start) / width)
		return min(max(i, 0), n-1)
	}

	// Requests of the spec's consumers (all but the producer's when a
	// consumer has no client id), per API key in order of first use.
	clients := map[string]bool{}
	anyClient := false
	for _, c := range r.consumers {
		clients[c.client] = true
		anyClient = anyClient || c.client == ""
	}
	byKey := map[string]*reports.KeyCounts{}
	for _, q := range r.requests {
		if q.At.Before(r.start) || !q.At.Before(end) {
			continue
		}
		if anyClient || len(clients) == 0 {
			if q.ClientID == harness.ProducerClientID {
				continue
			}
		} else if !clients[q.ClientID] {
			continue
		}
		name := q.Key.Name()
		kc := byKey[name]
		if kc == nil {
			kc = &reports.KeyCounts{Key: name, Counts: make([]int64, n)}
			byKey[name] = kc
			s.Requests = append(s.Requests, reports.KeyCounts{Key: name})
		}
		kc.Counts[bucket(q.At)]++
	}
	for i := range s.Requests {
		s.Requests[i] = *byKey[s.Requests[i].Key]
	}

	for _, c := range r.consumers {
		s.Consumers = append(s.Consumers, c.series(r.start, width, n))
	}
	ms := func(t time.Time) int64 { return t.Sub(r.start).Milliseconds() }
	for _, f := range r.faults {
		w := reports.FaultWindow{Kind: f.kind, Detail: f.detail, FromMS: ms(f.from), ToMS: -1}
		if !f.to.IsZero() {
			w.ToMS = ms(f.to)
		}
		s.Faults = append(s.Faults, w)
	}
	return s
}

func bucketsIn(d, width time.Duration) int {
	return max(1, int(math.Ceil(float64(d)/float64(width))))
}

// reservoir keeps a uniform sample of at most reports.MaxDurationSamples
// durations (Vitter's algorithm R), with exact count, min and max.
type reservoir struct {
	count    int64
	min, max float64
	samples  []float64
}

func (v *reservoir) add(ms float64) {
	v.count++
	if v.count == 1 || ms < v.min {
		v.min = ms
	}
	if ms > v.max {
		v.max = ms
	}
	if len(v.samples) < reports.MaxDurationSamples {
		v.samples = append(v.samples, ms)
		return
	}
	if j := rand.Int64N(v.count); j < int64(len(v.samples)) {
		v.samples[j] = ms
	}
}
