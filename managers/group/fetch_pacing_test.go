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
