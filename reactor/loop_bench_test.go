package reactor_test

import (
	"context"
	"testing"
	"time"

	"github.com/kreactor/kreactor/reactor"
)

// BenchmarkStep measures one loop step driven by an application event: apply
// it, poll 8 managers (each Await), publish the decision and run the effect
// that releases the caller. Reported per event: ns, allocations, bytes.
func BenchmarkStep(b *testing.B) {
	var ms []reactor.Manager[view]
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		ms = append(ms, &fakeManager{name: name, poll: func(*reactor.Tx) reactor.Result {
			return reactor.Await(reactor.InputResponse|reactor.InputCoordinator, "waiting")
		}})
	}
	l, err := reactor.New(reactor.Config[view]{Managers: ms, View: func(now time.Time) view { return view{now} }, Transport: &asyncTransport{}})
	if err != nil {
		b.Fatal(err)
	}
	l.Start()
	defer l.Stop()
	done := make(chan struct{}, 1)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := l.Submit(ctx, "event", func(tx *reactor.Tx) { tx.Effect(func() { done <- struct{}{} }) }); err != nil {
			b.Fatal(err)
		}
		<-done
	}
	b.StopTimer()
	st := l.Stats()
	b.ReportMetric(float64(st.Steps)/float64(b.N), "steps/op")
}

// BenchmarkWaitFor measures an application wait released by a publication
// (invariant 5's path): Submit, then WaitFor the version that includes it.
func BenchmarkWaitFor(b *testing.B) {
	l, err := reactor.New(reactor.Config[view]{View: func(now time.Time) view { return view{now} }, Transport: &asyncTransport{}})
	if err != nil {
		b.Fatal(err)
	}
	l.Start()
	defer l.Stop()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		// The loop is idle between iterations, so the current publication
		// has the current state version; the event makes it one more.
		want := l.Current().Decision.Version + 1
		if err := l.Submit(ctx, "event", func(*reactor.Tx) {}); err != nil {
			b.Fatal(err)
		}
		if _, err := l.WaitFor(ctx, func(p *reactor.Publication) bool { return p.Decision.Version >= want }); err != nil {
			b.Fatal(err)
		}
	}
}
