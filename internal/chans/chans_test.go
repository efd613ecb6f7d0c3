package chans

import (
	"testing"
	"testing/synctest"
	"time"
)

// Every ticks every d from d on, stops when f returns false, and stops
// when its channel closes.
func TestEvery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var at []time.Duration
		Every(time.Second, nil, func(now time.Time) bool {
			at = append(at, now.Sub(start))
			return len(at) < 3
		})
		if want := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}; len(at) != 3 || at[0] != want[0] || at[2] != want[2] {
			t.Fatalf("ticks at %v, want %v", at, want)
		}

		stop := make(chan struct{})
		go func() {
			time.Sleep(2500 * time.Millisecond)
			close(stop)
		}()
		n := 0
		Every(time.Second, stop, func(time.Time) bool { n++; return true })
		if n != 2 {
			t.Fatalf("%d ticks before the channel closed at 2.5 s, want 2", n)
		}
	})
}
