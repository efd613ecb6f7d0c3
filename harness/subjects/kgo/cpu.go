package kgo

// CPU time of one in-process kgo consumer, by pprof labels.
//
// The kgo subject runs in the test process, so the process's CPU time
// (getrusage, /proc) mixes the consumer with the harness and an in-process
// kfake broker: it means nothing for "does this client spin". Instead every
// goroutine of the consumer carries a pprof label naming it: the kgo client
// is created inside pprof.Do (every goroutine kgo starts, and every
// goroutine those start, inherits the label), and each application call
// labels the calling goroutine while it runs. A CPU profile then attributes
// each 10 ms sample to the consumer it interrupted. This counts the
// consumer's goroutines, not Go's GC workers, and resolves to the
// profiler's 100 Hz: a spin of seconds shows plainly, an idle client reads
// as 0-20 ms.
//
// Only one CPU profile can run per process, so every reader shares one:
// the profiler runs while anyone holds it (a CPUWindow, or a consumer whose
// CPUTime was asked for), in segments of cpuSegment; each finished segment
// is parsed and added to per-consumer totals. A window's edges end the
// running segment (flush), so a window is exact to the 10 ms sample; between
// segments the profiler is off while runtime/pprof drains its last samples
// (up to ~100 ms per segment), so long figures undercount by up to a tenth.
// Under `go test -cpuprofile` the profiler is taken: StartCPU fails with
// ErrCPUProfilerBusy and CPUTime with the same error (the figure is n/a).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/pprof/profile"

	"github.com/kreactor/kreactor/internal/chans"
)

// cpuLabel is the pprof label key naming a consumer; its value is the
// consumer's CPUKey.
const cpuLabel = "kreactor.kgo.consumer"

// cpuSegment is how long one profile segment runs before it is parsed into
// the totals: the resolution of CPUTime between window edges.
const cpuSegment = time.Second

// consumerIDs numbers consumers for their CPUKey.
var consumerIDs atomic.Uint64

// ErrCPUProfilerBusy is returned by StartCPU and CPUTime when a CPU profile
// this package did not start is running (go test -cpuprofile, a benchmark's
// profile).
var ErrCPUProfilerBusy = errors.New("kgo subject: the process CPU profiler is in use; per-consumer CPU is n/a")

// profiler is the process's one shared CPU profile. rot serialises
// segment rotations (StopCPUProfile blocks while pprof drains); the fields
// after mu are guarded by mu.
var profiler struct {
	rot sync.Mutex

	mu      sync.Mutex
	users   int                      // holders; the profile runs while > 0
	buf     *bytes.Buffer            // the running segment's profile; nil when stopped
	totals  map[string]time.Duration // finished segments: CPU per label value
	total   time.Duration            // finished segments: every sample
	stopSeg chan struct{}            // closes to stop the rotation goroutine
	rotDone chan struct{}            // closed when it has stopped
}

// acquireProfiler starts the shared profile unless it runs. Errors:
// ErrCPUProfilerBusy.
func acquireProfiler() error {
	profiler.rot.Lock()
	defer profiler.rot.Unlock()
	profiler.mu.Lock()
	defer profiler.mu.Unlock()
	if profiler.users > 0 || profiler.buf != nil {
		// Running, or being stopped by the last holder's release, which
		// sees this holder and keeps it running.
		profiler.users++
		return nil
	}
	buf := &bytes.Buffer{}
	if err := pprof.StartCPUProfile(buf); err != nil {
		return fmt.Errorf("%w (%v)", ErrCPUProfilerBusy, err)
	}
	if profiler.totals == nil {
		profiler.totals = map[string]time.Duration{}
	}
	profiler.users, profiler.buf = 1, buf
	profiler.stopSeg, profiler.rotDone = make(chan struct{}), make(chan struct{})
	go rotate(profiler.stopSeg, profiler.rotDone)
	return nil
}

// releaseProfiler drops one holder; the last one stops the profile (its
// samples are added to the totals first).
func releaseProfiler() {
	profiler.mu.Lock()
	profiler.users--
	last := profiler.users == 0
	stop, done := profiler.stopSeg, profiler.rotDone
	profiler.mu.Unlock()
	if !last {
		return
	}
	close(stop)
	<-done
	profiler.rot.Lock()
	defer profiler.rot.Unlock()
	profiler.mu.Lock()
	if profiler.users > 0 { // acquired again meanwhile: keep it running
		profiler.mu.Unlock()
		profiler.stopSeg, profiler.rotDone = make(chan struct{}), make(chan struct{})
		go rotate(profiler.stopSeg, profiler.rotDone)
		return
	}
	buf := profiler.buf
	profiler.buf = nil
	profiler.mu.Unlock()
	if buf != nil {
		pprof.StopCPUProfile()
		addSegment(buf)
	}
}

// rotate ends a segment every cpuSegment until stop closes.
func rotate(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	chans.Every(cpuSegment, stop, func(time.Time) bool {
		_ = flushProfiler()
		return true
	})
}

// flushProfiler ends the running segment now and starts the next, so the
// totals include every sample up to this instant. Errors: the next segment
// could not start (another profile took the profiler in between); the
// totals are still up to date.
func flushProfiler() error {
	profiler.rot.Lock()
	defer profiler.rot.Unlock()
	profiler.mu.Lock()
	running := profiler.buf != nil
	profiler.mu.Unlock()
	if !running {
		return nil
	}
	pprof.StopCPUProfile()
	profiler.mu.Lock()
	old := profiler.buf
	profiler.buf = &bytes.Buffer{}
	err := pprof.StartCPUProfile(profiler.buf)
	if err != nil {
		profiler.buf = nil
	}
	profiler.mu.Unlock()
	addSegment(old)
	if err != nil {
		return fmt.Errorf("%w (%v)", ErrCPUProfilerBusy, err)
	}
	return nil
}

// addSegment parses a finished segment into the totals (a segment that
// does not parse is dropped: it was cut short).
func addSegment(buf *bytes.Buffer) {
	p, err := profile.Parse(buf)
	if err != nil {
		return
	}
	idx := -1
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			idx = i
		}
	}
	if idx < 0 {
		return
	}
	profiler.mu.Lock()
	defer profiler.mu.Unlock()
	for _, s := range p.Sample {
		d := time.Duration(s.Value[idx])
		profiler.total += d
		for _, key := range s.Label[cpuLabel] {
			profiler.totals[key] += d
		}
	}
}

// totalsNow returns the totals of the finished segments.
func totalsNow() (map[string]time.Duration, time.Duration) {
	profiler.mu.Lock()
	defer profiler.mu.Unlock()
	out := make(map[string]time.Duration, len(profiler.totals))
	for k, v := range profiler.totals {
		out[k] = v
	}
	return out, profiler.total
}

// CPUWindow is a measurement window over the shared profile; Stop ends it.
// Several windows may be open at once.
type CPUWindow struct {
	start  time.Time
	before map[string]time.Duration
	total  time.Duration
}

// StartCPU opens a CPU window: the shared profile (runtime/pprof, 100 Hz)
// runs at least until Stop. Errors: ErrCPUProfilerBusy.
func StartCPU() (*CPUWindow, error) {
	if err := acquireProfiler(); err != nil {
		return nil, err
	}
	_ = flushProfiler()
	before, total := totalsNow()
	return &CPUWindow{start: time.Now(), before: before, total: total}, nil
}

// CPUFigures is what a CPUWindow saw.
type CPUFigures struct {
	Window time.Duration            // wall time from StartCPU to Stop
	ByKey  map[string]time.Duration // CPU time of each labeled consumer (CPUKey), from 10 ms samples
	Total  time.Duration            // CPU time of every sampled goroutine in the process
}

// Stop ends the window and attributes its samples. Errors: the profile
// could not be restarted during the window (another profile took it).
func (w *CPUWindow) Stop() (CPUFigures, error) {
	err := flushProfiler()
	after, total := totalsNow()
	releaseProfiler()
	f := CPUFigures{Window: time.Since(w.start), ByKey: map[string]time.Duration{}, Total: total - w.total}
	for k, v := range after {
		if d := v - w.before[k]; d > 0 {
			f.ByKey[k] = d
		}
	}
	return f, err
}

// cpuKey labels one consumer's goroutines and samples its CPU.
type cpuKey struct {
	key string
	ctx context.Context // carries the label; read-only
	s   *cpuState
}

// cpuState is a consumer's hold on the shared profile; fields guarded by mu.
type cpuState struct {
	mu       sync.Mutex
	held     bool          // acquired by CPUTime
	closed   bool          // the consumer closed: final is the last value
	final    time.Duration // CPU at close
	failed   error         // acquiring failed: CPUTime keeps answering it
	released bool
}

func newCPUKey() cpuKey {
	key := "kgo-" + strconv.FormatUint(consumerIDs.Add(1), 10)
	return cpuKey{key: key, ctx: pprof.WithLabels(context.Background(), pprof.Labels(cpuLabel, key)), s: &cpuState{}}
}

// enter labels the calling goroutine (an application call starting);
// goroutines it starts inherit the label.
func (k cpuKey) enter() { pprof.SetGoroutineLabels(k.ctx) }

// leave clears the calling goroutine's labels (application goroutines carry
// none of their own in this harness).
func (k cpuKey) leave() { pprof.SetGoroutineLabels(context.Background()) }

// cpuTime is the consumer's attributed CPU since its first CPUTime call
// (the shared profile starts then and runs until the consumer closes),
// as of the last finished segment (cpuSegment). The one thread group is
// "kgo" (the consumer's goroutines). Errors: ErrCPUProfilerBusy.
func (k cpuKey) cpuTime() (time.Duration, map[string]time.Duration, error) {
	k.s.mu.Lock()
	defer k.s.mu.Unlock()
	if k.s.failed != nil {
		return 0, nil, k.s.failed
	}
	if k.s.closed {
		return k.s.final, map[string]time.Duration{CPUGoroutines: k.s.final}, nil
	}
	if !k.s.held {
		if err := acquireProfiler(); err != nil {
			k.s.failed = err
			return 0, nil, err
		}
		k.s.held = true
	}
	totals, _ := totalsNow()
	d := totals[k.key]
	return d, map[string]time.Duration{CPUGoroutines: d}, nil
}

// flushCPU ends the running segment so the next cpuTime is exact to now
// (harness CPU windows call it at their edges through FlushCPU).
func (k cpuKey) flushCPU() {
	k.s.mu.Lock()
	held := k.s.held && !k.s.closed
	k.s.mu.Unlock()
	if held {
		_ = flushProfiler()
	}
}

// closeCPU records the final value and lets go of the shared profile; called
// once by Close after the client stopped.
func (k cpuKey) closeCPU() {
	k.s.mu.Lock()
	held := k.s.held && !k.s.released
	k.s.mu.Unlock()
	if !held {
		k.s.mu.Lock()
		k.s.closed = true
		k.s.mu.Unlock()
		return
	}
	_ = flushProfiler()
	totals, _ := totalsNow()
	k.s.mu.Lock()
	k.s.closed, k.s.final, k.s.released = true, totals[k.key], true
	k.s.mu.Unlock()
	releaseProfiler()
}

// CPUGoroutines is the one thread group CPUTime reports: the consumer's
// labelled goroutines.
const CPUGoroutines = "kgo"

// CPUTime is the consumer's cumulative CPU time attributed by pprof label
// (see cpu.go): the harness's CPUSampler. The first call starts the shared
// CPU profile, which runs until Close; values are as of the last finished
// segment (1 s) unless FlushCPU was called just before. Errors:
// ErrCPUProfilerBusy (another CPU profile runs in this process).
func (c *Consumer) CPUTime() (time.Duration, map[string]time.Duration, error) {
	return c.cpu.cpuTime()
}

// FlushCPU brings CPUTime up to this instant (a CPU window's edge).
func (c *Consumer) FlushCPU() { c.cpu.flushCPU() }

// CPUTime is Consumer.CPUTime for the share consumer.
func (c *ShareConsumer) CPUTime() (time.Duration, map[string]time.Duration, error) {
	return c.cpu.cpuTime()
}

// FlushCPU is Consumer.FlushCPU for the share consumer.
func (c *ShareConsumer) FlushCPU() { c.cpu.flushCPU() }
