package reactor_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/kreactor/kreactor/reactor"
)

// heldTransport keeps every request's done for the test to call.
type heldTransport struct{ done chan func(any, error) }

func (h *heldTransport) Send(_ *reactor.Request, done func(any, error)) { h.done <- done }

// answerManager sends n requests at its first poll and is Idle, with the
// number of answers applied in its reason, once they are answered.
func answerManager(n int, poll func()) (*fakeManager, *int) {
	sent, answered := false, 0
	return &fakeManager{name: "fetch", poll: func(tx *reactor.Tx) reactor.Result {
		if poll != nil {
			poll()
		}
		if !sent {
			sent = true
			reqs := make([]*reactor.Request, n)
			for i := range reqs {
				reqs[i] = &reactor.Request{OnComplete: func(*reactor.Tx, any, error) { answered++ }}
			}
			return reactor.Ready("fetch", reqs...)
		}
		if answered < n {
			return reactor.Await(reactor.InputResponse, "in flight")
		}
		return reactor.Idle("answered")
	}}, &answered
}

// A completion that arrives while a step runs is not lost and costs one
// step: the next step applies it, and nothing else steps (no spurious
// wakeup).
func TestCompletionDuringStepAppliedNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := &heldTransport{done: make(chan func(any, error), 2)}
		inPoll, release := make(chan struct{}), make(chan struct{})
		var answered *int
		stopped := false
		m, answered := answerManager(2, func() {
			if answered != nil && *answered == 1 && !stopped { // the first completion's step
				stopped = true
				inPoll <- struct{}{}
				<-release
			}
		})
		l := newLoop(t, tr, m)
		l.Start()
		first, second := <-tr.done, <-tr.done
		synctest.Wait()
		first("response", nil) // the step applying it stops in Poll
		<-inPoll
		second("response", nil) // queued while that step runs
		if *answered != 1 {
			t.Fatalf("%d answers applied while the first completion's step runs, want 1", *answered)
		}
		close(release)
		synctest.Wait()
		if *answered != 2 || l.Current().Decision.Results[0].Reason != "answered" {
			t.Fatalf("%d answers applied, published %s; want both applied", *answered, l.Current().Decision.Diagnose())
		}
		l.Stop()
		if st := l.Stats(); st.Steps != 3 || st.SpuriousWakeups != 0 {
			t.Fatalf("stats %+v, want 3 steps (the first, one per completion) and no spurious wakeup", st)
		}
	})
}

// The wake set by the step that applies a completion is kept: the loop
// steps at that wake, once (the timer set again for an earlier wake).
func TestWakeSetByCompletionStep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := &heldTransport{done: make(chan func(any, error), 1)}
		var retryAt time.Time
		answered := false
		m := &fakeManager{name: "heartbeat", poll: func(tx *reactor.Tx) reactor.Result {
			switch {
			case retryAt.IsZero():
				retryAt = tx.Now.Add(time.Hour) // nothing happens for an hour unless answered
				return reactor.Ready("heartbeat", &reactor.Request{OnComplete: func(tx *reactor.Tx, _ any, _ error) {
					answered = true
					retryAt = tx.Now.Add(100 * time.Millisecond)
				}})
			case tx.Now.Before(retryAt):
				return reactor.RetryAt(retryAt, "interval")
			}
			return reactor.Idle("interval passed")
		}}
		l := newLoop(t, tr, m)
		l.Start()
		done := <-tr.done
		synctest.Wait()
		start := time.Now()
		done("response", nil) // moves the wake from start+1h to start+100ms
		synctest.Wait()
		if !answered {
			t.Fatal("the completion was not applied")
		}
		time.Sleep(200 * time.Millisecond)
		synctest.Wait()
		d := l.Current().Decision
		if d.Results[0].Reason != "interval passed" || d.At.Sub(start) != 100*time.Millisecond {
			t.Fatalf("published %s at +%s, want the step at +100ms", d.Diagnose(), d.At.Sub(start))
		}
		l.Stop()
		if st := l.Stats(); st.Steps != 3 || st.TimerWakes != 1 || st.SpuriousWakeups != 0 {
			t.Fatalf("stats %+v, want 3 steps (one timer wake) and no spurious wakeup", st)
		}
	})
}
