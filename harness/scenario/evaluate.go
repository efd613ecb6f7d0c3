package scenario

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
)

func (r *run) evaluate(out *Outcome) {
	fail := func(e Expectation, key, format string, args ...any) {
		out.Failures = append(out.Failures, fmt.Sprintf("%s:%d: %s: %s", r.sc.File, e.Line, e.Kind, fmt.Sprintf(format, args...)))
		out.failKey(key)
	}
	add := func(f Figure) { out.Figures = append(out.Figures, f) }

	if r.rejected != nil {
		for _, e := range r.sc.Expect {
			if e.Kind != "config_rejected" {
				continue
			}
			var ce *consumer.ConfigError
			ok := errors.As(r.rejected, &ce) && ce.Field == e.Field
			add(Figure{Name: e.Key(), Value: 1, Unit: "configs rejected", Bound: "rejected naming " + e.Field, Pass: ok})
			if !ok {
				fail(e, e.Key(), "construction failed, but not with a ConfigError naming %s: %v", e.Field, r.rejected)
			}
			return // a rejected configuration is the whole verdict
		}
		out.Failures = append(out.Failures, fmt.Sprintf("%s: consumer construction failed: %v", r.sc.File, r.rejected))
		out.failKey(KeyTimeline)
		return
	}
	probe, probed := harness.ProbeOf(r.c)
	for _, e := range r.sc.Expect {
		// An expectation about a window or a step the timeline never
		// reached measured nothing: it fails, on the timeline's key, not
		// on its own (the report must not credit a signal that was not
		// measured).
		if w, ok := r.windows[e.Window]; e.Window != "" && (!ok || w.to.IsZero()) {
			fail(e, KeyTimeline, "window %q was not reached (the timeline stopped early)", e.Window)
			continue
		}
		if e.Of != "" && e.Kind != "callbacks" && r.results[e.Of] == nil {
			fail(e, KeyTimeline, "step %q was not reached (the timeline stopped early)", e.Of)
			continue
		}
		if e.Of != "" && e.Kind == "callbacks" && r.callbacks[e.Of] == nil {
			fail(e, KeyTimeline, "step %q was not reached (the timeline stopped early)", e.Of)
			continue
		}
		switch e.Kind {
		case "config_rejected":
			add(Figure{Name: e.Key(), Value: 0, Unit: "configs rejected", Bound: "accepted: the other bounds apply", Pass: true})
		case "requests":
			w := r.windows[e.Window]
			n := r.cl.Recorder().Count(harness.RequestFilter{Keys: []kmsg.Key{e.API}, ClientID: r.clientID, From: w.from, To: w.to})
			maxN := e.Max
			bound := ""
			if e.MaxBackoffPlus != nil {
				// The retry schedule comes from the configuration through
				// the harness's own reading of Kafka's documented backoff
				// (harness.RetrySchedule), never from the subject's code.
				sched := harness.Schedule(r.cfg)
				m := sched.MaxAttemptsIn(w.to.Sub(w.from)) + *e.MaxBackoffPlus
				maxN = &m
				bound = fmt.Sprintf("<= %d (retry schedule %s in %s + %d)", m, sched, w.to.Sub(w.from).Round(time.Millisecond), *e.MaxBackoffPlus)
			}
			r.count(out, e, n, "requests", maxN, e.Min, bound, fail)
		case "steps", "spurious_wakeups", "ready_without_request", "past_deadline", "app_wakeups":
			w := r.windows[e.Window]
			if !w.probed {
				add(Figure{Name: e.Key(), Unit: "", Pass: true, NotApplicable: true,
					Detail: "needs the loop's counters (a probe of our consumers)"})
				continue
			}
			d := w.s1.Sub(w.s0)
			var n uint64
			unit := "steps"
			switch e.Kind {
			case "steps":
				n = d.Steps
			case "spurious_wakeups":
				n, unit = d.SpuriousWakeups, "wakeups"
			case "ready_without_request":
				n, unit = d.ReadyWithoutRequest, "results"
			case "past_deadline":
				// The engine's count, or the harness's own from the
				// published decisions when it is higher: a spec does not
				// take a contract violation's absence from the subject's
				// word alone.
				n, unit = max(d.PastDeadline, uint64(w.pastInTrace)), "results"
			case "app_wakeups":
				n, unit = d.AppWakeups, "wakeups"
			}
			r.count(out, e, int(n), unit, e.Max, e.Min, "", fail)
		case "early_returns":
			if !probed {
				add(Figure{Name: e.Key(), Pass: true, NotApplicable: true, Detail: "needs the consumer's commit-return probe"})
				continue
			}
			returns, early := probe.CommitReturns()
			add(Figure{Name: "commit_returns", Value: float64(returns), Unit: "calls"})
			r.count(out, e, int(early), "calls", e.Max, nil, "", fail)
		case "duration":
			res := r.results[e.Of]
			d := res.end.Sub(res.start)
			ok := (e.MinDur == nil || d >= *e.MinDur) && (e.MaxDur == nil || d <= *e.MaxDur)
			add(Figure{Name: e.Key(), Value: float64(d.Milliseconds()), Unit: "ms", Bound: durBound(e), Pass: ok})
			if e.MaxDur != nil {
				add(Figure{Name: e.Key() + ".headroom", Value: harness.Headroom(float64(d.Milliseconds()), float64(e.MaxDur.Milliseconds())), Unit: "x"})
			}
			if !ok {
				fail(e, e.Key(), "%s took %s, want %s", e.Of, d.Round(time.Millisecond), durBound(e))
			}
		case "error":
			res := r.results[e.Of]
			ok := errorIs(res.err, e.Is)
			add(Figure{Name: e.Key(), Value: b2f(res.err != nil), Unit: "errors", Bound: "is " + e.Is, Pass: ok, Detail: fmt.Sprint(res.err)})
			if !ok {
				fail(e, e.Key(), "%s returned %v, want %s", e.Of, res.err, e.Is)
			}
		case "callbacks":
			cb := r.callbacks[e.Of]
			n := len(cb.errs)
			ok := n == *e.Max
			for _, err := range cb.errs {
				if e.Is != "" && !errorIs(err, e.Is) {
					ok = false
				}
			}
			add(Figure{Name: e.Key(), Value: float64(n), Unit: "callbacks", Bound: fmt.Sprintf("== %d, each %s", *e.Max, orAny(e.Is)), Pass: ok, Detail: fmt.Sprint(cb.errs)})
			if !ok {
				fail(e, e.Key(), "%s's callback ran %d time(s) with %v, want %d time(s) with %s", e.Of, n, cb.errs, *e.Max, orAny(e.Is))
			}
		case "commits_within_processed":
			r.commitsMu.Lock()
			commits := append([]commitSeen(nil), r.commits...)
			r.commitsMu.Unlock()
			if err := r.resolveTopicIDs(context.Background(), commits); err != nil {
				fail(e, KeyTimeline, "%v", err)
				continue
			}
			bad, judged, worst := 0, 0, int64(0)
			var first string
			for _, cm := range commits {
				pos, ok := r.processedAt(cm.tp, cm.at)
				if !ok {
					continue
				}
				judged++
				if cm.offset > pos {
					bad++
					worst = max(worst, cm.offset-pos)
					if first == "" {
						first = fmt.Sprintf("OffsetCommit of %s at %d while the application had processed up to %d", cm.tp, cm.offset, pos)
					}
				}
			}
			add(Figure{Name: KeyCommitsObserved, Value: float64(judged), Unit: "partition commits", Bound: ">= 1", Pass: judged > 0})
			add(Figure{Name: KeyCommitsPastProcessed, Value: float64(bad), Unit: "partition commits", Bound: "== 0", Pass: bad == 0})
			add(Figure{Name: "commits.max_excess", Value: float64(worst), Unit: "records"})
			if judged == 0 {
				fail(e, KeyCommitsObserved, "no OffsetCommit was observed: the scenario does not exercise auto-commit")
			} else if bad > 0 {
				fail(e, KeyCommitsPastProcessed, "%d of %d partition commits exceeded what the application had processed; first: %s", bad, judged, first)
			}
		case "cpu":
			r.evaluateCPU(e, add, fail)
		case "delivered":
			ok := r.unique == e.Records && len(r.violations) == 0
			add(Figure{Name: e.Key(), Value: float64(r.unique), Unit: "records", Bound: fmt.Sprintf("== %d, each once, in order", e.Records), Pass: ok})
			if !ok {
				fail(e, e.Key(), "%d unique records (want %d); violations: %v", r.unique, e.Records, r.violations)
			}
		}
	}
	if r.pollErrors > 0 {
		add(Figure{Name: "poll_errors", Value: float64(r.pollErrors), Unit: "errors"})
	}
}

func (r *run) count(out *Outcome, e Expectation, n int, unit string, maxN, minN *int, bound string, fail func(Expectation, string, string, ...any)) {
	name := e.Key()
	if bound == "" {
		switch {
		case maxN != nil && minN != nil:
			bound = fmt.Sprintf("%d..%d", *minN, *maxN)
		case maxN != nil:
			bound = fmt.Sprintf("<= %d", *maxN)
		case minN != nil:
			bound = fmt.Sprintf(">= %d", *minN)
		}
	}
	ok := (maxN == nil || n <= *maxN) && (minN == nil || n >= *minN)
	out.Figures = append(out.Figures, Figure{Name: name, Value: float64(n), Unit: unit, Bound: bound, Pass: ok})
	if maxN != nil && *maxN > 0 {
		out.Figures = append(out.Figures, Figure{Name: name + ".headroom", Value: harness.Headroom(float64(n), float64(*maxN)), Unit: "x"})
	}
	if !ok {
		fail(e, name, "%s = %d %s, want %s", name, n, unit, bound)
	}
}

func durBound(e Expectation) string {
	switch {
	case e.MinDur != nil && e.MaxDur != nil:
		return fmt.Sprintf("%s..%s", *e.MinDur, *e.MaxDur)
	case e.MaxDur != nil:
		return fmt.Sprintf("<= %s", *e.MaxDur)
	case e.MinDur != nil:
		return fmt.Sprintf(">= %s", *e.MinDur)
	}
	return ""
}

func errorIs(err error, is string) bool {
	switch is {
	case "", "any":
		return err != nil || is == ""
	case "none":
		return err == nil
	case "wakeup":
		return errors.Is(err, consumer.ErrWakeup)
	case "commit-failed":
		return harness.IsCommitFailure(err)
	case "close-deadline":
		return errors.Is(err, consumer.ErrCloseDeadline)
	}
	ke, _ := kafkaError(is)
	return ke != nil && errors.Is(err, ke)
}

func orAny(s string) string {
	if s == "" {
		return "any outcome"
	}
	return s
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
