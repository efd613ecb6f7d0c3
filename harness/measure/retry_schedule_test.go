package measure

import (
	"math"
	"testing"
	"time"
)

// The schedule is the documented one: 100 ms doubling to 1 s, each wait
// 20% shorter at best; the most attempts in 3 s are the first plus one per
// shortest wait (80, 160, 320, 640, 800, 800 ms: 2.8 s, so 7); a schedule
// that never doubles (a constant 100 ms) allows 38.
func TestRetrySchedule(t *testing.T) {
	s := RetrySchedule{Initial: 100 * time.Millisecond, Max: time.Second}
	for n, want := range map[int]time.Duration{1: 80 * time.Millisecond, 2: 160 * time.Millisecond, 4: 640 * time.Millisecond, 5: 800 * time.Millisecond, 9: 800 * time.Millisecond, 0: 0} {
		if got := s.MinWait(n); got != want {
			t.Errorf("MinWait(%d) = %s, want %s", n, got, want)
		}
	}
	if got := s.MaxAttemptsIn(3 * time.Second); got != 7 {
		t.Errorf("MaxAttemptsIn(3s) = %d, want 7", got)
	}
	if got := s.MaxWait(); got != 1200*time.Millisecond {
		t.Errorf("MaxWait = %s", got)
	}
	flat := RetrySchedule{Initial: 100 * time.Millisecond, Max: 100 * time.Millisecond}
	if got := flat.MaxAttemptsIn(3 * time.Second); got != 38 {
		t.Errorf("constant 100 ms: MaxAttemptsIn(3s) = %d, want 38", got)
	}
	if got := (RetrySchedule{Max: time.Second}).MaxAttemptsIn(time.Second); got != math.MaxInt {
		t.Errorf("zero backoff bounds %d attempts, want none", got)
	}
	if s.String() != "retry.backoff.ms 100ms x2 to retry.backoff.max.ms 1s +-20%" {
		t.Errorf("String = %q", s.String())
	}
}
