package group_test

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

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

// A partition backing off whose leader has a Fetch in flight (for another
// partition) awaits that Fetch's answer, with no wake at its backoff's end:
// it cannot go before the answer, and the answer makes the loop step. A
// wake at the backoff's end changed nothing (a spurious wakeup on
// fault-black-hole-coordinator under load).
func TestBackoffBehindFetchInFlight(t *testing.T) {
	tp1 := managers.TopicPartition{Topic: topic, Partition: 1}
	r := newRig(t)
	r.assigned = []managers.TopicPartition{tp0, tp1}
	f := newFetch(r)
	r.start(f)
	r.Step()
	for _, need := range f.NeedingPosition() {
		r.Do("position", func(*reactor.Tx) { f.SetPosition(need.TP, managers.Position{Offset: 42, LeaderEpoch: -1}, need.Gen) })
	}
	req := r.Request(f) // t/0 and t/1, one leader
	r.Elapse(r.Back.Initial)
	// t/0 fails (it backs off), t/1 answers empty after a long poll (it
	// goes again at once).
	resp := fetchAnswer(0, kerr.UnknownServerError.Code)
	p1 := kmsg.NewFetchResponseTopicPartition()
	p1.Partition, p1.HighWatermark = 1, 42
	resp.Topics[0].Partitions = append(resp.Topics[0].Partitions, p1)
	r.Answer(req, resp, nil)
	st := r.Step()
	if sent := r.Sent(st, f); len(sent) != 1 {
		t.Fatalf("fetch sent %d requests after the answer, want 1 (t/1 again at once)", len(sent))
	}
	res := r.Result(r.Step(), f)
	if res.Kind != reactor.KindAwait || res.Inputs&reactor.InputResponse == 0 || !res.At.IsZero() {
		t.Fatalf("fetch %s with t/0 backing off behind a Fetch in flight, want Await(response) with no time", testrig.Describe(res, r.Now))
	}
}
