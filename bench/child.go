package bench

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"time"

	"github.com/kreactor/kreactor/harness/subjects/java"
)

// Ready is the line a child writes once its member owns every partition
// (before the latency job's records are produced).
type Ready struct {
	Ready   bool `json:"ready"`
	Untimed int  `json:"untimed"`
}

// idlePoll is the poll timeout of the idle job's loop.
const idlePoll = time.Second

// RunJob runs j in this process and returns its result; ready is called
// once the member owns every partition. A failure is in Result.Err.
func RunJob(ctx context.Context, j Job, ready func(Ready)) Result {
	r := Result{Job: j}
	if err := j.Validate(); err != nil {
		r.Err = err.Error()
		return r
	}
	ctx, cancel := context.WithTimeout(ctx, j.Timeout)
	defer cancel()
	var err error
	if j.Subject == SubjectJava || j.Subject == SubjectJavaWarm {
		err = runJava(ctx, j, &r, ready)
	} else {
		err = runClient(ctx, j, &r, ready)
	}
	if err != nil {
		r.Err = err.Error()
	}
	return r
}

// runClient runs j on a subject polled from Go.
func runClient(ctx context.Context, j Job, r *Result, ready func(Ready)) (err error) {
	c, err := newClient(j)
	if c != nil {
		defer c.close()
	}
	if err != nil {
		return err
	}
	if r.Untimed, err = c.await(ctx, j.Partitions); err != nil {
		return err
	}
	if j.stamped() {
		// Positions and the first Fetch come after the assignment: the
		// records are produced once the consumer is fetching (the first
		// ones would otherwise measure the start, not the steady state).
		if err := pollFor(ctx, c, latencySettle); err != nil {
			return err
		}
	}
	ready(Ready{Ready: true, Untimed: r.Untimed})
	return goKinds.run(ctx, j, c, r)
}

// kinds are the timed parts of a job by its kind, for one kind of client
// C: read for throughput and latency, backlog, idle.
type kinds[C any] struct {
	read, backlog, idle func(ctx context.Context, j Job, c C, r *Result) error
}

// run runs j's timed part on c.
func (k kinds[C]) run(ctx context.Context, j Job, c C, r *Result) error {
	switch j.Kind {
	case KindThroughput, KindLatency, KindAlternating:
		return k.read(ctx, j, c, r)
	case KindBacklog:
		return k.backlog(ctx, j, c, r)
	case KindIdle:
		return k.idle(ctx, j, c, r)
	}
	return fmt.Errorf("bench: kind %q", j.Kind)
}

// The timed parts on a Go client (or the Java driver's poll command), and
// on Java's consumer polling inside the JVM.
var (
	goKinds   = kinds[client]{read: consume, backlog: backlog, idle: idle}
	javaKinds = kinds[*java.Consumer]{read: javaRead, backlog: javaBacklog, idle: javaIdle}
)

// timed runs fn as the timed part: CPU and allocation profiles if asked,
// the Go meter, the JVM's CPU for java-driver, loop steps for our
// consumers.
func timed(j Job, c client, r *Result, fn func() error) (err error) {
	if j.Trace != "" {
		f, ferr := os.Create(j.Trace)
		if ferr != nil {
			return ferr
		}
		if err := trace.Start(f); err != nil {
			f.Close()
			return fmt.Errorf("bench: execution trace to %s: %w", j.Trace, err)
		}
		defer func() {
			trace.Stop()
			if cerr := f.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("bench: execution trace to %s: %w", j.Trace, cerr)
			}
		}()
	}
	if j.CPUProfile != "" {
		f, err := os.Create(j.CPUProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if j.CPUProfileHz > 0 {
			// Set before StartCPUProfile, which then keeps it (the runtime
			// prints that it cannot set its own 100 Hz: expected).
			runtime.SetCPUProfileRate(j.CPUProfileHz)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var jvm0 java.CPUSample
	d, isDriver := c.(*javaDriver)
	if isDriver {
		var err error
		if jvm0, err = d.c.CPU(); err != nil {
			return err
		}
	}
	var steps0 uint64
	s, isOurs := c.(stepper)
	if isOurs {
		steps0 = s.steps()
	}
	m := startGoMeter()
	err = fn()
	m.stop(r)
	if isOurs {
		r.Steps = s.steps() - steps0
	}
	if isDriver {
		jvm1, err := d.c.CPU()
		if err != nil {
			return err
		}
		r.GoCPU, r.JVMCPU = r.CPU, jvm1.Sub(jvm0).Process
		r.ContextSwitches = 0           // the driver's, not the JVM's: not measured
		r.Allocs, r.AllocBytes = -1, -1 // likewise: the driver's JSON, not the consumer's
		r.CPU = r.GoCPU + r.JVMCPU
	}
	if j.MemProfile != "" {
		f, err := os.Create(j.MemProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			return err
		}
	}
	return err
}

// consume polls until j.Records records arrived (throughput, latency).
func consume(ctx context.Context, j Job, c client, r *Result) error {
	var lat, fromRead []time.Duration
	var clock *readClock
	if j.stamped() {
		lat = make([]time.Duration, 0, j.Records)
		if rc, ok := c.(readClocked); ok && rc.readClock() != nil {
			clock, fromRead = rc.readClock(), make([]time.Duration, 0, j.Records)
		}
	}
	sink := 0
	err := timed(j, c, r, func() error {
		return pollAll(ctx, j, c, r, func(v []byte) {
			sink += len(v)
			if lat != nil && len(v) >= j.StampAt+8 {
				now := time.Now()
				lat = append(lat, time.Duration(now.UnixNano()-int64(binary.BigEndian.Uint64(v[j.StampAt:]))))
				if clock != nil {
					fromRead = append(fromRead, clock.sinceRead(now))
				}
			}
		})
	})
	if lat != nil {
		r.Latency = quantiles(lat)
	}
	if fromRead != nil {
		r.ReadToPoll = quantiles(fromRead)
	}
	_ = sink
	return err
}

// pollAll polls c until the job's records are read (those the await's
// polls returned count too), handing each record's value to fn and
// counting polls and records in r; it fails when ctx ends first.
func pollAll(ctx context.Context, j Job, c client, r *Result, fn func(v []byte)) error {
	for r.Untimed+r.Records < j.Records {
		n, err := c.poll(ctx, fn)
		r.Polls++
		r.Records += n
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%d of %d records within the job's timeout: %w", r.Records, j.Records, err)
		}
	}
	return nil
}

// backlog polls once, stops polling for j.Settle, reads the memory, then
// drains the backlog and reads the peak resident set.
func backlog(ctx context.Context, j Job, c client, r *Result) error {
	n, err := c.poll(ctx, func([]byte) {})
	if err != nil {
		return err
	}
	r.Records += n
	select {
	case <-time.After(j.Settle):
	case <-ctx.Done():
		return ctx.Err()
	}
	if r.RSS, _, err = procMemory(memPID(c)); err != nil {
		return err
	}
	if _, ok := c.(*javaDriver); !ok {
		r.HeapUsed, r.HeapLive = goHeap()
	}
	err = timed(j, c, r, func() error { return pollAll(ctx, j, c, r, func([]byte) {}) })
	if err != nil {
		return err
	}
	return peak(memPID(c), r)
}

// peak sets r.PeakRSS: the process's resident set high-water mark, which
// the kernel updates lazily, so never below what was read before.
func peak(pid string, r *Result) error {
	rss, hwm, err := procMemory(pid)
	r.PeakRSS = max(hwm, rss, r.RSS)
	return err
}

// memPID is the process holding c's consumer, for /proc.
func memPID(c client) string {
	if d, ok := c.(*javaDriver); ok {
		return strconv.Itoa(d.c.PID())
	}
	return "self"
}

// latencySettle is how long a consumer polls its (empty) topic after the
// assignment before the latency job's records are produced.
const latencySettle = time.Second

// idleSettle is how long an idle consumer polls before its window opens
// (the join's aftermath, a JVM's JIT and class loading, are not idleness).
const idleSettle = 5 * time.Second

// idle polls an empty topic for j.Window (1 s polls) and measures the CPU.
func idle(ctx context.Context, j Job, c client, r *Result) error {
	if err := pollFor(ctx, c, idleSettle); err != nil {
		return err
	}
	runtime.GC() // not in the window: the setup's garbage
	end := time.Now().Add(j.Window)
	return timed(j, c, r, func() error {
		for time.Now().Before(end) {
			pctx, cancel := context.WithTimeout(ctx, min(idlePoll, time.Until(end)))
			n, err := c.poll(pctx, func([]byte) {})
			cancel()
			r.Polls++
			r.Records += n
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// pollFor polls c for d (1 s polls at most).
func pollFor(ctx context.Context, c client, d time.Duration) error {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		pctx, cancel := context.WithTimeout(ctx, min(idlePoll, time.Until(end)))
		_, err := c.poll(pctx, func([]byte) {})
		cancel()
		if err != nil {
			return err
		}
	}
	return nil
}

// runJava runs j on Java's consumer polling inside the JVM (the driver's
// consume command): the timed part's CPU is the JVM's.
func runJava(ctx context.Context, j Job, r *Result, ready func(Ready)) error {
	c, err := newJava(config(j))
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.Close(cctx)
	}()
	if err := javaAwait(ctx, c, j, r); err != nil {
		return err
	}
	ready(Ready{Ready: true, Untimed: r.Untimed})
	return javaKinds.run(ctx, j, c, r)
}

// javaAwait subscribes c and waits, polling inside the JVM, until it is
// assigned j's partitions (the records read meanwhile are r.Untimed); for
// a latency job, until it fetches as well (as runClient: produce once Java
// is fetching).
func javaAwait(ctx context.Context, c *java.Consumer, j Job, r *Result) error {
	if err := c.Subscribe(j.Topic); err != nil {
		return err
	}
	w, err := c.Consume(ctx, java.ConsumeArgs{Partitions: j.Partitions, StampAt: -1})
	if err != nil {
		return err
	}
	if w.TimedOut {
		return fmt.Errorf("assignment of %d partitions: %w", j.Partitions, context.DeadlineExceeded)
	}
	r.Untimed = int(w.Untimed)
	if j.stamped() {
		sctx, scancel := context.WithTimeout(ctx, latencySettle)
		_, err := c.Consume(sctx, java.ConsumeArgs{Records: 1, StampAt: -1})
		scancel()
		if err != nil {
			return fmt.Errorf("latency settle: %w", err)
		}
	}
	return nil
}

// javaTake adds a timed consume's figures to r (allocation counts are not
// measured in the JVM: -1).
func javaTake(r *Result, res java.ConsumeResult) {
	r.Records += int(res.Count)
	r.Polls += res.Polls
	r.Wall, r.CPU, r.Allocs, r.AllocBytes = res.Elapsed, res.CPU, -1, res.AllocBytes
}

// javaRead is a throughput or latency job: the job's records, timed (with
// their latency for a latency job). The warm Java subject reads them once
// untimed first (warming the JIT) and then again from the start, timed.
func javaRead(ctx context.Context, j Job, c *java.Consumer, r *Result) error {
	stamp := -1
	if j.stamped() {
		stamp = j.StampAt
	}
	if j.Subject == SubjectJavaWarm {
		first, err := c.Consume(ctx, java.ConsumeArgs{Records: j.Records - r.Untimed, StampAt: -1})
		if err != nil || first.TimedOut {
			return fmt.Errorf("warm-up pass: %d records, %v", first.Count, err)
		}
		if err := c.SeekToBeginning(c.Assignment()...); err != nil {
			return err
		}
		r.Untimed = 0
	}
	res, err := c.Consume(ctx, java.ConsumeArgs{Records: j.Records, StampAt: stamp})
	if err != nil {
		return err
	}
	javaTake(r, res)
	if l := res.Latency; l != nil {
		r.Latency = &LatencyQuantiles{N: l.N, P50: l.P50, P90: l.P90, P99: l.P99, Max: l.Max}
	}
	if res.TimedOut {
		return fmt.Errorf("%d of %d records within the job's timeout", res.Count, j.Records)
	}
	return nil
}

// javaBacklog is a backlog job: one record read, polling stopped for
// j.Settle, the resident set and the JVM heap read, then the backlog
// drained, timed, and the peak resident set read.
func javaBacklog(ctx context.Context, j Job, c *java.Consumer, r *Result) error {
	first, err := c.Consume(ctx, java.ConsumeArgs{Records: 1, StampAt: -1})
	if err != nil {
		return err
	}
	select {
	case <-time.After(j.Settle):
	case <-ctx.Done():
		return ctx.Err()
	}
	if r.RSS, _, err = procMemory(strconv.Itoa(c.PID())); err != nil {
		return err
	}
	heap, err := c.Consume(ctx, java.ConsumeArgs{StampAt: -1})
	if err != nil {
		return err
	}
	r.HeapUsed = heap.HeapUsed
	rest, err := c.Consume(ctx, java.ConsumeArgs{Records: j.Records - int(first.Count), StampAt: -1})
	if err != nil {
		return err
	}
	javaTake(r, rest)
	r.Records += int(first.Count)
	if rest.TimedOut {
		return fmt.Errorf("%d of %d records within the job's timeout", r.Records, j.Records)
	}
	return peak(strconv.Itoa(c.PID()), r)
}

// javaIdle is an idle job: after the settle, the consumer polls through
// j.Window with nothing to read, timed.
func javaIdle(ctx context.Context, j Job, c *java.Consumer, r *Result) error {
	sctx, scancel := context.WithTimeout(ctx, idleSettle)
	_, err := c.Consume(sctx, java.ConsumeArgs{Records: 1, Poll: idlePoll, StampAt: -1})
	scancel()
	if err != nil {
		return fmt.Errorf("idle settle: %w", err)
	}
	wctx, cancel := context.WithTimeout(ctx, j.Window)
	defer cancel()
	res, err := c.Consume(wctx, java.ConsumeArgs{Records: max(j.Records, 1), Poll: idlePoll, StampAt: -1})
	if err != nil {
		return err
	}
	javaTake(r, res)
	return nil
}
