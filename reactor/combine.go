package reactor

import (
	"strings"
	"time"
)

// Combine merges the results of a manager's independent parts into one
// result: any Ready wins and carries every part's requests; otherwise an
// Await carries the union of awaited inputs and the earliest RetryAt time or
// Await deadline as its deadline; otherwise the earliest RetryAt; otherwise
// Idle. Reasons are joined with "; ".
func Combine(parts ...Result) Result {
	var out Result
	var reasons []string
	var reqs []*Request
	var earliest time.Time
	ready, await, retry := false, false, false
	for _, p := range parts {
		switch p.Kind {
		case KindReady:
			ready = true
			reqs = append(reqs, p.Requests...)
		case KindAwait:
			await = true
			out.Inputs |= p.Inputs
		case KindRetryAt:
			retry = true
		default:
			continue
		}
		if p.Reason != "" {
			reasons = append(reasons, p.Reason)
		}
		if (p.Kind == KindAwait || p.Kind == KindRetryAt) && !p.At.IsZero() && (earliest.IsZero() || p.At.Before(earliest)) {
			earliest = p.At
		}
	}
	reason := strings.Join(reasons, "; ")
	switch {
	case ready:
		return Ready(reason, reqs...)
	case await:
		return Await(out.Inputs, reason).Until(earliest)
	case retry:
		return RetryAt(earliest, reason)
	}
	if len(parts) > 0 && parts[0].Reason != "" {
		return Idle(parts[0].Reason)
	}
	return Idle("nothing to do")
}
