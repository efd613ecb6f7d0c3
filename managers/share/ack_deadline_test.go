package share_test

// Every retry ends, share acknowledgements (contract point
// T-SHARE-ACK-RETRY): a commit's acknowledgements answered with a
// retriable error, at the partition or the response level, are sent again
// on the retry backoff schedule until the commit's deadline and then
// reported failed with REQUEST_TIMED_OUT and managers.ErrRetryDeadline, as
// kafka-clients 4.4.0's ShareConsumeRequestManager does for commitSync and
// commitAsync; a deadline already past lets them go once; the close's are
// not retried.

import (
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/internal/testrig"
	"github.com/kreactor/kreactor/managers/share"
	"github.com/kreactor/kreactor/reactor"
)

// ackDeadline is the commit's deadline in these tests (CommitSync's ctx,
// else default.api.timeout.ms).
const ackDeadline = 2 * time.Second

// ackAnswer answers a ShareAcknowledge for t/0 with code at scope.
func ackAnswer(scope managers.Scope, code int16) any {
	if scope == managers.ScopeResponse {
		return shareAckAnswer(code, 0)
	}
	return shareAckAnswer(0, code)
}

// retriableAckCases are the error table's retriable ShareAcknowledge cases
// at both scopes.
func retriableAckCases(t *testing.T) map[managers.Scope][]testrig.ErrorCase {
	out := map[managers.Scope][]testrig.ErrorCase{}
	for _, scope := range []managers.Scope{managers.ScopeResponse, managers.ScopeAcknowledge} {
		for _, c := range testrig.ErrorCases(t, kmsg.ShareAcknowledge, scope) {
			if c.Row.Class == managers.ClassRetriable {
				out[scope] = append(out[scope], c)
			}
		}
		if len(out[scope]) == 0 {
			t.Fatalf("the error table has no retriable ShareAcknowledge row at scope %s", scope)
		}
	}
	return out
}

// ackRun is one subtest: a rig not polling (nothing is fetched) whose
// application accepted 3 delivered records of t/0 and committed them, and
// the retriable case c at scope its answers carry.
type ackRun struct {
	*rig
	cs    *share.Consume
	scope managers.Scope
	c     testrig.ErrorCase
	start time.Time // when the commit was queued
	// results is the commit's outcome, set by its callback (an effect).
	results map[managers.TopicPartition]error
}

// answerRetriable answers req with c's error at the run's scope.
func (a *ackRun) answerRetriable(req *reactor.Request) {
	a.Complete(req, a.c, func(code int16) any { return ackAnswer(a.scope, code) })
}

// eachRetriable runs check in a subtest for each retriable case at each
// scope (only the first case of a scope unless all), on an ackRun whose
// commit has its deadline within after its start.
func eachRetriable(t *testing.T, all bool, within time.Duration, check func(*testing.T, *ackRun)) {
	for scope, cases := range retriableAckCases(t) {
		if !all {
			cases = cases[:1]
		}
		for _, c := range cases {
			t.Run(scope.String()+"/"+c.Name(), func(t *testing.T) {
				r, cs := consumeRig(t)
				recs := r.delivered(t, cs)
				r.notPolling = true
				acceptAll(t, r, cs, recs)
				a := &ackRun{rig: r, cs: cs, scope: scope, c: c, start: r.Now}
				r.Do("commit", func(tx *reactor.Tx) {
					cs.Commit(tx, a.start.Add(within), func(res map[managers.TopicPartition]error, _ uint64) { a.results = res })
				})
				check(t, a)
			})
		}
	}
}

// Every retriable error answering a commit's ShareAcknowledge, every time,
// is retried on the backoff schedule (retry.backoff.ms doubling to
// retry.backoff.max.ms) until the commit's deadline, not once more: the
// acknowledgements are then reported failed, once, with the deadline's
// error, and so is the commit.
func TestShareAcknowledgeRetriesEndAtCommitDeadline(t *testing.T) {
	eachRetriable(t, true, ackDeadline, func(t *testing.T, a *ackRun) {
		var sends []time.Duration
		for a.results == nil && a.Now.Sub(a.start) <= 2*ackDeadline {
			st := a.Step()
			sent := a.Sent(st, a.cs)
			for _, req := range sent {
				if api := testrig.API(req); api != kmsg.ShareAcknowledge {
					t.Fatalf("sent %s, want ShareAcknowledge only", kmsg.NameForKey(int16(api)))
				}
				sends = append(sends, a.Now.Sub(a.start))
				a.answerRetriable(req)
			}
			if a.results != nil || len(sent) > 0 {
				continue
			}
			if st.Decision.Wake.IsZero() {
				t.Fatalf("the commit waits for nothing:\n%s", st.Decision.Diagnose())
			}
			a.Now = st.Decision.Wake
		}
		// The schedule: sends at 0, +100 ms, +300 ms, +700 ms,
		// +1.5 s; the next would be at +2.5 s, past the deadline.
		var want []time.Duration
		for at, n := time.Duration(0), 1; at < ackDeadline; at, n = at+a.Back.Delay(n), n+1 {
			want = append(want, at)
		}
		if len(sends) != len(want) {
			t.Fatalf("ShareAcknowledge sent at %v, want at %v (the retry backoff schedule until %s)", sends, want, ackDeadline)
		}
		for i := range want {
			if sends[i] != want[i] {
				t.Fatalf("ShareAcknowledge sent at %v, want at %v", sends, want)
			}
		}
		if took := a.Now.Sub(a.start); took != ackDeadline {
			t.Fatalf("reported after %s, want at the deadline %s", took, ackDeadline)
		}
		for _, want := range []error{kerr.RequestTimedOut, managers.ErrRetryDeadline, a.c.Err} {
			a.expectOutcome(t, want)
			if !errors.Is(a.results[tp0], want) {
				t.Fatalf("commit result %v, want it to wrap %v", a.results, want)
			}
		}
		if a.cs.PendingCommits() != 0 {
			t.Fatalf("%d commits pending after the deadline", a.cs.PendingCommits())
		}
	})
}

// A retriable answer, then an accepting one: the acknowledgements are
// reported accepted, once.
func TestShareAcknowledgeRetrySucceeds(t *testing.T) {
	eachRetriable(t, false, ackDeadline, func(t *testing.T, a *ackRun) {
		a.answerRetriable(a.Request(a.cs))
		st := a.Step()
		a.ExpectRetry(st, a.cs, a.c.Row.Class)
		a.Elapse(a.Back.Delay(1))
		a.Answer(a.Request(a.cs), shareAckAnswer(0, 0), nil)
		a.Step()
		if len(a.outcomes) != 1 || a.outcomes[0].Err != nil || len(a.outcomes[0].Offsets) != 3 {
			t.Fatalf("outcomes %+v, want t/0's 3 offsets accepted once", a.outcomes)
		}
		if err, ok := a.results[tp0]; !ok || err != nil {
			t.Fatalf("commit result %v, want t/0 accepted", a.results)
		}
	})
}

// A commit whose deadline has already passed (commitSync(Duration.ZERO))
// still sends its acknowledgements once; a retriable answer then reports
// them failed at once with the deadline's error.
func TestShareAcknowledgePastDeadlineGoesOnce(t *testing.T) {
	eachRetriable(t, false, 0, func(t *testing.T, a *ackRun) {
		a.answerRetriable(a.Request(a.cs))
		st := a.Step()
		if reqs := a.Sent(st, a.cs); len(reqs) != 0 {
			t.Fatalf("sent %d requests after the answer past the deadline, want none", len(reqs))
		}
		a.expectOutcome(t, managers.ErrRetryDeadline)
		if !errors.Is(a.results[tp0], kerr.RequestTimedOut) {
			t.Fatalf("commit result %v, want REQUEST_TIMED_OUT", a.results)
		}
	})
}

// The close's acknowledgements (the session's closing ShareAcknowledge,
// epoch -1) are not retried: a retriable answer reports them failed with
// it, as Java's close request does.
func TestShareAcknowledgeOnCloseNotRetried(t *testing.T) {
	eachRetriable(t, false, ackDeadline, func(t *testing.T, a *ackRun) {
		a.Do("close", func(*reactor.Tx) { a.cs.Close() })
		req := a.Request(a.cs)
		if epochOf(req) != -1 {
			t.Fatalf("closing request with epoch %d, want -1", epochOf(req))
		}
		a.answerRetriable(req)
		a.Step()
		a.expectOutcome(t, a.c.Err)
		if errors.Is(a.outcomes[0].Err, managers.ErrRetryDeadline) || !errors.Is(a.results[tp0], a.c.Err) {
			t.Fatalf("outcome %v, commit result %v: want %v, not retried", a.outcomes[0].Err, a.results, a.c.Err)
		}
	})
}
