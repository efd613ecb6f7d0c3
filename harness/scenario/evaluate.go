package scenario

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/measure"
)

// evaluate judges every expectation, then adds the run's own figures.
func (r *run) evaluate(_ context.Context) {
	r.tEnd = time.Now()
	for _, e := range r.sc.Expect {
		if _, isReject := e.Args.(*ConfigRejected); !isReject && r.anyRejected() {
			continue // a refused configuration is the whole verdict
		}
		e.Args.evaluate(r, e)
	}
	if r.anyRejected() && !slices.ContainsFunc(r.sc.Expect, func(e *Expectation) bool { _, ok := e.Args.(*ConfigRejected); return ok }) {
		for _, m := range r.order {
			if m.rejected != nil {
				r.fail(harness.KeyTimeline, "%s: consumer %s: construction failed: %v", r.sc.File, m.spec.Name, m.rejected)
			}
		}
	}
	r.windowFigures()
	for _, m := range r.order {
		m.mu.Lock()
		n := m.pollErrors
		m.mu.Unlock()
		if n > 0 {
			r.figure(Figure{Name: "poll_errors" + r.sc.suffix(m.spec.Name), Value: float64(n), Unit: "errors"})
		}
	}
}

func (r *run) anyRejected() bool {
	return slices.ContainsFunc(r.order, func(m *member) bool { return m.rejected != nil })
}

// judge adds f (named key) and, unless ok, a failure of key.
func (r *run) judge(e *Expectation, key string, ok bool, f Figure, format string, args ...any) {
	f.Name, f.Pass = key, ok
	r.figure(f)
	if !ok {
		r.fail(key, "%s:%d: %s: %s", r.sc.File, e.Line, e.Kind, fmt.Sprintf(format, args...))
	}
}

// notReached fails e on the timeline's key: the window or step it needs was
// never reached, so it measured nothing (the report must not credit a
// signal that was not measured).
func (r *run) notReached(e *Expectation, what string) {
	r.fail(harness.KeyTimeline, "%s:%d: %s: %s was not reached (the timeline stopped early)", r.sc.File, e.Line, e.Kind, what)
}

// count judges a count against minN/maxN (bound is the text, "" renders
// them); reportOnly records the figure without a bound.
func (r *run) count(e *Expectation, key string, n int, unit string, minN, maxN *int, bound string, reportOnly bool) {
	if reportOnly {
		r.figure(Figure{Name: key, Value: float64(n), Unit: unit, Pass: true})
		return
	}
	if bound == "" {
		bound = boundText(minN, maxN)
	}
	ok := (maxN == nil || n <= *maxN) && (minN == nil || n >= *minN)
	r.judge(e, key, ok, Figure{Value: float64(n), Unit: unit, Bound: bound}, "%s = %d %s, want %s", key, n, unit, bound)
	if maxN != nil && *maxN > 0 {
		r.figure(Figure{Name: key + ".headroom", Value: measure.Headroom(float64(n), float64(*maxN)), Unit: "x"})
	}
}

// span is the window name's time range, or the whole timeline for "".
func (r *run) span(e *Expectation, name string) (from, to time.Time, ok bool) {
	if name == "" {
		return r.t0, r.tEnd, true
	}
	w, ok := r.windowOf(name)
	if !ok {
		r.notReached(e, fmt.Sprintf("window %q", name))
		return time.Time{}, time.Time{}, false
	}
	return w.from, w.to, true
}

// clientIDs are the client ids of consumer name ("" the first, "all" every
// one).
func (r *run) clientIDs(name string) []string {
	if name == "all" {
		out := make([]string, len(r.order))
		for i, m := range r.order {
			out[i] = m.clientID
		}
		return out
	}
	return []string{r.member(name).clientID}
}

// requests returns the recorded requests of keys from the consumer's client
// ids in [from, to) that match where (nil: all), oldest first.
func (r *run) requests(keys []kmsg.Key, consumer string, where func(kmsg.Request) bool, from, to time.Time) []harness.Request {
	var out []harness.Request
	for _, id := range r.clientIDs(consumer) {
		for _, q := range r.cl.Recorder().Filter(harness.RequestFilter{Keys: keys, ClientID: id, From: from, To: to}) {
			if where == nil || (q.Body != nil && where(q.Body)) {
				out = append(out, q)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b harness.Request) int { return a.At.Compare(b.At) })
	return out
}

// stepMark is the mark of the step named name for e, failing e on the
// timeline's key when it never ran.
func (r *run) stepMark(e *Expectation, name string) (*mark, bool) {
	mk, ok := r.result(name)
	if !ok {
		r.notReached(e, fmt.Sprintf("step %q", name))
	}
	return mk, ok
}
