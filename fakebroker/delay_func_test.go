package fakebroker

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestDelayKeyFuncDelaysEachRequestByItsOwnDelay(t *testing.T) {
	b, cl, ctx := brokerClient(t, Config{}, "delay-func-test")
	// The first request waits long, the second not at all, the third is
	// past the count and is not delayed (nor is d called for it).
	delays := []time.Duration{300 * time.Millisecond, -time.Hour}
	var calls atomic.Int32
	h, err := b.DelayKeyFunc(kmsg.FindCoordinator, func() time.Duration {
		return delays[calls.Add(1)-1]
	}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []time.Duration{300 * time.Millisecond, 0, 0} {
		start := time.Now()
		if code, _, err := findCoordinator(ctx, cl, 1, "g"); err != nil || code != 0 {
			t.Fatalf("request %d: code %d err %v", i, code, err)
		}
		el := time.Since(start)
		if el < want {
			t.Fatalf("request %d answered after %v, want >= %v", i, el, want)
		}
		if want == 0 && el >= delays[0] {
			t.Fatalf("request %d took %v: a negative delay must be treated as 0, and requests past the count not delayed", i, el)
		}
	}
	if got := calls.Load(); got != 2 {
		t.Fatalf("d called %d times, want 2 (once per delayed request)", got)
	}
	if hits := h.Hits(); hits != 2 {
		t.Fatalf("Hits = %d, want 2", hits)
	}
}

func TestDelayKeyFuncRejectsBadArguments(t *testing.T) {
	b := startBroker(t, Config{})
	var ae *ArgError
	if _, err := b.DelayKeyFunc(kmsg.FindCoordinator, nil, 1); !errors.As(err, &ae) || ae.Arg != "d" {
		t.Fatalf("nil d: err = %v, want *ArgError on d", err)
	}
	if _, err := b.DelayKeyFunc(kmsg.Key(-5), func() time.Duration { return 0 }, 1); !errors.As(err, &ae) || ae.Arg != "key" {
		t.Fatalf("bad key: err = %v, want *ArgError on key", err)
	}
	if _, err := b.DelayKeyFunc(kmsg.FindCoordinator, func() time.Duration { return 0 }, -2); !errors.As(err, &ae) || ae.Arg != "count" {
		t.Fatalf("count -2: err = %v, want *ArgError on count", err)
	}
	b.Close()
	if _, err := b.DelayKeyFunc(kmsg.FindCoordinator, func() time.Duration { return 0 }, 1); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: err = %v, want ErrClosed", err)
	}
}
