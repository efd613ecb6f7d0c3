package scenario

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/managers/group"
)

func (r *run) evaluate(out *Outcome) {
	fail := func(e Expectation, format string, args ...any) {
		out.Failures = append(out.Failures, fmt.Sprintf("%s:%d: %s: %s", r.sc.File, e.Line, e.Kind, fmt.Sprintf(format, args...)))
	}
	add := func(f Figure) { out.Figures = append(out.Figures, f) }

	if r.rejected != nil {
		for _, e := range r.sc.Expect {
			if e.Kind != "config_rejected" {
				continue
			}
			var ce *consumer.ConfigError
			ok := errors.As(r.rejected, &ce) && ce.Field == e.Field
			add(Figure{Name: "config_rejected." + e.Field, Value: 1, Unit: "configs rejected", Bound: "rejected naming " + e.Field, Pass: ok})
			if !ok {
				fail(e, "construction failed, but not with a ConfigError naming %s: %v", e.Field, r.rejected)
			}
			return // a rejected configuration is the whole verdict
		}
		out.Failures = append(out.Failures, fmt.Sprintf("%s: consumer construction failed: %v", r.sc.File, r.rejected))
		return
	}
	for _, e := range r.sc.Expect {
		switch e.Kind {
		case "config_rejected":
			add(Figure{Name: "config_rejected." + e.Field, Value: 0, Unit: "configs rejected", Bound: "accepted: the other bounds apply", Pass: true})
		case "requests":
			w := r.windows[e.Window]
			n := r.cl.Recorder().Count(harness.RequestFilter{Keys: []kmsg.Key{e.Key}, ClientID: r.clientID, From: w.from, To: w.to})
			maxN := e.Max
			bound := ""
			if e.MaxBackoffPlus != nil {
				m := harness.Backoff(r.cfg).MaxAttemptsIn(w.to.Sub(w.from)) + *e.MaxBackoffPlus
				maxN = &m
				bound = fmt.Sprintf("<= %d (backoff schedule in %s + %d)", m, w.to.Sub(w.from).Round(time.Millisecond), *e.MaxBackoffPlus)
			}
			name := fmt.Sprintf("requests.%s.%s", kmsg.NameForKey(int16(e.Key)), e.Window)
			r.count(out, e, name, n, "requests", maxN, e.Min, bound, fail)
		case "steps", "spurious_wakeups", "ready_without_request", "app_wakeups":
			w := r.windows[e.Window]
			if !w.probed {
				add(Figure{Name: e.Kind + "." + e.Window, Unit: "", Pass: true, NotApplicable: true,
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
			case "app_wakeups":
				n, unit = w.wakes1-w.wakes0, "wakeups"
			}
			r.count(out, e, e.Kind+"."+e.Window, int(n), unit, e.Max, e.Min, "", fail)
		case "duration":
			res := r.results[e.Of]
			if res == nil {
				fail(e, "step %q did not run", e.Of)
				continue
			}
			d := res.end.Sub(res.start)
			ok := (e.MinDur == nil || d >= *e.MinDur) && (e.MaxDur == nil || d <= *e.MaxDur)
			add(Figure{Name: "duration." + e.Of, Value: float64(d.Milliseconds()), Unit: "ms", Bound: durBound(e), Pass: ok})
			if !ok {
				fail(e, "%s took %s, want %s", e.Of, d.Round(time.Millisecond), durBound(e))
			}
		case "error":
			res := r.results[e.Of]
			if res == nil {
				fail(e, "step %q did not run", e.Of)
				continue
			}
			ok := errorIs(res.err, e.Is)
			add(Figure{Name: "error." + e.Of, Value: b2f(res.err != nil), Unit: "errors", Bound: "is " + e.Is, Pass: ok, Detail: fmt.Sprint(res.err)})
			if !ok {
				fail(e, "%s returned %v, want %s", e.Of, res.err, e.Is)
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
			add(Figure{Name: "callbacks." + e.Of, Value: float64(n), Unit: "callbacks", Bound: fmt.Sprintf("== %d, each %s", *e.Max, orAny(e.Is)), Pass: ok, Detail: fmt.Sprint(cb.errs)})
			if !ok {
				fail(e, "%s's callback ran %d time(s) with %v, want %d time(s) with %s", e.Of, n, cb.errs, *e.Max, orAny(e.Is))
			}
		case "commits_within_processed":
			r.commitsMu.Lock()
			commits := append([]commitSeen(nil), r.commits...)
			r.commitsMu.Unlock()
			if err := r.resolveTopicIDs(context.Background(), commits); err != nil {
				fail(e, "%v", err)
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
			add(Figure{Name: "commits.observed", Value: float64(judged), Unit: "partition commits"})
			add(Figure{Name: "commits.past_processed", Value: float64(bad), Unit: "partition commits", Bound: "== 0", Pass: bad == 0})
			add(Figure{Name: "commits.max_excess", Value: float64(worst), Unit: "records"})
			if judged == 0 {
				fail(e, "no OffsetCommit was observed: the scenario does not exercise auto-commit")
			} else if bad > 0 {
				fail(e, "%d of %d partition commits exceeded what the application had processed; first: %s", bad, judged, first)
			}
		case "delivered":
			ok := r.unique == e.Records && len(r.violations) == 0
			add(Figure{Name: "delivered", Value: float64(r.unique), Unit: "records", Bound: fmt.Sprintf("== %d, each once, in order", e.Records), Pass: ok})
			if !ok {
				fail(e, "%d unique records (want %d); violations: %v", r.unique, e.Records, r.violations)
			}
		}
	}
	if r.pollErrors > 0 {
		add(Figure{Name: "poll_errors", Value: float64(r.pollErrors), Unit: "errors"})
	}
}

func (r *run) count(out *Outcome, e Expectation, name string, n int, unit string, maxN, minN *int, bound string, fail func(Expectation, string, ...any)) {
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
	if !ok {
		fail(e, "%s = %d %s, want %s", name, n, unit, bound)
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
		var ce *group.CommitError
		return errors.As(err, &ce)
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
