package reactor_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kreactor/kreactor/reactor"
)

// A result awaiting InputPublication makes the decision wake at its own
// step's time (step again at once), with no deadline counted as past; a
// Tx tells the step its call belongs to: the one being computed for a
// poll, the next one for an applied observation.
func TestCorePublicationWakesAtOnce(t *testing.T) {
	var polled, applied uint64
	m := &fakeManager{name: "fetch", poll: func(tx *reactor.Tx) reactor.Result {
		polled = tx.Step
		return reactor.Await(reactor.InputPublication, "after the answer")
	}}
	c := newCore(t, 0, m)
	c.Apply(t0, reactor.Event("poll", func(tx *reactor.Tx) { applied = tx.Step }))
	st := c.Step(t0)
	d := st.Decision
	if !d.Wake.Equal(d.At) || !d.Awaiting.Has(reactor.InputPublication) || st.PastDeadline != 0 || st.RoundLimit {
		t.Fatalf("decision %s (wake %v at %v, %d past deadline), want a wake at once awaiting publication", d.Diagnose(), d.Wake, d.At, st.PastDeadline)
	}
	if applied != 1 || polled != 1 || d.Step != 1 {
		t.Fatalf("Tx.Step %d applying and %d polling for decision step %d, want 1 and 1", applied, polled, d.Step)
	}
	c.Advance()
	c.Step(t0.Add(time.Millisecond))
	if polled != 2 {
		t.Fatalf("Tx.Step %d polling in the second step, want 2", polled)
	}
}

// A step whose manager awaits its publication releases what its effects
// release, then the loop steps again at once with no observation (a timer
// wake, not spurious: it sends), and sends what the manager held back.
func TestLoopStepsAgainAfterPublication(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var (
			mu      sync.Mutex
			order   []string
			holding bool
		)
		note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
		tr := &asyncTransport{delay: time.Millisecond}
		m := &fakeManager{name: "fetch", poll: func(tx *reactor.Tx) reactor.Result {
			if holding {
				holding = false
				return reactor.Await(reactor.InputPublication, "after the answer")
			}
			return reactor.Idle("nothing")
		}}
		sent := false
		m2 := &fakeManager{name: "next", poll: func(tx *reactor.Tx) reactor.Result {
			if !holding && len(order) == 1 && !sent {
				sent = true
				note("sent")
				return reactor.Ready("next", &reactor.Request{Payload: 1, OnComplete: func(*reactor.Tx, any, error) {}})
			}
			return reactor.Idle("nothing")
		}}
		l := newLoop(t, tr, m, m2)
		l.Start()
		synctest.Wait()
		before := l.Stats()
		released := make(chan struct{})
		if err := l.Submit(context.Background(), "poll", func(tx *reactor.Tx) {
			holding = true
			tx.Effect(func() { note("released"); close(released) })
		}); err != nil {
			t.Fatal(err)
		}
		<-released
		synctest.Wait()
		time.Sleep(10 * time.Millisecond)
		synctest.Wait()
		l.Stop()
		tr.wg.Wait()
		st := l.Stats()
		mu.Lock()
		defer mu.Unlock()
		if len(order) != 2 || order[0] != "released" || order[1] != "sent" {
			t.Fatalf("order %v, want the release, then the send", order)
		}
		// The event's step, the step at once, the completion's step.
		if steps := st.Steps - before.Steps; steps != 3 {
			t.Fatalf("%d steps for one event and one request, want 3", steps)
		}
		if st.SpuriousWakeups != 0 || st.PastDeadline != 0 {
			t.Fatalf("stats %+v", st)
		}
	})
}
