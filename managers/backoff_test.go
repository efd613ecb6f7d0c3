package managers_test

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kreactor/kreactor/managers"
)

const ms = time.Millisecond

// The n-th retry waits Initial*2^(n-1) scaled by [0.8, 1.2], capped at Max,
// as Java's ExponentialBackoff (RequestState: multiplier 2, jitter 0.2).
func TestBackoffFollowsJavaShape(t *testing.T) {
	b := managers.NewBackoff(100*ms, time.Second)
	b.Rand = rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		attempt  int
		min, max time.Duration
	}{
		{1, 80 * ms, 120 * ms},
		{2, 160 * ms, 240 * ms},
		{3, 320 * ms, 480 * ms},
		{4, 640 * ms, 960 * ms},
		{5, 800 * ms, time.Second}, // the term reaches Max; jitter above it is capped
		{40, 800 * ms, time.Second},
	} {
		if got := b.MinDelay(tc.attempt); got != tc.min {
			t.Errorf("MinDelay(%d) = %s, want %s", tc.attempt, got, tc.min)
		}
		if got := b.MaxDelay(tc.attempt); got != tc.max {
			t.Errorf("MaxDelay(%d) = %s, want %s", tc.attempt, got, tc.max)
		}
		for range 200 {
			if d := b.Delay(tc.attempt); d < tc.min || d > tc.max {
				t.Fatalf("Delay(%d) = %s outside [%s, %s]", tc.attempt, d, tc.min, tc.max)
			}
		}
	}
	if d := b.Delay(0); d != 0 {
		t.Fatalf("Delay(0) = %s, want 0", d)
	}
}

// Java skips the jitter when the backoff cannot grow (max <= initial).
func TestBackoffWithoutRoomIsExact(t *testing.T) {
	for _, b := range []managers.Backoff{managers.NewBackoff(100*ms, 100*ms), managers.NewBackoff(200*ms, 100*ms)} {
		want := min(b.Initial, b.Max)
		for attempt := 1; attempt < 10; attempt++ {
			if d := b.Delay(attempt); d != want {
				t.Fatalf("%+v Delay(%d) = %s, want exactly %s", b, attempt, d, want)
			}
		}
	}
}

func TestBackoffJitterIsTheSharedConstant(t *testing.T) {
	if managers.NewBackoff(ms, time.Second).Jitter != managers.BackoffJitter || managers.BackoffJitter != 0.2 {
		t.Fatal("NewBackoff must use BackoffJitter (0.2, KIP-580)")
	}
	if d := managers.DefaultReconnectBackoff(); d.Initial != 50*ms || d.Max != time.Second {
		t.Fatalf("reconnect default %+v, want Java's 50 ms -> 1000 ms", d)
	}
}

// MinTotal and MaxAttemptsIn bound what a retrying manager can send: no
// sequence of jittered waits sends more.
func TestBackoffBoundsHold(t *testing.T) {
	b := managers.NewBackoff(100*ms, time.Second)
	b.Rand = rand.New(rand.NewPCG(3, 4))
	window := 3 * time.Second
	bound := b.MaxAttemptsIn(window)
	for range 500 {
		sent, at := 1, time.Duration(0)
		for n := 1; ; n++ {
			at += b.Delay(n)
			if at > window {
				break
			}
			sent++
		}
		if sent > bound {
			t.Fatalf("sent %d in %s, bound %d", sent, window, bound)
		}
	}
	if n := managers.NewBackoff(0, 0).MaxAttemptsIn(time.Second); n < 1<<30 {
		t.Fatalf("a zero backoff bounds nothing, got %d", n)
	}
}

func TestReconnectBackoffGrowsAndResets(t *testing.T) {
	r := managers.NewReconnect(managers.Backoff{Initial: 50 * ms, Max: time.Second})
	now := time.Unix(1000, 0)
	dial := errors.New("dial tcp: connection refused")
	var ends []time.Duration
	for range 6 {
		ends = append(ends, r.Failed("b:9092", now, dial).Sub(now))
	}
	want := []time.Duration{50 * ms, 100 * ms, 200 * ms, 400 * ms, 800 * ms, time.Second}
	for i := range want {
		if ends[i] != want[i] {
			t.Fatalf("failure %d waits %s, want %s (all: %v)", i+1, ends[i], want[i], ends)
		}
	}
	err := r.Wait("b:9092", now.Add(999*ms))
	var rb *managers.ReconnectBackoffError
	if !errors.As(err, &rb) || rb.Until != now.Add(time.Second) || !errors.Is(err, dial) {
		t.Fatalf("Wait in backoff = %v", err)
	}
	if !managers.IsConnectError(err) {
		t.Fatal("a reconnect backoff is a connection error")
	}
	if err := r.Wait("b:9092", now.Add(time.Second)); err != nil {
		t.Fatalf("Wait after the backoff = %v", err)
	}
	if err := r.Wait("other:9092", now); err != nil {
		t.Fatalf("an address that never failed waits: %v", err)
	}
	// A ready connection ends the backoff.
	r.Succeeded("b:9092")
	if r.Failures("b:9092") != 0 || r.Wait("b:9092", now) != nil {
		t.Fatal("a ready connection must reset the failures")
	}

	// A manager retrying after a reconnect backoff error never goes early.
	retry := managers.Retry{Backoff: managers.NewBackoff(10*ms, 20*ms)}
	if next := retry.Fail(now, &managers.ReconnectBackoffError{Addr: "b:9092", Until: now.Add(700 * ms)}); next != now.Add(700*ms) {
		t.Fatalf("retry after a reconnect backoff at %s, want its end", next.Sub(now))
	}
}

func TestOwedIsBoundedAndDeduplicated(t *testing.T) {
	var o managers.Owed
	e := errors.New("same")
	o.Report(e)
	o.Report(e)
	o.Report(nil)
	if o.Len() != 1 {
		t.Fatalf("%d owed after one error reported twice", o.Len())
	}
	for i := range 100 {
		o.Report(errors.New(string(rune('a' + i%26))))
	}
	if o.Len() != 64 || o.Dropped() != 37 {
		t.Fatalf("len %d dropped %d, want 64 and 37", o.Len(), o.Dropped())
	}
	if errs := o.Take(); len(errs) != 64 || o.Len() != 0 {
		t.Fatalf("Take returned %d, left %d", len(errs), o.Len())
	}
}
