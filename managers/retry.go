package managers

import (
	"errors"
	"time"
)

// Retry is one request's retry state: consecutive failures, the backoff
// deadline they set, and the last error. Every manager that retries keeps
// one per request it retries. The zero value with a Backoff set is ready.
type Retry struct {
	Backoff  Backoff
	attempts int
	next     time.Time
	last     error
}

// Fail records a failure at now and returns when the next attempt may go:
// the n-th consecutive failure waits Backoff.Delay(n), and never less than
// a broker's reconnect backoff the error reports (*ReconnectBackoffError).
func (r *Retry) Fail(now time.Time, err error) time.Time {
	r.last = err
	r.attempts++
	r.next = now.Add(r.Backoff.Delay(r.attempts))
	var rb *ReconnectBackoffError
	if errors.As(err, &rb) && rb.Until.After(r.next) {
		r.next = rb.Until
	}
	return r.next
}

// Note records err (nil clears it) as the last error without counting an
// attempt or starting a backoff.
func (r *Retry) Note(err error) { r.last = err }

// Succeed clears the failures.
func (r *Retry) Succeed() { r.attempts, r.next, r.last = 0, time.Time{}, nil }

// Waiting reports whether now is inside the backoff, and its end.
func (r *Retry) Waiting(now time.Time) (time.Time, bool) { return r.next, now.Before(r.next) }

// Next is the end of the current backoff (zero when none).
func (r *Retry) Next() time.Time { return r.next }

// Attempts is the number of consecutive failures.
func (r *Retry) Attempts() int { return r.attempts }

// Err is the last failure's error, or nil after Succeed.
func (r *Retry) Err() error { return r.last }
