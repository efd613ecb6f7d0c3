package reactor_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/kreactor/kreactor/reactor"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type view struct{ now time.Time }

// fakeManager is scripted by a function of its own state.
type fakeManager struct {
	name string
	poll func(tx *reactor.Tx) reactor.Result
}

func (f *fakeManager) Name() string                               { return f.name }
func (f *fakeManager) Poll(tx *reactor.Tx, _ view) reactor.Result { return f.poll(tx) }

// asyncTransport completes every request after delay on its own goroutine.
type asyncTransport struct {
	delay time.Duration
	wg    sync.WaitGroup
}

func (a *asyncTransport) Send(req *reactor.Request, done func(any, error)) {
	a.wg.Go(func() {
		time.Sleep(a.delay)
		done(req.Payload, nil)
	})
}

func newLoop(t *testing.T, tr reactor.Transport, ms ...reactor.Manager[view]) *reactor.Loop[view] {
	t.Helper()
	l, err := reactor.New(reactor.Config[view]{
		Managers:  ms,
		View:      func(now time.Time) view { return view{now} },
		Transport: tr,
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// A manager that backs off every 100 ms for 1 s of virtual time makes the
// loop take one step per backoff, with no spurious wakeups.
func TestRetryAtStepsOncePerBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := &asyncTransport{delay: time.Millisecond}
		var next time.Time
		inFlight := false
		sent := 0
		m := &fakeManager{name: "discovery", poll: func(tx *reactor.Tx) reactor.Result {
			switch {
			case inFlight:
				return reactor.Await(reactor.InputResponse, "in flight")
			case tx.Now.Before(next):
				return reactor.RetryAt(next, "backoff")
			}
			inFlight = true
			sent++
			return reactor.Ready("find", &reactor.Request{Payload: sent, OnComplete: func(tx *reactor.Tx, _ any, _ error) {
				inFlight = false
				next = tx.Now.Add(100 * time.Millisecond)
			}})
		}}
		l := newLoop(t, tr, m)
		l.Start()
		time.Sleep(time.Second)
		synctest.Wait()
		l.Stop()
		tr.wg.Wait()
		st := l.Stats()
		// 1 s / (100 ms backoff + 1 ms response) = 9.9 sends.
		if sent < 9 || sent > 11 {
			t.Fatalf("sent %d requests in 1 s with a 100 ms backoff, want 9..11", sent)
		}
		// each send: one step for the timer, one for the completion.
		if st.Steps > uint64(2*sent+2) {
			t.Fatalf("took %d steps for %d requests, want at most %d", st.Steps, sent, 2*sent+2)
		}
		if st.SpuriousWakeups != 0 || st.ReadyWithoutRequest != 0 || st.PastDeadline != 0 {
			t.Fatalf("stats %+v", st)
		}
	})
}

// A manager that awaits an input the loop never gets makes the loop block:
// one step in 10 s of virtual time.
func TestAwaitBlocksUntilInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &fakeManager{name: "commit", poll: func(*reactor.Tx) reactor.Result {
			return reactor.Await(reactor.InputCoordinator, "coordinator unknown")
		}}
		l := newLoop(t, &asyncTransport{}, m)
		l.Start()
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if got := l.Stats().Steps; got != 1 {
			t.Fatalf("steps = %d in 10 s of Await, want 1", got)
		}
		d := l.Current().Decision
		if d.Awaiting != reactor.InputCoordinator || d.Wake != (time.Time{}) {
			t.Fatalf("decision %s", d.Diagnose())
		}
		// An application event wakes it exactly once.
		if err := l.Submit(context.Background(), "poke", func(*reactor.Tx) {}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := l.Stats().Steps; got != 2 {
			t.Fatalf("steps = %d after one event, want 2", got)
		}
		l.Stop()
	})
}

// Ready without a request is counted and not spun on.
func TestReadyWithoutRequestIsCountedNotSpun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &fakeManager{name: "bad", poll: func(*reactor.Tx) reactor.Result { return reactor.Ready("nothing") }}
		l := newLoop(t, &asyncTransport{}, m)
		l.Start()
		time.Sleep(time.Second)
		synctest.Wait()
		l.Stop()
		st := l.Stats()
		if st.Steps != 1 || st.ReadyWithoutRequest != 1 {
			t.Fatalf("stats %+v, want 1 step and 1 violation", st)
		}
	})
}

// An effect runs only after the decision of its step is published, and a
// waiter that checks the publication never misses it.
func TestEffectsRunAfterPublication(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var l *reactor.Loop[view]
		var pending bool
		m := &fakeManager{name: "commit", poll: func(*reactor.Tx) reactor.Result {
			if pending {
				return reactor.Await(reactor.InputApplication, "pending")
			}
			return reactor.Idle("nothing")
		}}
		l = newLoop(t, &asyncTransport{}, m)
		l.Start()
		for i := 0; i < 100; i++ {
			published := make(chan uint64, 1)
			if err := l.Submit(context.Background(), "commit", func(tx *reactor.Tx) {
				pending = !pending
				v := tx.Version
				tx.Effect(func() { published <- l.Current().Decision.Version; _ = v })
			}); err != nil {
				t.Fatal(err)
			}
			got := <-published
			if got < uint64(i+1) {
				t.Fatalf("effect ran when published version was %d, want >= %d", got, i+1)
			}
		}
		l.Stop()
	})
}

func TestWaitForSeesStop(t *testing.T) {
	m := &fakeManager{name: "m", poll: func(tx *reactor.Tx) reactor.Result { return reactor.Idle("") }}
	l := newLoop(t, &asyncTransport{}, m)
	l.Start()
	go l.Stop()
	_, err := l.WaitFor(context.Background(), func(*reactor.Publication) bool { return false })
	if !errors.Is(err, reactor.ErrStopped) {
		t.Fatalf("WaitFor err = %v, want ErrStopped", err)
	}
	if err := l.Submit(context.Background(), "late", func(*reactor.Tx) {}); !errors.Is(err, reactor.ErrStopped) {
		t.Fatalf("Submit after stop = %v, want ErrStopped", err)
	}
}

func TestConfigErrorsNameTheField(t *testing.T) {
	_, err := reactor.New(reactor.Config[view]{View: func(time.Time) view { return view{} }})
	var ce *reactor.ConfigError
	if !errors.As(err, &ce) || ce.Field != "Transport" {
		t.Fatalf("err = %v, want ConfigError on Transport", err)
	}
}
