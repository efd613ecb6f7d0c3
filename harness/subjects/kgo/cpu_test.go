package kgo

import (
	"context"
	"errors"
	"io"
	"runtime/pprof"
	"testing"
	"time"
)

// TestCPUAttribution's workload and bound: the busy consumer reads
// cpuRecords; an idle consumer (heartbeats, empty long-poll fetches) is
// attributed at most 1/idleShare of the busy one's CPU. A ratio, not a share
// of wall time: on a loaded 2-core machine under -race the idle consumer's
// join alone took 100 ms of a 1.6 s window.
const (
	cpuRecords = 100_000
	idleShare  = 4
)

// TestCPUAttribution: the CPU a consumer's goroutines use is attributed to
// it, an idle consumer's stays small, and a busy goroutine that is not a
// consumer's is attributed to neither.
func TestCPUAttribution(t *testing.T) {
	b := startBroker(t, map[string]int32{"t": 3, "idle": 1})
	produce(t, b, "t", cpuRecords)
	busy := startConsumer(t, Subject{}, config(b, "busy", "busy"))
	idle := startConsumer(t, Subject{}, config(b, "idle", "idle"))
	if err := idle.Subscribe("idle"); err != nil {
		t.Fatal(err)
	}
	w, err := StartCPU()
	if err != nil {
		t.Skip(err) // another CPU profile is running (go test -cpuprofile)
	}
	// Windows share the one profile: a second one opens and closes
	// without disturbing the first.
	w2, err := StartCPU()
	if err != nil {
		t.Fatalf("second StartCPU: %v", err)
	}
	if _, err := w2.Stop(); err != nil {
		t.Fatalf("second window's Stop: %v", err)
	}
	if err := busy.Subscribe("t"); err != nil { // its join and fetching are in the window
		t.Fatal(err)
	}
	stop := make(chan struct{})
	spun := make(chan int)
	go func() { // unlabeled busy goroutine: the harness, not a consumer
		n := 0
		for {
			select {
			case <-stop:
				spun <- n
				return
			default:
				n++
			}
		}
	}()
	idleDone := make(chan struct{})
	go func() {
		defer close(idleDone)
		for i := 0; i < 4; i++ {
			ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
			_, _ = idle.Poll(ctx)
			cancel()
		}
	}()
	pollN(t, busy, cpuRecords)
	<-idleDone
	close(stop)
	<-spun
	f, err := w.Stop()
	if err != nil {
		t.Fatal(err)
	}
	bc, ic := f.ByKey[busy.CPUKey()], f.ByKey[idle.CPUKey()]
	t.Logf("window %s: busy consumer %s, idle consumer %s, process %s", f.Window, bc, ic, f.Total)
	if ic*idleShare > bc {
		t.Fatalf("busy consumer %s CPU (it joined and decoded every record), idle %s in %s: want idle <= 1/%d of busy", bc, ic, f.Window, idleShare)
	}
	if bc+ic >= f.Total {
		t.Fatalf("consumers %s + %s of %s process CPU: the unlabeled spinner was attributed to them", bc, ic, f.Total)
	}

	// A caller spinning on Poll (an expired deadline) is the consumer
	// spinning: it is most of the process's CPU in that window.
	if w, err = StartCPU(); err != nil {
		t.Fatal(err)
	}
	spinUntil := time.Now().Add(300 * time.Millisecond)
	expired, cancel := context.WithDeadline(context.Background(), time.Now())
	for time.Now().Before(spinUntil) {
		_, _ = busy.Poll(expired)
	}
	cancel()
	if f, err = w.Stop(); err != nil {
		t.Fatal(err)
	}
	t.Logf("spin window %s: consumer %s of process %s", f.Window, f.ByKey[busy.CPUKey()], f.Total)
	if sc := f.ByKey[busy.CPUKey()]; sc*2 < f.Total {
		t.Fatalf("consumer spinning on Poll: %s of %s process CPU attributed, want at least half", sc, f.Total)
	}
}

// TestCPUTime: the harness's CPUSampler on a kgo consumer. The first call
// starts the shared profile; a consumer reading records is charged CPU, the
// value after Close is final, and under a profile this package did not
// start the figure is ErrCPUProfilerBusy, never a wrong number.
func TestCPUTime(t *testing.T) {
	b := startBroker(t, map[string]int32{"t": 3})
	produce(t, b, "t", cpuRecords/2)
	c := startConsumer(t, Subject{}, config(b, "cpu", "cpu"))
	before, threads, err := c.CPUTime()
	if err != nil {
		t.Skip(err) // go test -cpuprofile
	}
	if _, ok := threads[CPUGoroutines]; !ok {
		t.Fatalf("threads %v: want %q", threads, CPUGoroutines)
	}
	if err := c.Subscribe("t"); err != nil {
		t.Fatal(err)
	}
	pollN(t, c, cpuRecords/2)
	c.FlushCPU()
	after, _, err := c.CPUTime()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("consumer CPU %s -> %s reading %d records", before, after, cpuRecords/2)
	if after <= before {
		t.Fatalf("CPUTime %s -> %s: reading %d records was not charged", before, after, cpuRecords/2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	final, _, err := c.CPUTime()
	if err != nil || final < after {
		t.Fatalf("CPUTime after Close = %s, %v; want >= %s", final, err, after)
	}
	again, _, _ := c.CPUTime()
	if again != final {
		t.Fatalf("CPUTime after Close moved: %s -> %s", final, again)
	}
	profiler.mu.Lock()
	users, running := profiler.users, profiler.buf != nil
	profiler.mu.Unlock()
	if users != 0 || running {
		t.Fatalf("shared profile still held after the only consumer closed: %d holders, running %v", users, running)
	}

	// Someone else's profile: the figure is n/a, not zero.
	other := startConsumer(t, Subject{}, config(b, "cpu2", "cpu2"))
	if err := pprof.StartCPUProfile(io.Discard); err != nil {
		t.Skip(err)
	}
	_, _, err = other.CPUTime()
	pprof.StopCPUProfile()
	if !errors.Is(err, ErrCPUProfilerBusy) {
		t.Fatalf("CPUTime under a foreign profile: %v, want ErrCPUProfilerBusy", err)
	}
}
