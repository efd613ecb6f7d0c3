package group_test

import (
	"testing"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/internal/testrig"
	"github.com/kreactor/kreactor/reactor"
)

// Empty answers are not progress: an answer with nothing new 1 ms after the
// Fetch was sent (fetch.max.wait.ms = 0) paces the next Fetch to
// retry.backoff.ms after that send (Java's FetchRequestManager builds
// fetches at most every retry.backoff.ms while none is in flight); an empty
// answer that took longer than that (a long poll) is fetched again at once,
// and a Seek ends the pacing.
func TestEmptyAnswerPacesFetch(t *testing.T) {
	r, f := positioned(t)
	req := r.Request(f)
	sentAt := r.Now
	r.Elapse(ms)
	r.Answer(req, fetchAnswer(0, 0), nil)
	res := r.Result(r.Step(), f)
	if want := sentAt.Add(r.Back.Initial); res.Kind != reactor.KindRetryAt || !res.At.Equal(want) {
		t.Fatalf("fetch %s after an empty answer in 1ms, want RetryAt(send + retry.backoff.ms %s)", testrig.Describe(res, r.Now), r.Back.Initial)
	}
	r.Now = res.At
	req = r.Request(f) // paced, then due
	r.Elapse(2 * r.Back.Initial)
	r.Answer(req, fetchAnswer(0, 0), nil) // a long poll's empty answer
	r.Request(f)                          // at once

	r2, f2 := positioned(t)
	req = r2.Request(f2)
	r2.Answer(req, fetchAnswer(0, 0), nil)
	r2.Do("seek", func(*reactor.Tx) { _ = f2.Seek(tp0, 7) })
	if got := r2.Request(f2).Payload.(*managers.Call).Req; got == nil {
		t.Fatal("no Fetch after Seek")
	}
}

// With WaitPollAfterEmpty (the reactor consumer), a leader whose last
// answer was empty waits for the application's next Poll too, as Java
// fetches only on poll events: no Poll, no Fetch, past retry.backoff.ms
// as well; a Poll since the answer, or one waiting, lets it go.
func TestEmptyAnswerWaitsForPoll(t *testing.T) {
	r, f := positioned(t)
	f.WaitPollAfterEmpty()
	r.Answer(r.Request(f), fetchAnswer(0, 0), nil)
	r.Elapse(10 * r.Back.Initial)
	res := r.Result(r.Step(), f)
	if res.Kind != reactor.KindAwait || res.Inputs&reactor.InputApplication == 0 {
		t.Fatalf("fetch %s after an empty answer with no Poll, want Await(application)", testrig.Describe(res, r.Now))
	}
	r.Do("poll", func(*reactor.Tx) { f.Polled() })
	r.Answer(r.Request(f), fetchAnswer(0, 0), nil) // the Poll lets one go
	r.Elapse(r.Back.Initial)
	r.polling = true
	r.Request(f) // a Poll waiting lets the next go
}
