package reactor_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kreactor/kreactor/reactor"
)

// The figures every driver counts in one place. A spurious wakeup
// is a loop wake after which nothing was applied, sent or run and the
// publication says what the previous one said, times aside: a manager that
// asks to be polled again 1 ms from now, every time, for nothing (the
// mutant that woke 2,591 times in 3 s and scored 0 under the old rule,
// which only counted a timer firing before its deadline) is counted on
// every wake.
func TestNeedlessWakesAreSpurious(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &fakeManager{name: "fetch", poll: func(tx *reactor.Tx) reactor.Result {
			return reactor.Await(reactor.InputResponse, "Fetch in flight").Until(tx.Now.Add(time.Millisecond))
		}}
		l := newLoop(t, &asyncTransport{}, m)
		l.Start()
		time.Sleep(3 * time.Second)
		synctest.Wait()
		l.Stop()
		st := l.Stats()
		t.Logf("3 s of 1 ms needless wakes: %d steps, %d timer wakes, %d spurious", st.Steps, st.TimerWakes, st.SpuriousWakeups)
		if st.TimerWakes < 2500 || st.SpuriousWakeups != st.TimerWakes {
			t.Fatalf("stats %+v: want about 3,000 timer wakes, every one spurious", st)
		}
	})
}

// A wake is not spurious when the step it starts changes something: it
// sends, runs an effect, or publishes a different decision (a reason or a
// result kind changed).
func TestUsefulWakesAreNotSpurious(t *testing.T) {
	for _, tc := range []struct {
		name string
		poll func(n *int) func(tx *reactor.Tx) reactor.Result
	}{
		{"each wake runs an effect", func(n *int) func(tx *reactor.Tx) reactor.Result {
			return func(tx *reactor.Tx) reactor.Result {
				*n++
				tx.Effect(func() {})
				return reactor.RetryAt(tx.Now.Add(100*time.Millisecond), "interval")
			}
		}},
		{"each wake changes the reason", func(n *int) func(tx *reactor.Tx) reactor.Result {
			return func(tx *reactor.Tx) reactor.Result {
				*n++
				reason := "even"
				if *n%2 == 1 {
					reason = "odd"
				}
				return reactor.RetryAt(tx.Now.Add(100*time.Millisecond), reason)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				n := 0
				l := newLoop(t, &asyncTransport{}, &fakeManager{name: "m", poll: tc.poll(&n)})
				l.Start()
				time.Sleep(time.Second)
				synctest.Wait()
				l.Stop()
				if st := l.Stats(); st.TimerWakes < 9 || st.SpuriousWakeups != 0 {
					t.Fatalf("stats %+v: want about 10 timer wakes, none spurious", st)
				}
			})
		})
	}
}

// Application wakeups count every release of a wait on the engine: a
// WaitFor woken by three publications that do not satisfy it, then by the
// one that does, counts four; a wait that needs no waiting counts none.
func TestAppWakeupsCountEveryRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLoop(t, &asyncTransport{}, idle("m"))
		l.Start()
		defer l.Stop()
		synctest.Wait()
		base := l.Current().Decision.Step
		if _, err := l.WaitFor(context.Background(), func(*reactor.Publication) bool { return true }); err != nil {
			t.Fatal(err)
		}
		if got := l.Stats().AppWakeups; got != 0 {
			t.Fatalf("app wakeups %d after a WaitFor that did not wait", got)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = l.WaitFor(context.Background(), func(p *reactor.Publication) bool { return p.Decision.Step >= base+4 })
		}()
		for range 4 {
			synctest.Wait()
			if err := l.Submit(context.Background(), "poke", func(*reactor.Tx) {}); err != nil {
				t.Fatal(err)
			}
		}
		<-done
		if got := l.Stats().AppWakeups; got != 4 {
			t.Fatalf("app wakeups %d for a WaitFor released by 4 publications, want 4", got)
		}
	})
}

// A RetryAt at or before now, or with no time at all, is a counted
// violation like Ready without a request, and never spun on.
func TestPastDeadlinesAreCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ms := []reactor.Manager[view]{
			&fakeManager{name: "now", poll: func(tx *reactor.Tx) reactor.Result { return reactor.RetryAt(tx.Now, "due now") }},
			&fakeManager{name: "zero", poll: func(*reactor.Tx) reactor.Result { return reactor.RetryAt(time.Time{}, "no time") }},
			&fakeManager{name: "await", poll: func(tx *reactor.Tx) reactor.Result {
				return reactor.Await(reactor.InputResponse, "late").Until(tx.Now.Add(-time.Millisecond))
			}},
		}
		l := newLoop(t, &asyncTransport{}, ms...)
		l.Start()
		time.Sleep(time.Second)
		synctest.Wait()
		l.Stop()
		if st := l.Stats(); st.Steps != 1 || st.PastDeadline != 3 {
			t.Fatalf("stats %+v: want 1 step and 3 past deadlines", st)
		}
	})
}
