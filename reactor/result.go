package reactor

import (
	"fmt"
	"time"
)

// Kind is what a manager's Result says about progress. The zero value is
// invalid.
type Kind uint8

const (
	// KindReady: requests can be sent now; the Result carries them.
	KindReady Kind = 1 + iota
	// KindRetryAt: nothing now; progress is possible at the finite time At
	// (a backoff, an interval, a deadline).
	KindRetryAt
	// KindAwait: nothing now; progress needs one of Inputs (and, if At is
	// set, the manager must also be polled again by At).
	KindAwait
	// KindIdle: no outstanding work.
	KindIdle
)

// String returns "ready", "retry-at", "await", "idle" or "invalid(N)".
func (k Kind) String() string {
	switch k {
	case KindReady:
		return "ready"
	case KindRetryAt:
		return "retry-at"
	case KindAwait:
		return "await"
	case KindIdle:
		return "idle"
	}
	return fmt.Sprintf("invalid(%d)", uint8(k))
}

// Result is one manager's answer to a poll (KIP-1371 "Manager results
// distinguish work available now, finite time-based retry, and waiting for an
// enabling input"). Build it with Ready, RetryAt, Await or Idle.
type Result struct {
	Kind Kind
	// Requests are the requests to send now (Ready only).
	Requests []*Request
	// At is the time progress becomes possible (RetryAt), or an optional
	// deadline by which an Await must be polled again (request timeout,
	// session expiry, close deadline). Zero means none.
	At time.Time
	// Inputs is the set of inputs that can enable progress (Await only).
	Inputs Input
	// Reason says why, in a few words, for the decision trace and the
	// diagnosis ("coordinator unknown", "heartbeat interval").
	Reason string
}

// Ready returns a Ready result carrying reqs. A Ready result with no request
// is a contract violation that the loop counts (Stats.ReadyWithoutRequest)
// and never spins on.
func Ready(reason string, reqs ...*Request) Result {
	return Result{Kind: KindReady, Requests: reqs, Reason: reason}
}

// RetryAt returns a result saying progress is possible at the finite time at.
func RetryAt(at time.Time, reason string) Result {
	return Result{Kind: KindRetryAt, At: at, Reason: reason}
}

// Await returns a result saying progress needs one of inputs.
func Await(inputs Input, reason string) Result {
	return Result{Kind: KindAwait, Inputs: inputs, Reason: reason}
}

// Until adds a deadline to an Await: the loop polls the manager again no later
// than deadline even if no input arrives. On other kinds it returns r as is.
func (r Result) Until(deadline time.Time) Result {
	if r.Kind == KindAwait {
		r.At = deadline
	}
	return r
}

// Idle returns a result saying the manager has no outstanding work.
func Idle(reason string) Result {
	return Result{Kind: KindIdle, Reason: reason}
}

// String renders the result for traces, e.g. "await(response) until +120ms:
// commit in flight".
func (r Result) String() string {
	switch r.Kind {
	case KindReady:
		return fmt.Sprintf("ready(%d): %s", len(r.Requests), r.Reason)
	case KindRetryAt:
		return fmt.Sprintf("retry-at(%s): %s", r.At.Format("15:04:05.000"), r.Reason)
	case KindAwait:
		if !r.At.IsZero() {
			return fmt.Sprintf("await(%s) until %s: %s", r.Inputs, r.At.Format("15:04:05.000"), r.Reason)
		}
		return fmt.Sprintf("await(%s): %s", r.Inputs, r.Reason)
	case KindIdle:
		return "idle: " + r.Reason
	}
	return r.Kind.String()
}
