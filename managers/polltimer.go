package managers

// The poll timer: max.poll.interval.ms as a group member keeps it (Java's
// AbstractHeartbeatRequestManager.pollTimer, reset by every poll event and
// checked on every heartbeat poll). Both membership managers (KIP-848 and
// KIP-932) use it; each decides what expiry does to its own protocol state
// (a leave heartbeat, then MemberStale until the next Poll).

import (
	"time"

	"github.com/kreactor/kreactor/reactor"
)

// PollTimer tracks the application's Poll calls against max.poll.interval.ms.
// The zero value with Interval set is ready; an Interval <= 0 never expires.
// Loop goroutine only.
type PollTimer struct {
	// Interval is max.poll.interval.ms (default 300000 ms).
	Interval time.Duration
	last     time.Time // last Poll activity; zero until the timer starts
}

// Start starts the timer at now if it is not running (a member that joins
// before its first Poll: Java's timer runs from the consumer's creation).
func (p *PollTimer) Start(now time.Time) {
	if p.last.IsZero() {
		p.last = now
	}
}

// Polled records Poll activity at now: a Poll called, waiting or returning.
// The interval restarts.
func (p *PollTimer) Polled(now time.Time) { p.last = now }

// Stop stops the timer until the next Start or Polled (the member left).
func (p *PollTimer) Stop() { p.last = time.Time{} }

// Due returns when the timer expires, and false when it is not running or
// never expires.
func (p *PollTimer) Due() (time.Time, bool) {
	if p.Interval <= 0 || p.last.IsZero() {
		return time.Time{}, false
	}
	return p.last.Add(p.Interval), true
}

// Expired reports whether the interval has passed at now without Poll
// activity.
func (p *PollTimer) Expired(now time.Time) bool {
	due, ok := p.Due()
	return ok && !now.Before(due)
}

// Bound adds the timer's expiry to r, so the member is polled again when it
// expires: an Await gets it as its deadline (the earlier one kept), a
// RetryAt the earlier of the two times; Ready and Idle are kept.
func (p *PollTimer) Bound(r reactor.Result) reactor.Result {
	due, ok := p.Due()
	if !ok {
		return r
	}
	switch r.Kind {
	case reactor.KindAwait:
		if r.At.IsZero() || due.Before(r.At) {
			r.At = due
		}
	case reactor.KindRetryAt:
		if due.Before(r.At) {
			r.At = due
			r.Reason += " (max.poll.interval.ms expires first)"
		}
	}
	return r
}
