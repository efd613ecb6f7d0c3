package tracepath

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"golang.org/x/exp/trace"
)

// DefaultApp marks the application goroutine of the bench's latency jobs:
// it blocks in the subject's Poll called from bench.pollAll.
const DefaultApp = "bench.pollAll"

// Hop is one goroutine hand-off on a path.
type Hop struct {
	// To names the goroutine readied: the innermost function outside the
	// runtime and the standard library where it was blocked, package path
	// trimmed ("reactor.(*Driver[...]).wait"); "?" when the trace holds no
	// stack for that block (it began before the trace).
	To string
	// Work is the previous goroutine's part: for the first hop from the
	// read's return (from the wake-up when Path.Read is 0), for the others
	// from the previous goroutine's running, to its readying To.
	Work time.Duration
	// Wait is from To's readying to its running: the scheduler's share.
	Wait time.Duration
}

// Path is one answer's way through the client.
type Path struct {
	// Read is from the network wake-up to the woken goroutine's first
	// return from a system call (the read of the answer); 0 when it made
	// none before readying the next goroutine.
	Read time.Duration
	// Hops are the hand-offs in order; the last one's To is the
	// application goroutine.
	Hops []Hop
	// Total is from the network wake-up to the application goroutine
	// running: Read plus every hop's Work and Wait.
	Total time.Duration
}

// Shape is the path's goroutine names joined with " > ".
func (p Path) Shape() string {
	names := make([]string, len(p.Hops))
	for i, h := range p.Hops {
		names[i] = h.To
	}
	return strings.Join(names, " > ")
}

// Result is what ReadPaths found in one trace.
type Result struct {
	// Paths are the paths followed to the application goroutine, in time
	// order.
	Paths []Path
	// Wakeups is the number of goroutines the network poller woke.
	Wakeups int
	// Overtaken counts paths dropped because another network wake-up came
	// before they reached the application goroutine (one path is followed
	// at a time); Parked counts those whose goroutine blocked or ended
	// before readying another (an empty Fetch answer, a heartbeat); Cut
	// is 1 when the trace ended on a path in progress.
	Overtaken, Parked, Cut int
}

// ErrNoPaths is returned by ReadPaths for a trace in which no path reached
// the application goroutine: a trace of something other than a latency
// job, or an application marker that names no function the application
// blocked in.
var ErrNoPaths = errors.New("tracepath: no path from a network wake-up to the application goroutine")

// ReadPaths reads a whole execution trace from r and follows its paths.
// app is the application marker (a substring of a function name on the
// blocked application goroutine's stack); "" means DefaultApp. Errors: the
// trace reader's, wrapped with the event count read so far; ErrNoPaths,
// wrapped with the marker and the counts.
func ReadPaths(r io.Reader, app string) (Result, error) {
	if app == "" {
		app = DefaultApp
	}
	tr, err := trace.NewReader(r)
	if err != nil {
		return Result{}, fmt.Errorf("tracepath: not a Go execution trace: %w", err)
	}
	f := follower{app: app, blocked: map[trace.GoID]blocked{}}
	for n := 0; ; n++ {
		ev, err := tr.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Result{}, fmt.Errorf("tracepath: after %d events: %w", n, err)
		}
		if ev.Kind() == trace.EventStateTransition && ev.StateTransition().Resource.Kind == trace.ResourceGoroutine {
			f.transition(ev)
		}
	}
	if f.on {
		f.res.Cut = 1
	}
	if len(f.res.Paths) == 0 {
		return f.res, fmt.Errorf("%w (application marker %q; %d network wake-ups, %d paths overtaken, %d parked)",
			ErrNoPaths, app, f.res.Wakeups, f.res.Overtaken, f.res.Parked)
	}
	return f.res, nil
}

// blocked is where a waiting goroutine blocked.
type blocked struct {
	network bool   // on the network poller
	app     bool   // its stack holds the application marker
	name    string // the innermost frame outside the runtime and std
}

// follower follows one path at a time through the event stream.
type follower struct {
	app     string
	blocked map[trace.GoID]blocked // the goroutines waiting now
	res     Result

	on      bool
	start   trace.Time
	cur     trace.GoID // the goroutine the path is in
	from    trace.Time // when cur's part began (its running, or the read's return)
	readAt  trace.Time
	pending trace.GoID // readied by cur, not yet running; trace.NoGoroutine if none
	readyAt trace.Time
	hops    []Hop
}

func (f *follower) transition(ev trace.Event) {
	st := ev.StateTransition()
	g := st.Resource.Goroutine()
	from, to := st.Goroutine()
	at := ev.Time()
	switch {
	case to == trace.GoWaiting:
		if _, known := f.blocked[g]; known && from != trace.GoRunning {
			// A status event (a new trace generation, or the trace's start
			// for a goroutine already waiting): no reason, no stack; what
			// its block was is already known.
			return
		}
		f.blocked[g] = f.blockedAt(st)
		f.parked(g)
	case to == trace.GoNotExist:
		delete(f.blocked, g)
		f.parked(g)
	case from == trace.GoWaiting && to == trace.GoRunnable:
		b := f.blocked[g]
		delete(f.blocked, g)
		if b.network {
			f.res.Wakeups++
			if f.on {
				f.res.Overtaken++
			}
			f.on, f.start, f.cur, f.from, f.readAt = true, at, g, at, 0
			f.pending, f.hops = trace.NoGoroutine, nil
			return
		}
		if f.on && ev.Goroutine() == f.cur && f.pending == trace.NoGoroutine {
			f.pending, f.readyAt = g, at
			f.hops = append(f.hops, Hop{To: b.name, Work: at.Sub(f.from)})
			if b.app {
				f.blocked[g] = b // remembered until it runs
			}
		}
	case from == trace.GoSyscall && to == trace.GoRunning:
		if f.on && g == f.cur && len(f.hops) == 0 && f.readAt == 0 {
			f.readAt, f.from = at, at
		}
	case to == trace.GoRunning && from == trace.GoRunnable:
		if !f.on || g != f.pending {
			return
		}
		h := &f.hops[len(f.hops)-1]
		h.Wait = at.Sub(f.readyAt)
		f.cur, f.from, f.pending = g, at, trace.NoGoroutine
		if b, ok := f.blocked[g]; ok && b.app {
			delete(f.blocked, g)
			p := Path{Hops: slices.Clone(f.hops), Total: at.Sub(f.start)}
			if f.readAt != 0 {
				p.Read = f.readAt.Sub(f.start)
			}
			f.res.Paths = append(f.res.Paths, p)
			f.on = false
		}
	}
}

// parked drops the path when g, the goroutine it is in, blocked or ended
// before readying another.
func (f *follower) parked(g trace.GoID) {
	if f.on && g == f.cur && f.pending == trace.NoGoroutine {
		f.on = false
		f.res.Parked++
	}
}

// blockedAt describes where st's goroutine blocked.
func (f *follower) blockedAt(st trace.StateTransition) blocked {
	b := blocked{network: st.Reason == "network"}
	for fr := range st.Stack.Frames() {
		if strings.Contains(fr.Func, f.app) {
			b.app = true
		}
		if b.name == "" && !stdFunc(fr.Func) {
			b.name = trimPackagePath(fr.Func)
		}
	}
	if b.name == "" {
		b.name = "?"
	}
	return b
}

// stdFunc reports whether fn is in the standard library, the runtime
// included: its package path has no slash and is not main
// ("runtime.selectgo"), or has no dot in its first element
// ("internal/poll.(*FD).Read").
func stdFunc(fn string) bool {
	first, _, slash := strings.Cut(fn, "/")
	if !slash {
		return !strings.HasPrefix(fn, "main.")
	}
	return !strings.Contains(first, ".")
}

// trimPackagePath drops fn's package path up to its last slash.
func trimPackagePath(fn string) string {
	if i := strings.LastIndex(fn, "/"); i >= 0 {
		return fn[i+1:]
	}
	return fn
}
