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
	// trimmed ("reactor.(*Driver[...]).wait").
	To string
	// Work is from the previous goroutine's start on the path (for the
	// first hop: the read's return) to its readying To.
	Work time.Duration
	// Wait is from To's readying to its running: the scheduler's share.
	Wait time.Duration
}

// Path is one answer's way through the client.
type Path struct {
	// Read is from the network wake-up to the reading goroutine's first
	// return from a system call (the read of the answer); 0 when it made
	// none before readying the next goroutine.
	Read time.Duration
	// Hops are the hand-offs in order; the last one's To is the
	// application goroutine.
	Hops []Hop
	// Total is from the network wake-up to the application goroutine
	// running.
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

// ErrNoPaths is returned by Read for a trace in which no path reached the
// application goroutine: a trace of something other than a latency job,
// or an App marker that names no function the application blocked in.
var ErrNoPaths = errors.New("tracepath: no path from a network wake-up to the application goroutine")

// Read reads a whole execution trace from r and returns its paths in time
// order. app is the application marker (a substring of a function name on
// the blocked application goroutine's stack); "" means DefaultApp. Errors:
// the trace reader's, wrapped with the event count read so far;
// ErrNoPaths.
func Read(r io.Reader, app string) ([]Path, error) {
	if app == "" {
		app = DefaultApp
	}
	tr, err := trace.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("tracepath: not a Go execution trace: %w", err)
	}
	f := follower{app: app, blocked: map[trace.GoID]blocked{}}
	for n := 0; ; n++ {
		ev, err := tr.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("tracepath: after %d events: %w", n, err)
		}
		if ev.Kind() == trace.EventStateTransition && ev.StateTransition().Resource.Kind == trace.ResourceGoroutine {
			f.transition(ev)
		}
	}
	if len(f.paths) == 0 {
		return nil, ErrNoPaths
	}
	return f.paths, nil
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
	blocked map[trace.GoID]blocked
	paths   []Path

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
		f.blocked[g] = f.blockedAt(st)
		if f.on && g == f.cur && f.pending == trace.NoGoroutine {
			f.on = false // blocked before readying anyone
		}
	case to == trace.GoNotExist:
		delete(f.blocked, g)
		if f.on && g == f.cur && f.pending == trace.NoGoroutine {
			f.on = false
		}
	case from == trace.GoWaiting && to == trace.GoRunnable:
		b := f.blocked[g]
		delete(f.blocked, g)
		if b.network {
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
			f.paths = append(f.paths, p)
			f.on = false
		}
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
// included: its package path has no slash ("runtime.selectgo") or no dot
// in its first element ("internal/poll.(*FD).Read").
func stdFunc(fn string) bool {
	first, _, slash := strings.Cut(fn, "/")
	return !slash || !strings.Contains(first, ".")
}

// trimPackagePath drops fn's package path up to its last slash.
func trimPackagePath(fn string) string {
	if i := strings.LastIndex(fn, "/"); i >= 0 {
		return fn[i+1:]
	}
	return fn
}
