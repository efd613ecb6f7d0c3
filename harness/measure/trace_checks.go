package measure

import (
	"time"

	"github.com/kreactor/kreactor/reactor"
)

// PastDeadlinesIn counts, in the decisions of trace made in [from, to], the
// results that were contract violations of the past-deadline kind (a
// RetryAt without a time or at or before its decision's time, an Await
// deadline at or before it): the harness's own count, from the published
// decisions, next to the engine's Stats.PastDeadline. A spec takes the
// larger, so a consumer whose counter is broken (or silent) still shows
// what it published. The trace is a ring: this is a lower bound for long
// windows.
func PastDeadlinesIn(trace []*reactor.Decision, from, to time.Time) int {
	n := 0
	for _, d := range trace {
		if d.At.Before(from) || d.At.After(to) {
			continue
		}
		for _, r := range d.Results {
			switch {
			case r.Kind == reactor.KindRetryAt && (r.At.IsZero() || !r.At.After(d.At)):
				n++
			case r.Kind == reactor.KindAwait && !r.At.IsZero() && !r.At.After(d.At):
				n++
			}
		}
	}
	return n
}
