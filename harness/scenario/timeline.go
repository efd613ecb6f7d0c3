package scenario

// The timeline: the sequence (steps in file order, each waiting for the one
// before), background steps (started by the sequence, running on their own
// until join or the end), and timed steps (at:, started when their anchor is
// reached plus the offset, concurrent with everything else).

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/measure"
)

// mark is what one step did: when it started and ended, its error and the
// records it delivered. started and ended close at those moments (readers
// of the fields wait on them, or run after the timeline).
type mark struct {
	started, ended chan struct{}
	start, end     time.Time
	err            error // the call's outcome (judged by error: expectations)
	records        int
	reached        bool
	// inside is the client's own time for a single-call step (poll,
	// commit_sync, close) of a consumer in another process
	// (measure.CallTimer: the java driver times the call inside the JVM);
	// 0 when end - start is the call's time.
	inside time.Duration
}

func newMark() *mark { return &mark{started: make(chan struct{}), ended: make(chan struct{})} }

// timeline runs the steps. A step that cannot be carried out stops the
// sequence there: the failure is recorded on KeyTimeline and the
// expectations are still evaluated, so a run shows what it measured before
// it stopped (a consumer that makes no progress fails its liveness keys,
// not the spec as a whole).
func (r *run) timeline(ctx context.Context) {
	for _, m := range r.order {
		if m.rejected != nil {
			return // a refused configuration is the whole verdict (config_rejected)
		}
	}
	for _, st := range r.sc.Steps {
		r.marks[st.name()] = newMark()
	}
	var bg, timed sync.WaitGroup
	r.t0 = time.Now()
	close(r.begun)
	for _, st := range r.sc.Steps {
		if st.At != nil {
			timed.Add(1)
			go func() {
				defer timed.Done()
				r.timed(ctx, st)
			}()
		}
	}
	for _, st := range r.sc.Steps {
		if st.At != nil {
			continue
		}
		if ctx.Err() != nil {
			r.fail(harness.KeyTimeline, "%s:%d: %s: %v (the run's deadline: %s)", r.sc.File, st.Line, st.Kind, ctx.Err(), r.deadlineWhy)
			break
		}
		if st.Background {
			bg.Add(1)
			go func() {
				defer bg.Done()
				if err := r.exec(ctx, st); err != nil {
					r.stepFailed(st, err, "the background step stopped here")
				}
			}()
			continue
		}
		if err := r.exec(ctx, st); err != nil {
			r.stepFailed(st, err, "the timeline stopped here")
			break
		}
		if r.isNA() {
			break
		}
	}
	bg.Wait()
	close(r.seqDone)
	timed.Wait()
	r.mu.Lock()
	for _, w := range r.windows {
		if w.to.IsZero() {
			r.closeWindowLocked(w)
		}
	}
	r.mu.Unlock()
}

func (r *run) stepFailed(st *Step, err error, what string) {
	var na *naError
	if errors.As(err, &na) {
		r.setNA(fmt.Sprintf("%s:%d: %s: %s", r.sc.File, st.Line, st.Kind, na.why))
		return
	}
	r.fail(harness.KeyTimeline, "%s:%d: %s: %v (%s)", r.sc.File, st.Line, st.Kind, err, what)
}

func (r *run) isNA() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.na != ""
}

// exec runs one step, marking its start and end.
func (r *run) exec(ctx context.Context, st *Step) error {
	mk := r.marks[st.name()]
	mk.start, mk.reached = time.Now(), true
	close(mk.started)
	err := st.Args.run(ctx, r, st)
	mk.end = time.Now()
	mk.inside = r.callTime(st)
	close(mk.ended)
	return err
}

// callTime is the client's own time for st's call where it has one (see
// mark.inside), else 0.
func (r *run) callTime(st *Step) time.Duration {
	switch st.Kind {
	case "poll", "commit_sync", "close":
	default:
		return 0
	}
	if len(r.order) == 0 {
		return 0
	}
	m := r.member(st.Consumer)
	if m == nil {
		return 0
	}
	h := m.handle()
	if h == nil {
		return 0
	}
	return measure.CallTime(h, st.Kind, 0)
}

// timed runs a step with at: once its anchor is reached and its offset has
// passed; a step whose anchor is never reached does not run.
func (r *run) timed(ctx context.Context, st *Step) {
	var anchor <-chan struct{}
	var base func() time.Time
	if st.At.Step == "" {
		anchor, base = r.begun, func() time.Time { return r.t0 }
	} else {
		mk := r.marks[st.At.Step]
		if st.At.End {
			anchor, base = mk.ended, func() time.Time { return mk.end }
		} else {
			anchor, base = mk.started, func() time.Time { return mk.start }
		}
	}
	select {
	case <-anchor:
	case <-r.seqDone:
		select {
		case <-anchor:
		default:
			return // the anchor was never reached
		}
	case <-ctx.Done():
		return
	}
	t := time.NewTimer(time.Until(base().Add(st.At.Offset)))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return
	}
	if err := r.exec(ctx, st); err != nil {
		r.stepFailed(st, err, "a timed step")
	}
}

// result is the mark of the step named name, if it ran.
func (r *run) result(name string) (*mark, bool) {
	mk, ok := r.marks[name]
	if !ok || !mk.reached {
		return nil, false
	}
	select {
	case <-mk.ended:
		return mk, true
	default:
		return nil, false
	}
}

// openWindow opens window name at now, reading each consumer's probe.
func (r *run) openWindow(name string) {
	w := &window{from: time.Now(), probes: map[string]*windowProbe{}}
	for _, m := range r.order {
		wp := &windowProbe{}
		wp.cpu0, wp.cpuRead, wp.cpuErr = readCPU(m)
		if p, ok := probeOf(m); ok {
			wp.s0 = p.Stats()
		}
		w.probes[m.spec.Name] = wp
	}
	r.mu.Lock()
	r.windows[name] = w
	r.mu.Unlock()
}

// closeWindow closes window name at now.
func (r *run) closeWindow(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if w := r.windows[name]; w != nil && w.to.IsZero() {
		r.closeWindowLocked(w)
	}
}

func (r *run) closeWindowLocked(w *window) {
	w.to = time.Now()
	for _, m := range r.order {
		wp := w.probes[m.spec.Name]
		if wp == nil {
			continue
		}
		if wp.cpuRead && wp.cpuErr == nil {
			var ok bool
			if wp.cpu1, ok, wp.cpuErr = readCPU(m); !ok {
				wp.cpuErr = fmt.Errorf("consumer %s was gone when the window closed", m.spec.Name)
			}
		}
		if p, ok := probeOf(m); ok {
			wp.s1 = p.Stats()
			wp.pastInTrace = measure.PastDeadlinesIn(p.Trace(), w.from, w.to)
		}
	}
}

// windowOf returns the closed window name, or false when the timeline never
// reached it.
func (r *run) windowOf(name string) (*window, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w, ok := r.windows[name]
	return w, ok && !w.to.IsZero()
}
