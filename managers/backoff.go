package managers

import (
	"math"
	"math/rand/v2"
	"time"
)

// Backoff shape shared by every retry path, as Kafka clients use it since
// KIP-580 (Java's ExponentialBackoff built by RequestState and
// ClusterConnectionStates).
const (
	// BackoffMultiplier is the growth factor between two consecutive
	// retries.
	BackoffMultiplier = 2
	// BackoffJitter is the jitter fraction: each wait is scaled by a random
	// factor in [1-BackoffJitter, 1+BackoffJitter], then capped at Max.
	BackoffJitter = 0.2
)

// Backoff is exponential backoff with jitter between retry.backoff.ms and
// retry.backoff.max.ms (or reconnect.backoff.ms and reconnect.backoff.max.ms
// for connections), shaped as Java's ExponentialBackoff: the n-th retry
// (1-based) waits Initial * Multiplier^(n-1), that term scaled by a random
// factor in [1-Jitter, 1+Jitter], the result capped at Max. When Max <=
// Initial every wait is exactly Initial (Java skips the jitter then too).
// Build it with NewBackoff so the shared constants apply.
type Backoff struct {
	Initial time.Duration // retry.backoff.ms; default 100 ms
	Max     time.Duration // retry.backoff.max.ms; default 1000 ms
	Jitter  float64       // fraction in [0, 1]; BackoffJitter
	// Rand supplies jitter; nil uses the global source. Tests set a seeded
	// source.
	Rand *rand.Rand
}

// NewBackoff returns the backoff from initial to max (ms in the Java
// settings) with BackoffJitter.
func NewBackoff(initial, max time.Duration) Backoff {
	return Backoff{Initial: initial, Max: max, Jitter: BackoffJitter}
}

// DefaultBackoff is Java's retry default: retry.backoff.ms 100 ms doubling
// to retry.backoff.max.ms 1000 ms with BackoffJitter.
func DefaultBackoff() Backoff { return NewBackoff(100*time.Millisecond, time.Second) }

// DefaultReconnectBackoff is Java's connection default: reconnect.backoff.ms
// 50 ms doubling to reconnect.backoff.max.ms 1000 ms with BackoffJitter.
func DefaultReconnectBackoff() Backoff { return NewBackoff(50*time.Millisecond, time.Second) }

// term is the wait before retry attempt without jitter or cap, and whether
// jitter applies (Java: not when Max <= Initial).
func (b Backoff) term(attempt int) (float64, bool) {
	initial := b.Initial
	if b.Max > 0 && initial > b.Max {
		initial = b.Max
	}
	if b.Max <= initial {
		return float64(initial), false
	}
	// Java raises the multiplier to min(attempts, log_m(Max/Initial)), so
	// the term itself never passes Max; the cap below is for the jitter.
	exp := math.Min(float64(attempt-1), math.Log(float64(b.Max)/math.Max(float64(initial), 1))/math.Log(BackoffMultiplier))
	return float64(initial) * math.Pow(BackoffMultiplier, exp), true
}

func (b Backoff) clamp(d float64) time.Duration {
	if b.Max > 0 && d > float64(b.Max) {
		d = float64(b.Max)
	}
	if d >= float64(math.MaxInt64) {
		return time.Duration(math.MaxInt64) // never wraps to a negative (no) backoff
	}
	return time.Duration(d)
}

// Delay returns the wait before retry number attempt (1-based). attempt <= 0
// returns 0.
func (b Backoff) Delay(attempt int) time.Duration {
	return b.jittered(attempt, func() float64 {
		if b.Jitter <= 0 {
			return 1 // no draw
		}
		r := rand.Float64
		if b.Rand != nil {
			r = b.Rand.Float64
		}
		return 1 - b.Jitter + 2*b.Jitter*r()
	})
}

// MinDelay is the shortest wait Delay(attempt) can return (jitter at its
// minimum).
func (b Backoff) MinDelay(attempt int) time.Duration {
	return b.jittered(attempt, func() float64 { return 1 - b.Jitter })
}

// MaxDelay is the longest wait Delay(attempt) can return (jitter at its
// maximum, capped at Max).
func (b Backoff) MaxDelay(attempt int) time.Duration {
	return b.jittered(attempt, func() float64 { return 1 + b.Jitter })
}

// jittered is the wait before retry attempt (0 for attempt <= 0): its
// term times the jitter factor factor returns, capped at Max. factor is
// called only where jitter applies (Max above Initial).
func (b Backoff) jittered(attempt int, factor func() float64) time.Duration {
	if attempt <= 0 {
		return 0
	}
	d, jitter := b.term(attempt)
	if jitter {
		d *= factor()
	}
	return b.clamp(d)
}

// MinTotal returns the shortest total time the first n retries can take
// (every jitter at its minimum): specs use it to bound request counts.
func (b Backoff) MinTotal(n int) time.Duration {
	var total time.Duration
	for i := 1; i <= n; i++ {
		total += b.MinDelay(i)
	}
	return total
}

// MaxAttemptsIn returns the most requests a manager retrying with b can send
// in window: the first at once, then one per minimal backoff step.
func (b Backoff) MaxAttemptsIn(window time.Duration) int {
	n := 1
	for b.MinTotal(n) <= window {
		n++
		if b.MinDelay(n) <= 0 {
			return math.MaxInt // a zero backoff bounds nothing
		}
	}
	return n
}
