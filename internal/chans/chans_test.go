package chans

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// A Counter's Wait returns once the count reaches n, with errDone when its
// channel closes first (nil if n were counted by then), and with the
// context's error.
func TestCounterWait(t *testing.T) {
	var c Counter
	errDone := errors.New("done")
	go func() {
		for range 3 {
			c.Add()
		}
	}()
	if err := c.Wait(t.Context(), 3, nil, errDone); err != nil || c.Load() != 3 {
		t.Fatalf("Wait(3) = %v at count %d, want nil at 3", err, c.Load())
	}
	done := make(chan struct{})
	close(done)
	if err := c.Wait(t.Context(), 3, done, errDone); err != nil {
		t.Fatalf("Wait(3) at count 3, done closed = %v, want nil", err)
	}
	if err := c.Wait(t.Context(), 4, done, errDone); err != errDone {
		t.Fatalf("Wait(4) at count 3, done closed = %v, want errDone", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := c.Wait(ctx, 4, nil, errDone); err != context.Canceled {
		t.Fatalf("Wait(4) with a cancelled context = %v, want context.Canceled", err)
	}
}

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
