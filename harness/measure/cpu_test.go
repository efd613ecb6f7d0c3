package measure

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
)

// TestCPUBound: the bound scales the idle window to the fault window's
// length, a spin fails it and a quiet fault window passes; a process-scope
// figure is never checked; a figure read in two scopes is an error.
func TestCPUBound(t *testing.T) {
	idle := CPUUse{Window: 2 * time.Second, Scope: ScopeSubject, Total: 300 * time.Millisecond, Consumer: 60 * time.Millisecond, Selects: 90}
	b := DefaultCPUBound
	if got, want := b.Max(idle, 3*time.Second), 3*90*time.Millisecond+100*time.Millisecond; got != want {
		t.Fatalf("Max over a 3 s window with 60 ms idle in 2 s = %s, want %s", got, want)
	}
	quiet := CPUUse{Window: 3 * time.Second, Scope: ScopeSubject, Total: 500 * time.Millisecond, Consumer: 100 * time.Millisecond, Selects: 300,
		Threads: map[string]time.Duration{"background": 60 * time.Millisecond}}
	v, err := JudgeCPU(quiet, idle, b)
	if err != nil || !v.OK() || !v.Checked {
		t.Fatalf("quiet window: %+v, %v; want checked and held", v, err)
	}
	// KAFKA-21031 on kafka-clients 4.4.0: a core for the whole window.
	// With select-total counted it is the signal; the CPU is a figure.
	spin := CPUUse{Window: 3 * time.Second, Scope: ScopeSubject, Total: 3 * time.Second, Consumer: 2 * time.Second, Selects: 142_000}
	v, err = JudgeCPU(spin, idle, b)
	if err != nil || !v.SelectsSignal || !v.CPUOK || v.SelectsOK || v.OK() {
		t.Fatalf("spinning window: %+v, %v; want select-total failed, CPU shown only", v, err)
	}
	if msg := v.Message(); !strings.Contains(msg, "select-total") {
		t.Fatalf("message %q: want the select-total failure named", msg)
	}
	if f := v.Figures("cpu")[0]; !f.Pass || !strings.Contains(f.Bound, "exceeded") || !strings.Contains(f.Bound, "select-total is the signal") {
		t.Fatalf("CPU figure %+v: want passing, shown only, its bound marked exceeded", f)
	}
	// Without select-total (kgo) the CPU is the signal: the spin fails it.
	noSelSpin, noSelIdle := spin, idle
	noSelSpin.Selects, noSelIdle.Selects = math.NaN(), math.NaN()
	v, _ = JudgeCPU(noSelSpin, noSelIdle, b)
	if v.SelectsSignal || v.CPUOK || !v.SelectsOK || !strings.Contains(v.Message(), "spins") {
		t.Fatalf("spin without select-total: %+v; want the CPU bound failed", v)
	}
	// Low CPU but a spinning selector (the background thread parked in
	// epoll with a zero timeout is cheap per call): select-total alone fails.
	v, _ = JudgeCPU(CPUUse{Window: 3 * time.Second, Scope: ScopeSubject, Total: 200 * time.Millisecond, Consumer: 200 * time.Millisecond, Selects: 50_000}, idle, b)
	if !v.CPUOK || v.SelectsOK {
		t.Fatalf("selector spin at low CPU: %+v; want the select-total bound failed only", v)
	}
	// Without select-total the selector bound is n/a and holds.
	noSel := idle
	noSel.Selects = math.NaN()
	v, _ = JudgeCPU(CPUUse{Window: time.Second, Scope: ScopeSubject, Total: 10 * time.Millisecond, Consumer: 10 * time.Millisecond, Selects: math.NaN()}, noSel, b)
	if !v.SelectsOK || !math.IsNaN(v.MaxSelects) {
		t.Fatalf("no select-total: %+v", v)
	}
	// The test process's CPU is shown, never checked.
	p := CPUUse{Window: 3 * time.Second, Scope: ScopeProcess, Total: 3 * time.Second, Consumer: 3 * time.Second}
	v, err = JudgeCPU(p, CPUUse{Window: 3 * time.Second, Scope: ScopeProcess, Total: time.Millisecond, Consumer: time.Millisecond}, b)
	if err != nil || v.Checked || !v.OK() {
		t.Fatalf("process scope: %+v, %v; want unchecked", v, err)
	}
	if _, err := JudgeCPU(spin, p, b); err == nil {
		t.Fatal("windows in two scopes: want an error")
	}
	if _, err := JudgeCPU(spin, idle, CPUBound{IdleFactor: -1}); err == nil || !strings.Contains(err.Error(), "IdleFactor") {
		t.Fatalf("negative factor: %v, want an error naming IdleFactor", err)
	}
}

// fakeSampler is a consumer with a CPUSampler and a SelectCounter.
type fakeSampler struct {
	harness.Consumer
	total   time.Duration
	selects float64
	err     error
	flushed int
}

func (f *fakeSampler) CPUTime() (time.Duration, map[string]time.Duration, error) {
	return f.total, map[string]time.Duration{"background": f.total / 2}, f.err
}
func (f *fakeSampler) SelectTotal() (float64, error) { return f.selects, nil }
func (f *fakeSampler) FlushCPU()                     { f.flushed++ }

// TestCPUMeter: readings go through the harness's wrappers to the sampler
// (flushing a segmented one first), and an in-process consumer without a
// sampler is read as the test process.
func TestCPUMeter(t *testing.T) {
	f := &fakeSampler{total: time.Second, selects: 10}
	m, err := StartCPU(wrapped{f})
	if err != nil {
		t.Fatal(err)
	}
	f.total, f.selects = 1500*time.Millisecond, 110
	u, err := m.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if u.Scope != ScopeSubject || u.Total != 500*time.Millisecond || u.Consumer != u.Total || u.Threads["background"] != 250*time.Millisecond || u.Selects != 100 || f.flushed != 2 {
		t.Fatalf("use %+v (flushed %d): want subject scope, 500ms, background 250ms, 100 selects, 2 flushes", u, f.flushed)
	}
	f.err = errors.New("driver gone")
	if _, err := m.Stop(); err == nil || !strings.Contains(err.Error(), "driver gone") {
		t.Fatalf("failed sampler: %v", err)
	}

	cfg := consumer.DefaultConfig()
	cfg.BootstrapServers, cfg.ClientID = []string{"127.0.0.1:1"}, "cpu-meter"
	c, err := consumer.New(cfg) // in process, no CPUSampler: the reactor subject's consumer
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	r, err := ReadCPU(c)
	if err != nil || r.Scope != ScopeProcess || !math.IsNaN(r.Selects) || r.Threads != nil {
		t.Fatalf("reactor reading %+v, %v: want the process's CPU, no threads, no select-total", r, err)
	}
}

// TestNetworkPollFigures: a client's network-thread poll gaps are shown
// next to the CPU verdict, never failing, and absent where n/a.
func TestNetworkPollFigures(t *testing.T) {
	idle := CPUUse{Window: 2 * time.Second, Scope: ScopeSubject, Consumer: 60 * time.Millisecond, Selects: 90, NetPollAvgMS: 95, NetPollMaxMS: 510}
	spin := CPUUse{Window: 3 * time.Second, Scope: ScopeSubject, Consumer: 2 * time.Second, Selects: 142_000, NetPollAvgMS: 0.02, NetPollMaxMS: 480}
	v, err := JudgeCPU(spin, idle, DefaultCPUBound)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]CPUFigure{}
	for _, f := range v.Figures("cpu") {
		got[f.Name] = f
	}
	if f, ok := got["cpu"+CPUSuffixNetPoll+".avg"]; !ok || f.Value != 0.02 || !f.Pass || !strings.Contains(f.Bound, "95") {
		t.Errorf("avg figure %+v (present %v)", f, ok)
	}
	if f, ok := got["cpu"+CPUSuffixNetPoll+".max"]; !ok || f.Value != 480 || !f.Pass {
		t.Errorf("max figure %+v (present %v)", f, ok)
	}
	spin.NetPollAvgMS, spin.NetPollMaxMS = math.NaN(), math.NaN()
	v, _ = JudgeCPU(spin, idle, DefaultCPUBound)
	for _, f := range v.Figures("cpu") {
		if strings.Contains(f.Name, CPUSuffixNetPoll) {
			t.Errorf("figure %s without the metric", f.Name)
		}
	}
}

// wrapped is a helper's consumer wrapper (harness.UnwrapConsumer), as the
// suite's recorded consumer and consume.Tracked are.
type wrapped struct{ harness.Consumer }

func (w wrapped) Unwrap() harness.Consumer { return w.Consumer }
