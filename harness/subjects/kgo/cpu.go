package kgo

// CPU time of one in-process kgo consumer, by pprof labels.
//
// The kgo subject runs in the test process, so the process's CPU time
// (getrusage, /proc) mixes the consumer with the harness and an in-process
// kfake broker: it means nothing for "does this client spin". Instead every
// goroutine of the consumer carries a pprof label naming it: the kgo client
// is created inside pprof.Do (every goroutine kgo starts, and every
// goroutine those start, inherits the label), and each application call
// labels the calling goroutine while it runs. A CPU profile over the window
// then attributes each 10 ms sample to the consumer it interrupted. This
// counts the consumer's goroutines, not Go's GC workers, and resolves to the
// profiler's 100 Hz: a spin of seconds shows plainly, an idle client reads
// as 0-20 ms. Only one CPU profile can run per process: StartCPU fails (the
// figure is n/a) under `go test -cpuprofile` or another StartCPU.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime/pprof"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/google/pprof/profile"
)

// cpuLabel is the pprof label key naming a consumer; its value is the
// consumer's CPUKey.
const cpuLabel = "kreactor.kgo.consumer"

// consumerIDs numbers consumers for their CPUKey.
var consumerIDs atomic.Uint64

// ErrCPUProfilerBusy is returned by StartCPU when a CPU profile is already
// running in this process (go test -cpuprofile, another CPUWindow).
var ErrCPUProfilerBusy = errors.New("kgo subject: the process CPU profiler is in use; per-consumer CPU is n/a")

// CPUWindow is a running CPU profile; Stop ends it.
type CPUWindow struct {
	buf   bytes.Buffer
	start time.Time
}

// StartCPU starts a CPU profile of this process (runtime/pprof, 100 Hz).
// Errors: ErrCPUProfilerBusy. Stop it with Stop.
func StartCPU() (*CPUWindow, error) {
	w := &CPUWindow{start: time.Now()}
	if err := pprof.StartCPUProfile(&w.buf); err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrCPUProfilerBusy, err)
	}
	return w, nil
}

// CPUFigures is what a CPUWindow saw.
type CPUFigures struct {
	Window time.Duration            // wall time from StartCPU to Stop
	ByKey  map[string]time.Duration // CPU time of each labeled consumer (CPUKey), from 10 ms samples
	Total  time.Duration            // CPU time of every sampled goroutine in the process
}

// Stop ends the profile and attributes its samples. Errors: the profile
// could not be parsed.
func (w *CPUWindow) Stop() (CPUFigures, error) {
	pprof.StopCPUProfile()
	f := CPUFigures{Window: time.Since(w.start), ByKey: map[string]time.Duration{}}
	p, err := profile.Parse(&w.buf)
	if err != nil {
		return f, fmt.Errorf("kgo subject: parsing the CPU profile: %w", err)
	}
	idx := -1
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			idx = i
		}
	}
	if idx < 0 {
		return f, errors.New("kgo subject: the CPU profile has no cpu sample type")
	}
	for _, s := range p.Sample {
		d := time.Duration(s.Value[idx])
		f.Total += d
		for _, key := range s.Label[cpuLabel] {
			f.ByKey[key] += d
		}
	}
	return f, nil
}

// cpuKey labels one consumer's goroutines.
type cpuKey struct {
	key string
	ctx context.Context // carries the label; read-only
}

func newCPUKey() cpuKey {
	key := "kgo-" + strconv.FormatUint(consumerIDs.Add(1), 10)
	return cpuKey{key: key, ctx: pprof.WithLabels(context.Background(), pprof.Labels(cpuLabel, key))}
}

// enter labels the calling goroutine (an application call starting);
// goroutines it starts inherit the label.
func (k cpuKey) enter() { pprof.SetGoroutineLabels(k.ctx) }

// leave clears the calling goroutine's labels (application goroutines carry
// none of their own in this harness).
func (k cpuKey) leave() { pprof.SetGoroutineLabels(context.Background()) }
