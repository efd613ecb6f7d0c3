package model

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kreactor/kreactor/reactor"
)

type noView struct{}

// counter is a manager whose state an event changes; it answers the
// event's caller with an effect and keeps a deadline, so the loop takes
// inbox and timer wakes.
type counter struct{ n atomic.Int64 }

func (c *counter) Name() string { return "counter" }
func (c *counter) Poll(tx *reactor.Tx, _ noView) reactor.Result {
	return reactor.RetryAt(tx.Now.Add(time.Millisecond), "tick")
}

type nopTransport struct{}

func (nopTransport) Send(*reactor.Request, func(any, error)) {}

// RunWorkload drives a reactor.Loop with waiters (WaitFor on the
// snapshot), events whose effects answer their callers, and timer wakes,
// then stops it, and returns its events and decisions.
func runWorkload(t *testing.T, waiters, events int) (reactor.EventLog, []*reactor.Decision) {
	t.Helper()
	c := &counter{}
	l, err := reactor.New(reactor.Config[noView]{
		Managers:      []reactor.Manager[noView]{c},
		View:          func(time.Time) noView { return noView{} },
		Snapshot:      func(*reactor.Decision) any { return c.n.Load() },
		Transport:     nopTransport{},
		TraceCapacity: 4096,
	})
	if err != nil {
		t.Fatal(err)
	}
	l.Start()
	var wg sync.WaitGroup
	for w := range waiters {
		wg.Go(func() {
			for k := 1; k <= events; k += 3 + w {
				target := int64(k)
				_, err := l.WaitFor(context.Background(), func(p *reactor.Publication) bool {
					n, _ := p.Snapshot.(int64)
					return n >= target
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for range events {
		done := make(chan struct{})
		if err := l.Submit(context.Background(), "inc", func(tx *reactor.Tx) {
			c.n.Add(1)
			tx.Effect(func() { close(done) })
		}); err != nil {
			t.Fatal(err)
		}
		<-done
	}
	wg.Wait()
	l.Stop()
	return l.Events(), l.Trace()
}

// A real loop's events and decisions pass the model's rules.
func TestCheckTraceOfALoop(t *testing.T) {
	log, trace := runWorkload(t, 3, 300)
	n, err := CheckEvents(log)
	if err != nil {
		t.Fatalf("%v (of %d events)", err, len(log.Events))
	}
	m, err := CheckDecisions(trace)
	if err != nil {
		t.Fatal(err)
	}
	var kinds [8]int
	for _, ev := range log.Events {
		kinds[ev.Kind]++
	}
	if kinds[reactor.EventEffects] == 0 || kinds[reactor.EventBlock] == 0 || kinds[reactor.EventWake] == 0 {
		t.Fatalf("the workload recorded no effects, blocks or wakes: %v", kinds)
	}
	t.Logf("%d events checked (dropped %d), %d decisions checked; kinds %v", n, log.Dropped, m, kinds)
}

// Each rule rejects the step that breaks it.
func TestCheckEventsRejects(t *testing.T) {
	pub := func(step, v uint64) reactor.TraceEvent {
		return reactor.TraceEvent{Kind: reactor.EventPublish, Step: step, Version: v}
	}
	ev := func(k reactor.EventKind, w, step uint64) reactor.TraceEvent {
		return reactor.TraceEvent{Kind: k, Waiter: w, Step: step}
	}
	cases := []struct {
		name string
		evs  []reactor.TraceEvent
		rule string
	}{
		{"effects before their publication", []reactor.TraceEvent{pub(0, 0), {Kind: reactor.EventEffects, Step: 1, N: 1}, pub(1, 1)}, "invariant 4"},
		{"counted effects that never ran after publication", []reactor.TraceEvent{pub(0, 0), {Kind: reactor.EventPublish, Step: 1, Version: 1, N: 2}, pub(2, 1)}, "did not run"},
		{"check before take", []reactor.TraceEvent{pub(0, 0), {Kind: reactor.EventCheck, Waiter: 1}, ev(reactor.EventTake, 1, 0)}, "invariant 5"},
		{"check of another publication", []reactor.TraceEvent{pub(0, 0), ev(reactor.EventTake, 1, 0), pub(1, 1), {Kind: reactor.EventCheck, Waiter: 1, Step: 1}}, "invariant 5"},
		{"block on a newer channel", []reactor.TraceEvent{pub(0, 0), ev(reactor.EventTake, 1, 0), ev(reactor.EventCheck, 1, 0), ev(reactor.EventBlock, 1, 1)}, "invariant 5"},
		{"wake without a publication", []reactor.TraceEvent{pub(0, 0), ev(reactor.EventTake, 1, 0), ev(reactor.EventCheck, 1, 0), ev(reactor.EventBlock, 1, 0), ev(reactor.EventWake, 1, 0)}, "before a newer publication"},
		{"step skipped", []reactor.TraceEvent{pub(0, 0), pub(2, 1)}, "in order"},
		{"after closed", []reactor.TraceEvent{pub(0, 0), {Kind: reactor.EventPublish, Step: 1, Closed: true}, pub(2, 0)}, "closed"},
	}
	for _, c := range cases {
		_, err := CheckEvents(reactor.EventLog{Events: c.evs})
		var v *Violation
		if !errors.As(err, &v) || !strings.Contains(v.Rule, c.rule) {
			t.Errorf("%s: got %v, want a violation mentioning %q", c.name, err, c.rule)
		}
	}
}

func TestCheckDecisionsRejects(t *testing.T) {
	at := time.Unix(100, 0)
	cases := []struct {
		name string
		ds   []*reactor.Decision
		rule string
	}{
		{"spurious timer wake", []*reactor.Decision{{Step: 1, At: at}, {Step: 2, At: at.Add(time.Second), Woke: "timer"}}, "no deadline"},
		{"early timer wake", []*reactor.Decision{{Step: 1, At: at, Wake: at.Add(time.Second)}, {Step: 2, At: at.Add(time.Millisecond), Woke: "timer"}}, "before the previous"},
		{"empty inbox wake", []*reactor.Decision{{Step: 1, At: at}, {Step: 2, At: at, Woke: "inbox"}}, "inbox wake"},
		{"after closed", []*reactor.Decision{{Step: 1, At: at, Closed: true}, {Step: 2, At: at}}, "closed"},
	}
	for _, c := range cases {
		_, err := CheckDecisions(c.ds)
		var v *Violation
		if !errors.As(err, &v) || !strings.Contains(v.Rule, c.rule) {
			t.Errorf("%s: got %v, want a violation mentioning %q", c.name, err, c.rule)
		}
	}
}
