package measure

// Black-box CPU figures: what a consumer's CPU did in a fault
// window, against an idle window measured in the same spec. A client can
// spin while keeping its request counts low (kafka-clients 4.4.0 on a
// heartbeat response delayed 1 s: a core of CPU, 142k selector polls, a
// handful of requests), so for a subject without our probes (loop steps,
// spurious wakeups) CPU is the busy-loop signal.
//
// Whose CPU is read (CPUScope):
//   - the subject's own (ScopeSubject): a consumer with a CPUSampler, i.e.
//     the java subject's driver process (/proc, per thread group: the
//     consumer's background thread apart from the application thread) and
//     the kgo subject's labelled goroutines (pprof);
//   - the test process's (ScopeProcess): our in-process consumers
//     (reactor, baseline, null), whose process also runs the harness and an
//     in-process kfake broker. That figure is shown, never checked: for our
//     subjects the loop's own counters stay the signal.
//
// Use: read a meter at each window's edges (StartCPU, CPUMeter.Stop, or
// ReadCPU and CPUReading.Since), then bound the fault window by the idle
// one with a CPUBound ("at most 3x idle + 100 ms"), scaled to the windows'
// lengths: CPUExpectation attaches every figure and says whether it held.

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/kreactor/kreactor/harness"
)

// Scopes of a CPU reading (CPUReading.Scope).
const (
	// ScopeSubject: the consumer's own CPU (a CPUSampler).
	ScopeSubject = "subject"
	// ScopeProcess: the test process's CPU (getrusage), which includes the
	// harness and an in-process broker.
	ScopeProcess = "process"
)

// SelectCounter is an optional consumer ability: the client's own count of
// network selector polls since it started (kafka-clients' select-total
// metric; the java subject). A spinning network thread raises it by
// hundreds of thousands per second while its request counts stay low.
type SelectCounter interface {
	SelectTotal() (float64, error)
}

// NetworkPollMeter is an optional consumer ability: the client's own
// measure of how long its network thread goes between polls of its
// selector (kafka-clients' time-between-network-thread-poll-avg and -max,
// in ms, over the metric's sample windows; the java subject). A spinning
// network thread shows an average near zero; it is a figure, read at a
// window's end.
type NetworkPollMeter interface {
	NetworkThreadPoll() (avgMS, maxMS float64, err error)
}

// ConsumerThreads is an optional ability of a CPUSampler that names thread
// groups: the groups that are the consumer's own work (the java subject:
// the background thread and the application thread, not the JVM's JIT
// compiler and GC threads, whose CPU after a start is noise that swamps an
// idle window). A CPU bound is checked on their sum; the whole process is
// shown next to it.
type ConsumerThreads interface {
	ConsumerThreads() []string
}

// CPUSampler is an optional consumer ability for subjects that run in
// another process (the java subject's driver) or that can tell their own
// goroutines apart (kgo's labelled goroutines): it reports the subject's
// own CPU, which figures and the report's plots use instead of the test
// process's. Consumers without it (the in-process subjects) are charged the
// test process's CPU (ProcessCPU), which includes the harness and an
// in-process kfake broker; the report says so.
type CPUSampler interface {
	// CPUTime returns the subject's cumulative CPU time (user + system)
	// since it started, and the same per named thread when known (nil
	// otherwise; e.g. the Java consumer's background thread). Errors: the
	// process is gone or its /proc entry cannot be read; a sampler then
	// stops sampling CPU for this consumer.
	CPUTime() (total time.Duration, threads map[string]time.Duration, err error)
}

// ProcessCPU is the test process's cumulative CPU time (user + system):
// getrusage rather than /proc/self/stat, for microsecond resolution instead
// of 10 ms clock ticks. Errors: getrusage's.
func ProcessCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// cpuFlusher is implemented by samplers that aggregate in segments (the kgo
// subject's shared profile): FlushCPU makes the next CPUTime exact to now.
type cpuFlusher interface{ FlushCPU() }

// CPUReading is one reading of a consumer's cumulative CPU.
type CPUReading struct {
	At      time.Time
	Scope   string                   // ScopeSubject or ScopeProcess
	Total   time.Duration            // user + system
	Threads map[string]time.Duration // per thread group when the sampler names them; nil otherwise
	// Consumer is the consumer's own CPU: the sum of its ConsumerThreads
	// groups, or Total when the sampler names none.
	Consumer time.Duration
	// Selects is select-total (SelectCounter); NaN when the subject has
	// no such metric or it could not be read.
	Selects float64
	// NetPollAvgMS and NetPollMaxMS are NetworkPollMeter's figures at the
	// reading; NaN when n/a.
	NetPollAvgMS, NetPollMaxMS float64
}

// ReadCPU reads c's CPU now. c is a Consumer or a ShareConsumer (wrappers
// are looked through). Errors: the sampler failed (a driver that exited,
// a CPU profiler in use by someone else).
func ReadCPU(c any) (CPUReading, error) {
	inner := harness.Innermost(c)
	r := CPUReading{At: time.Now(), Selects: math.NaN(), NetPollAvgMS: math.NaN(), NetPollMaxMS: math.NaN()}
	if s, ok := inner.(CPUSampler); ok {
		if f, ok := inner.(cpuFlusher); ok {
			f.FlushCPU()
		}
		total, threads, err := s.CPUTime()
		if err != nil {
			return r, fmt.Errorf("measure: CPU of the consumer: %w", err)
		}
		r.At, r.Scope, r.Total, r.Threads, r.Consumer = time.Now(), ScopeSubject, total, maps.Clone(threads), total
		if ct, ok := inner.(ConsumerThreads); ok {
			r.Consumer = 0
			for _, name := range ct.ConsumerThreads() {
				r.Consumer += threads[name]
			}
		}
	} else {
		total, err := ProcessCPU()
		if err != nil {
			return r, fmt.Errorf("measure: CPU of the test process: %w", err)
		}
		r.Scope, r.Total, r.Consumer = ScopeProcess, total, total
	}
	if sc, ok := inner.(SelectCounter); ok {
		if v, err := sc.SelectTotal(); err == nil {
			r.Selects = v
		}
	}
	if nm, ok := inner.(NetworkPollMeter); ok {
		if avg, mx, err := nm.NetworkThreadPoll(); err == nil {
			r.NetPollAvgMS, r.NetPollMaxMS = avg, mx
		}
	}
	return r, nil
}

// CPUUse is the CPU a consumer used between two readings.
type CPUUse struct {
	Window   time.Duration
	Scope    string
	Total    time.Duration            // the whole process (ScopeSubject: the driver's; ScopeProcess: the test's)
	Consumer time.Duration            // the consumer's own threads (CPUReading.Consumer): what bounds check
	Threads  map[string]time.Duration // nil when the sampler names none
	Selects  float64                  // select-total's growth; NaN when n/a
	// NetPollAvgMS and NetPollMaxMS are the client's network-thread poll
	// gap figures at the window's end (NetworkPollMeter); NaN when n/a.
	NetPollAvgMS, NetPollMaxMS float64
}

// Since is the CPU used from earlier to r (same consumer).
func (r CPUReading) Since(earlier CPUReading) CPUUse {
	u := CPUUse{Window: r.At.Sub(earlier.At), Scope: r.Scope, Total: r.Total - earlier.Total, Consumer: r.Consumer - earlier.Consumer, Selects: r.Selects - earlier.Selects,
		NetPollAvgMS: r.NetPollAvgMS, NetPollMaxMS: r.NetPollMaxMS}
	if r.Threads != nil {
		u.Threads = map[string]time.Duration{}
		for name, d := range r.Threads {
			u.Threads[name] = d - earlier.Threads[name]
		}
	}
	return u
}

// Own reports whether the figure is the consumer's own CPU (checked), not
// the test process's (shown only).
func (u CPUUse) Own() bool { return u.Scope == ScopeSubject }

// Cores is the CPU per wall second (1 = one core busy all along).
func (u CPUUse) Cores() float64 {
	if u.Window <= 0 {
		return 0
	}
	return u.Consumer.Seconds() / u.Window.Seconds()
}

// String renders the figures: total, each thread group, select-total, and
// the window.
func (u CPUUse) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s CPU (%s; consumer %s) in %s", u.Total.Round(time.Millisecond), u.Scope, u.Consumer.Round(time.Millisecond), u.Window.Round(time.Millisecond))
	for _, name := range slices.Sorted(maps.Keys(u.Threads)) {
		fmt.Fprintf(&b, ", %s %s", name, u.Threads[name].Round(time.Millisecond))
	}
	if !math.IsNaN(u.Selects) {
		fmt.Fprintf(&b, ", select-total +%.0f", u.Selects)
	}
	return b.String()
}

// CPUMeter measures one window of a consumer's CPU.
type CPUMeter struct {
	c     any
	start CPUReading
}

// StartCPU opens a window on c's CPU (ReadCPU now). Errors: ReadCPU's.
func StartCPU(c any) (*CPUMeter, error) {
	r, err := ReadCPU(c)
	if err != nil {
		return nil, err
	}
	return &CPUMeter{c: c, start: r}, nil
}

// Stop closes the window and returns what the consumer used in it.
func (m *CPUMeter) Stop() (CPUUse, error) {
	r, err := ReadCPU(m.c)
	if err != nil {
		return CPUUse{}, err
	}
	return r.Since(m.start), nil
}

// CPUBound is "at most IdleFactor x the idle window's CPU + Plus", the idle
// window's CPU scaled to the fault window's length first (a rate, so the
// two windows need not be equally long). The same shape bounds select-total
// with SelectPlus.
type CPUBound struct {
	IdleFactor float64
	Plus       time.Duration
	// SelectPlus is the select-total bound's additive term (selector polls).
	SelectPlus float64
}

// DefaultCPUBound is the bound the specs use: a consumer with nothing more
// to do in a fault window than when idle (a few retried requests on a
// backoff schedule, the heartbeat) stays within 3x its idle CPU plus
// 100 ms; a busy loop of the Jiras' shape (a core of CPU, about 1 s per
// second of window) does not. Calibrated on kafka-clients 4.4.0 against
// kfake: idle 30-90 ms per 3 s of poll(100 ms) after the join; the
// coordinator unavailable for 3 s (5-6 FindCoordinator, no spin) 80-100 ms;
// the heartbeat response delayed 1 s (KAFKA-21031) 2.9-3.5 s. select-total:
// idle 91 per 3 s, the spin 142k; a non-spinning fault window adds a few
// selector polls per request, far below SelectPlus.
var DefaultCPUBound = CPUBound{IdleFactor: 3, Plus: 100 * time.Millisecond, SelectPlus: 1000}

// Max is the most CPU the bound allows in a window of length window, given
// the idle window.
func (b CPUBound) Max(idle CPUUse, window time.Duration) time.Duration {
	return time.Duration(b.IdleFactor*scaled(float64(idle.Consumer), idle.Window, window)) + b.Plus
}

// MaxSelects is the most select-total growth the bound allows (NaN when
// the idle window has none).
func (b CPUBound) MaxSelects(idle CPUUse, window time.Duration) float64 {
	return b.IdleFactor*scaled(idle.Selects, idle.Window, window) + b.SelectPlus
}

func scaled(v float64, from, to time.Duration) float64 {
	if from <= 0 {
		return v
	}
	return v * float64(to) / float64(from)
}

// String renders the bound ("3x idle + 100ms").
func (b CPUBound) String() string {
	return fmt.Sprintf("%sx idle + %s", FormatNumber(b.IdleFactor), b.Plus)
}

// Validate returns an error naming the bad field: a negative factor or term.
func (b CPUBound) Validate() error {
	switch {
	case b.IdleFactor < 0 || math.IsNaN(b.IdleFactor):
		return fmt.Errorf("measure: CPUBound.IdleFactor %v must be >= 0", b.IdleFactor)
	case b.Plus < 0:
		return fmt.Errorf("measure: CPUBound.Plus %s must be >= 0", b.Plus)
	case b.SelectPlus < 0 || math.IsNaN(b.SelectPlus):
		return fmt.Errorf("measure: CPUBound.SelectPlus %v must be >= 0", b.SelectPlus)
	}
	return nil
}

// CPUVerdict is a fault window's CPU held to a bound against an idle
// window: the figures a spec attaches and whether each held.
type CPUVerdict struct {
	Fault, Idle CPUUse
	Bound       CPUBound
	MaxCPU      time.Duration
	MaxSelects  float64 // NaN when select-total is n/a
	// Checked is false for a ScopeProcess figure: shown, never failing.
	Checked bool
	// SelectsSignal is true where the client counts its selector polls
	// (kafka-clients' select-total): select-total is then the busy-loop
	// signal and the CPU a figure, shown with its bound but never failing.
	// A spinning network thread polls its selector tens of thousands of
	// times in a window whatever else runs on the machine; its CPU time
	// moves with the machine's load (a starved spin burns less, a loaded
	// idle consumer more), so a CPU verdict near its bound says as much
	// about the machine as about the client.
	SelectsSignal bool
	// CPUOK and SelectsOK say whether the fault window stayed inside the
	// bounds (always true when not Checked; SelectsOK true when n/a).
	CPUOK, SelectsOK bool
}

// JudgeCPU holds fault to bound against idle. Errors: the two windows were
// read in different scopes (a sampler that failed in between), or the
// bound is invalid.
func JudgeCPU(fault, idle CPUUse, bound CPUBound) (CPUVerdict, error) {
	if err := bound.Validate(); err != nil {
		return CPUVerdict{}, err
	}
	if fault.Scope != idle.Scope {
		return CPUVerdict{}, fmt.Errorf("measure: fault window read in scope %q, idle window in %q", fault.Scope, idle.Scope)
	}
	v := CPUVerdict{Fault: fault, Idle: idle, Bound: bound, Checked: fault.Own(), CPUOK: true, SelectsOK: true,
		MaxCPU: bound.Max(idle, fault.Window), MaxSelects: math.NaN()}
	if !math.IsNaN(fault.Selects) && !math.IsNaN(idle.Selects) {
		v.MaxSelects = bound.MaxSelects(idle, fault.Window)
	}
	if v.Checked {
		v.SelectsSignal = !math.IsNaN(v.MaxSelects)
		v.CPUOK = v.SelectsSignal || fault.Consumer <= v.MaxCPU
		v.SelectsOK = !v.SelectsSignal || fault.Selects <= v.MaxSelects
	}
	return v, nil
}

// OK reports whether both bounds held.
func (v CPUVerdict) OK() bool { return v.CPUOK && v.SelectsOK }

// Message explains a failed verdict for a spec's failure message (both
// bounds; CPUMessage and SelectsMessage give each).
func (v CPUVerdict) Message() string {
	var parts []string
	for _, m := range []string{v.CPUMessage(), v.SelectsMessage()} {
		if m != "" {
			parts = append(parts, m)
		}
	}
	return strings.Join(parts, "; ")
}

// CPUMessage explains a failed CPU bound ("" when it held).
func (v CPUVerdict) CPUMessage() string {
	if v.CPUOK {
		return ""
	}
	return fmt.Sprintf("%s of consumer CPU in a %s fault window exceeds %s (%s; idle window: %s): the consumer spins",
		v.Fault.Consumer.Round(time.Millisecond), v.Fault.Window.Round(time.Millisecond), v.MaxCPU.Round(time.Millisecond), v.Bound, v.Idle)
}

// SelectsMessage explains a failed select-total bound ("" when it held).
func (v CPUVerdict) SelectsMessage() string {
	if v.SelectsOK {
		return ""
	}
	return fmt.Sprintf("select-total grew by %.0f in the fault window, more than %.0f (%sx idle %.0f + %.0f): the network thread spins",
		v.Fault.Selects, v.MaxSelects, FormatNumber(v.Bound.IdleFactor), v.Idle.Selects, v.Bound.SelectPlus)
}

// Keys of the figures CPUVerdict.Attach adds under its prefix.
const (
	// CPUSuffixIdle is the idle window's CPU (informational).
	CPUSuffixIdle = ".idle"
	// CPUSuffixSelects is select-total's growth in the fault window
	// (checked, java only).
	CPUSuffixSelects = ".select_total"
	// CPUSuffixNetPoll prefixes the client's network-thread poll gap
	// figures (.avg, .max; java only, shown).
	CPUSuffixNetPoll = ".network_thread_poll"
)

// CPUFigure is one figure of a CPU verdict.
type CPUFigure struct {
	Name, Unit, Bound string
	Value             float64
	Pass              bool
}

// Figures are the verdict's figures under key: key (the consumer's CPU in
// the fault window in ms, with its bound, or "shown only" for the test
// process's CPU), key+".cores", key+".idle", key+".process" (the whole
// subject process, when it differs), key+".<thread group>" for each group
// the sampler names, and for a client with select-total
// key+".select_total" (bounded) and key+".select_total.idle".
func (v CPUVerdict) Figures(key string) []CPUFigure {
	ms := func(d time.Duration) float64 { return math.Round(float64(d.Microseconds())) / 1000 }
	bound := fmt.Sprintf("<= %s ms (%s; idle %s ms in %s)", FormatNumber(math.Round(ms(v.MaxCPU))), v.Bound, FormatNumber(math.Round(ms(v.Idle.Consumer))), v.Idle.Window.Round(time.Millisecond))
	switch {
	case !v.Checked:
		bound = "shown only: " + ScopeProcess + " CPU includes the harness and an in-process broker (" + bound + ")"
	case v.SelectsSignal:
		// Shown against its bound, never the verdict: select-total is.
		held := "held"
		if v.Fault.Consumer > v.MaxCPU {
			held = "exceeded"
		}
		bound = "shown only, select-total is the signal: " + bound + ", " + held
	}
	out := []CPUFigure{
		{Name: key, Value: ms(v.Fault.Consumer), Unit: "ms cpu", Bound: bound, Pass: v.CPUOK},
		{Name: key + ".cores", Value: math.Round(v.Fault.Cores()*1000) / 1000, Unit: "cores", Pass: true},
		{Name: key + CPUSuffixIdle, Value: ms(v.Idle.Consumer), Unit: "ms cpu", Bound: "idle calibration, " + v.Idle.Window.Round(time.Millisecond).String(), Pass: true},
	}
	if v.Fault.Total != v.Fault.Consumer {
		out = append(out, CPUFigure{Name: key + ".process", Value: ms(v.Fault.Total), Unit: "ms cpu",
			Bound: fmt.Sprintf("idle %s ms", FormatNumber(ms(v.Idle.Total))), Pass: true})
	}
	for _, name := range slices.Sorted(maps.Keys(v.Fault.Threads)) {
		out = append(out, CPUFigure{Name: key + "." + name, Value: ms(v.Fault.Threads[name]), Unit: "ms cpu",
			Bound: fmt.Sprintf("idle %s ms", FormatNumber(ms(v.Idle.Threads[name]))), Pass: true})
	}
	if !math.IsNaN(v.Fault.Selects) {
		sb := "shown only"
		if !math.IsNaN(v.MaxSelects) {
			sb = fmt.Sprintf("<= %s (%sx idle %s + %s)", FormatNumber(math.Round(v.MaxSelects)), FormatNumber(v.Bound.IdleFactor), FormatNumber(v.Idle.Selects), FormatNumber(v.Bound.SelectPlus))
		}
		out = append(out,
			CPUFigure{Name: key + CPUSuffixSelects, Value: v.Fault.Selects, Unit: "selector polls", Bound: sb, Pass: v.SelectsOK},
			CPUFigure{Name: key + CPUSuffixSelects + CPUSuffixIdle, Value: v.Idle.Selects, Unit: "selector polls", Bound: "idle calibration", Pass: true})
	}
	if !math.IsNaN(v.Fault.NetPollAvgMS) {
		round := func(x float64) float64 { return math.Round(x*1000) / 1000 }
		out = append(out,
			CPUFigure{Name: key + CPUSuffixNetPoll + ".avg", Value: round(v.Fault.NetPollAvgMS), Unit: "ms", Bound: fmt.Sprintf("shown: kafka-clients' time-between-network-thread-poll-avg at the window's end (idle window's end %s ms)", FormatNumber(round(v.Idle.NetPollAvgMS))), Pass: true},
			CPUFigure{Name: key + CPUSuffixNetPoll + ".max", Value: round(v.Fault.NetPollMaxMS), Unit: "ms", Bound: fmt.Sprintf("shown (idle window's end %s ms)", FormatNumber(round(v.Idle.NetPollMaxMS))), Pass: true})
	}
	return out
}

// FormatNumber renders a figure's number for a bound text: whole values
// without a fraction ("3", not "3.000"), others to three significant digits.
func FormatNumber(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.3g", v)
}

// Headroom is how many times larger than observed an upper bound is:
// bound / max(observed, 1) (an observed zero counts as one, so a bound of
// 0 over nothing is headroom 0 and a bound of 9 over nothing 9), rounded to
// two decimals. The report shows it per spec for the reactor: a headroom
// near 1 is a bound that the reference barely meets (flaky under load), a
// large one a bound a mild regression would pass.
func Headroom(observed, bound float64) float64 {
	return math.Round(bound/math.Max(observed, 1)*100) / 100
}
