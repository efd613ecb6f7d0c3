package suite

import (
	"context"
	"errors"
	"math"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/measure"
	"github.com/kreactor/kreactor/internal/chans"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
	"github.com/kreactor/kreactor/reports"
)

// sample is one reading of a consumer's cumulative counters.
type sample struct {
	at                     time.Time
	steps, spurious, wakes uint64
	cpu                    time.Duration
	threads                map[string]time.Duration
}

// consumerTrack samples one consumer and keeps its call durations. Fields
// after mu are guarded by it.
type consumerTrack struct {
	client, kind string
	stats        func() reactor.Stats // nil: no loop probe
	appWakeups   func() uint64        // nil: no probe
	cpu          func() (time.Duration, map[string]time.Duration, error)
	cpuScope     string
	timer        measure.CallTimer // nil: calls are timed here (an in-process client)

	stopOnce sync.Once
	stopCh   chan struct{}
	done     chan struct{}

	mu      sync.Mutex
	samples []sample
	cpuOK   bool
	calls   map[string]*reservoir
	order   []string // call kinds in order of first use
}

// newTrack starts sampling c (the innermost consumer, whose probes and
// abilities it reads) and adds it to rec.
func newTrack(rec *recording, client, kind string, c any) *consumerTrack {
	t := &consumerTrack{client: client, kind: kind, stopCh: make(chan struct{}), done: make(chan struct{}), calls: map[string]*reservoir{}, cpuOK: true}
	if s, ok := c.(interface{ Stats() reactor.Stats }); ok {
		t.stats = s.Stats
	}
	if w, ok := c.(interface{ AppWakeups() uint64 }); ok {
		t.appWakeups = w.AppWakeups
	}
	if ct, ok := c.(measure.CallTimer); ok {
		t.timer = ct
	}
	if cs, ok := c.(measure.CPUSampler); ok {
		t.cpu, t.cpuScope = cs.CPUTime, "subject"
	} else {
		t.cpu = func() (time.Duration, map[string]time.Duration, error) {
			d, err := measure.ProcessCPU()
			return d, nil, err
		}
		t.cpuScope = "process"
	}
	t.take()
	rec.mu.Lock()
	rec.consumers = append(rec.consumers, t)
	rec.mu.Unlock()
	go t.run()
	return t
}

func (t *consumerTrack) run() {
	defer close(t.done)
	chans.Every(SampleInterval, t.stopCh, func(time.Time) bool {
		t.take()
		return true
	})
}

// take appends one sample.
func (t *consumerTrack) take() {
	s := sample{at: time.Now()}
	if t.stats != nil {
		st := t.stats()
		s.steps, s.spurious = st.Steps, st.SpuriousWakeups
	}
	if t.appWakeups != nil {
		s.wakes = t.appWakeups()
	}
	t.mu.Lock()
	ok := t.cpuOK
	t.mu.Unlock()
	if ok {
		cpu, threads, err := t.cpu()
		if err != nil {
			ok = false
		}
		s.cpu, s.threads = cpu, threads
	}
	t.mu.Lock()
	t.cpuOK = t.cpuOK && ok
	t.samples = append(t.samples, s)
	t.mu.Unlock()
}

// stop takes a last sample and stops the sampler goroutine; idempotent.
func (t *consumerTrack) stop() {
	t.stopOnce.Do(func() {
		close(t.stopCh)
		<-t.done
		t.take()
	})
}

// call records one application call's duration.
func (t *consumerTrack) call(kind string, d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := t.calls[kind]
	if v == nil {
		v = &reservoir{}
		t.calls[kind] = v
		t.order = append(t.order, kind)
	}
	v.add(float64(d.Microseconds()) / 1000)
}

// timed runs fn and records its duration as kind, unless fn reports
// (returns false) that the call did nothing (Close of a closed consumer).
// For a consumer in another process (CallTimer) kind is the client's own
// time for the call and the round trip from here is recorded apart, as
// kind + "_round_trip".
func (t *consumerTrack) timed(kind string, fn func() bool) {
	start := time.Now()
	if !fn() {
		return
	}
	took := time.Since(start)
	if t.timer != nil {
		if inside, rt, ok := t.timer.LastCallTime(kind); ok {
			t.call(kind, inside)
			t.call(kind+"_round_trip", rt)
			return
		}
	}
	t.call(kind, took)
}

// series buckets the samples. Counters are cumulative, so each bucket gets
// the counter's growth across it, interpolated linearly between the samples
// around its edges: a sample tick that drifts across a bucket edge moves
// counts between neighbours instead of leaving one bucket empty and doubling
// the next. Totals are kept exactly (integers are rounded at the edges).
func (t *consumerTrack) series(start time.Time, width time.Duration, n int) reports.ConsumerSeries {
	t.mu.Lock()
	defer t.mu.Unlock()
	cs := reports.ConsumerSeries{Client: t.client, Kind: t.kind}
	edges := make([]time.Time, n+1)
	for i := range edges {
		edges[i] = start.Add(time.Duration(i) * width)
	}
	// perBucket returns the growth of the cumulative value v per bucket.
	perBucket := func(v func(sample) float64) []float64 {
		out := make([]float64, n)
		prev := interpolate(t.samples, edges[0], v)
		for i := 1; i <= n; i++ {
			cur := interpolate(t.samples, edges[i], v)
			out[i-1] = cur - prev
			prev = cur
		}
		return out
	}
	counts := func(v func(sample) uint64) []int64 {
		out := make([]int64, n)
		prev := math.Round(interpolate(t.samples, edges[0], func(s sample) float64 { return float64(v(s)) }))
		for i := 1; i <= n; i++ {
			cur := math.Round(interpolate(t.samples, edges[i], func(s sample) float64 { return float64(v(s)) }))
			out[i-1] = int64(cur - prev)
			prev = cur
		}
		return out
	}
	if t.stats != nil {
		cs.Steps = counts(func(s sample) uint64 { return s.steps })
		cs.SpuriousWakeups = counts(func(s sample) uint64 { return s.spurious })
	}
	if t.appWakeups != nil {
		cs.AppWakeups = counts(func(s sample) uint64 { return s.wakes })
	}
	if t.cpuOK {
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		cs.CPUMS, cs.CPUScope = perBucket(func(s sample) float64 { return ms(s.cpu) }), t.cpuScope
		var names []string
		for _, s := range t.samples {
			for name := range s.threads {
				if !slices.Contains(names, name) {
					names = append(names, name)
				}
			}
		}
		slices.Sort(names)
		for _, name := range names {
			cs.Threads = append(cs.Threads, reports.ThreadCPU{Name: name, CPUMS: perBucket(func(s sample) float64 { return ms(s.threads[name]) })})
		}
	}
	for _, kind := range t.order {
		v := t.calls[kind]
		cs.Calls = append(cs.Calls, reports.CallDurations{Call: kind, Count: v.count, MinMS: v.min, MaxMS: v.max, SamplesMS: append([]float64(nil), v.samples...)})
	}
	return cs
}

// interpolate is the cumulative value v at time at, linear between the
// samples around it, the first sample's value before them and the last's
// after them (samples are in time order).
func interpolate(samples []sample, at time.Time, v func(sample) float64) float64 {
	if len(samples) == 0 {
		return 0
	}
	i := sort.Search(len(samples), func(i int) bool { return !samples[i].at.Before(at) })
	switch {
	case i == 0:
		return v(samples[0])
	case i == len(samples):
		return v(samples[len(samples)-1])
	}
	a, b := samples[i-1], samples[i]
	span := b.at.Sub(a.at)
	if span <= 0 {
		return v(b)
	}
	f := float64(at.Sub(a.at)) / float64(span)
	return v(a) + f*(v(b)-v(a))
}

// recordedConsumer times Poll, CommitSync and Close of a Consumer and stops
// its sampler at Close.
type recordedConsumer struct {
	harness.Consumer
	t *consumerTrack
}

// Unwrap returns the wrapped consumer.
func (c *recordedConsumer) Unwrap() harness.Consumer { return c.Consumer }

func (c *recordedConsumer) Subscribe(topics ...string) error {
	return noteHarnessError(c.Consumer.Subscribe(topics...))
}

func (c *recordedConsumer) Assign(tps ...harness.TopicPartition) error {
	return noteHarnessError(c.Consumer.Assign(tps...))
}

func (c *recordedConsumer) Pause(tps ...harness.TopicPartition) error {
	return noteHarnessError(c.Consumer.Pause(tps...))
}

func (c *recordedConsumer) Resume(tps ...harness.TopicPartition) error {
	return noteHarnessError(c.Consumer.Resume(tps...))
}

func (c *recordedConsumer) CommitAsync(cb func(error)) {
	c.Consumer.CommitAsync(func(err error) { cb(noteHarnessError(err)) })
}

func (c *recordedConsumer) Poll(ctx context.Context) (recs []consumer.Record, err error) {
	c.t.timed("poll", func() bool { recs, err = c.Consumer.Poll(ctx); return true })
	return recs, noteHarnessError(err)
}

func (c *recordedConsumer) CommitSync(ctx context.Context) (err error) {
	c.t.timed("commit_sync", func() bool { err = c.Consumer.CommitSync(ctx); return true })
	return noteHarnessError(err)
}

func (c *recordedConsumer) Close(ctx context.Context) (err error) {
	c.t.timed("close", func() bool { err = c.Consumer.Close(ctx); return !errors.Is(err, consumer.ErrClosed) })
	c.t.stop()
	return noteHarnessError(err)
}

// recordedShareConsumer is recordedConsumer for share consumers.
type recordedShareConsumer struct {
	harness.ShareConsumer
	t *consumerTrack
}

// Unwrap returns the wrapped share consumer.
func (c *recordedShareConsumer) Unwrap() harness.ShareConsumer { return c.ShareConsumer }

func (c *recordedShareConsumer) Subscribe(topics ...string) error {
	return noteHarnessError(c.ShareConsumer.Subscribe(topics...))
}

func (c *recordedShareConsumer) Acknowledge(r consumer.ShareRecord, typ consumer.AcknowledgeType) error {
	return noteHarnessError(c.ShareConsumer.Acknowledge(r, typ))
}

func (c *recordedShareConsumer) CommitAsync() error {
	return noteHarnessError(c.ShareConsumer.CommitAsync())
}

func (c *recordedShareConsumer) Poll(ctx context.Context) (recs []consumer.ShareRecord, err error) {
	c.t.timed("poll", func() bool { recs, err = c.ShareConsumer.Poll(ctx); return true })
	return recs, noteHarnessError(err)
}

func (c *recordedShareConsumer) CommitSync(ctx context.Context) (res map[managers.TopicPartition]error, err error) {
	c.t.timed("commit_sync", func() bool { res, err = c.ShareConsumer.CommitSync(ctx); return true })
	return res, noteHarnessError(err)
}

func (c *recordedShareConsumer) Close(ctx context.Context) (err error) {
	c.t.timed("close", func() bool { err = c.ShareConsumer.Close(ctx); return !errors.Is(err, consumer.ErrClosed) })
	c.t.stop()
	return noteHarnessError(err)
}
