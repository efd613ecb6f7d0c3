package managers

import (
	"math"
	"math/rand/v2"
	"time"
)

// Backoff is exponential backoff with jitter, as Kafka clients use between
// retry.backoff.ms and retry.backoff.max.ms (KIP-580): the n-th retry waits
// Initial * 2^(n-1), capped at Max, scaled by a random factor in
// [1-Jitter, 1+Jitter].
type Backoff struct {
	Initial time.Duration // retry.backoff.ms; default 100 ms
	Max     time.Duration // retry.backoff.max.ms; default 1000 ms
	Jitter  float64       // fraction in [0, 1); default 0.2
	// Rand supplies jitter; nil uses the global source. Tests set a seeded
	// source.
	Rand *rand.Rand
}

// DefaultBackoff is Kafka's client default: 100 ms doubling to 1000 ms with
// 20% jitter.
func DefaultBackoff() Backoff {
	return Backoff{Initial: 100 * time.Millisecond, Max: time.Second, Jitter: 0.2}
}

// Delay returns the wait before retry number attempt (1-based). attempt <= 0
// returns 0.
func (b Backoff) Delay(attempt int) time.Duration {
	if attempt <= 0 {
		return 0
	}
	d := float64(b.Initial) * math.Pow(2, float64(min(attempt-1, 30)))
	if b.Max > 0 && d > float64(b.Max) {
		d = float64(b.Max)
	}
	if b.Jitter > 0 {
		r := rand.Float64
		if b.Rand != nil {
			r = b.Rand.Float64
		}
		d *= 1 - b.Jitter + 2*b.Jitter*r()
	}
	if d >= float64(math.MaxInt64) {
		return time.Duration(math.MaxInt64) // never wraps to a negative (no) backoff
	}
	return time.Duration(d)
}

// MinTotal returns the shortest total time the first n retries can take
// (every jitter at its minimum): specs use it to bound request counts.
func (b Backoff) MinTotal(n int) time.Duration {
	nj := b
	nj.Jitter = 0
	var total time.Duration
	for i := 1; i <= n; i++ {
		total += time.Duration(float64(nj.Delay(i)) * (1 - b.Jitter))
	}
	return total
}

// MaxAttemptsIn returns the most requests a manager retrying with b can send
// in window: the first at once, then one per minimal backoff step.
func (b Backoff) MaxAttemptsIn(window time.Duration) int {
	n := 1
	for b.MinTotal(n) <= window {
		n++
	}
	return n
}
