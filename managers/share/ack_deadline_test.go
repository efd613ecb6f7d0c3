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

// commitBy commits the flushed acknowledgements with deadline (an
// application event); results receives the commit's outcome, an effect.
func commitBy(r *rig, c *share.Consume, deadline time.Time, results *map[managers.TopicPartition]error) {
	r.Do("commit", func(tx *reactor.Tx) {
		c.Commit(tx, deadline, func(res map[managers.TopicPartition]error, _ uint64) { *results = res })
	})
}

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

// acknowledged is a rig not polling (nothing is fetched) whose application
// accepted 3 delivered records of t/0.
func acknowledged(t *testing.T) (*rig, *share.Consume) {
	r, cs := consumeRig(t)
	recs := r.delivered(t, cs)
	r.notPolling = true
	acceptAll(t, r, cs, recs)
	return r, cs
}

// Every retriable error answering a commit's ShareAcknowledge, every time,
// is retried on the backoff schedule (retry.backoff.ms doubling to
// retry.backoff.max.ms) until the commit's deadline, not once more: the
// acknowledgements are then reported failed, once, with the deadline's
// error, and so is the commit.
func TestShareAcknowledgeRetriesEndAtCommitDeadline(t *testing.T) {
	for scope, cases := range retriableAckCases(t) {
		for _, c := range cases {
			t.Run(scope.String()+"/"+c.Name(), func(t *testing.T) {
				r, cs := acknowledged(t)
				start := r.Now
				var results map[managers.TopicPartition]error
				commitBy(r, cs, start.Add(ackDeadline), &results)
				var sends []time.Duration
				for results == nil && r.Now.Sub(start) <= 2*ackDeadline {
					st := r.Step()
					sent := r.Sent(st, cs)
					for _, req := range sent {
						if api := testrig.API(req); api != kmsg.ShareAcknowledge {
							t.Fatalf("sent %s, want ShareAcknowledge only", kmsg.NameForKey(int16(api)))
						}
						sends = append(sends, r.Now.Sub(start))
						r.Complete(req, c, func(code int16) any { return ackAnswer(scope, code) })
					}
					if results != nil || len(sent) > 0 {
						continue
					}
					if st.Decision.Wake.IsZero() {
						t.Fatalf("the commit waits for nothing:\n%s", st.Decision.Diagnose())
					}
					r.Now = st.Decision.Wake
				}
				// The schedule: sends at 0, +100 ms, +300 ms, +700 ms,
				// +1.5 s; the next would be at +2.5 s, past the deadline.
				var want []time.Duration
				for at, n := time.Duration(0), 1; at < ackDeadline; at, n = at+r.Back.Delay(n), n+1 {
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
				if took := r.Now.Sub(start); took != ackDeadline {
					t.Fatalf("reported after %s, want at the deadline %s", took, ackDeadline)
				}
				for _, want := range []error{kerr.RequestTimedOut, managers.ErrRetryDeadline, c.Err} {
					r.expectOutcome(t, want)
					if !errors.Is(results[tp0], want) {
						t.Fatalf("commit result %v, want it to wrap %v", results, want)
					}
				}
				if cs.PendingCommits() != 0 {
					t.Fatalf("%d commits pending after the deadline", cs.PendingCommits())
				}
			})
		}
	}
}

// A retriable answer, then an accepting one: the acknowledgements are
// reported accepted, once.
func TestShareAcknowledgeRetrySucceeds(t *testing.T) {
	for scope, cases := range retriableAckCases(t) {
		c := cases[0]
		t.Run(scope.String()+"/"+c.Name(), func(t *testing.T) {
			r, cs := acknowledged(t)
			var results map[managers.TopicPartition]error
			commitBy(r, cs, r.Now.Add(ackDeadline), &results)
			r.Complete(r.Request(cs), c, func(code int16) any { return ackAnswer(scope, code) })
			st := r.Step()
			r.ExpectRetry(st, cs, c.Row.Class)
			r.Elapse(r.Back.Delay(1))
			r.Answer(r.Request(cs), shareAckAnswer(0, 0), nil)
			r.Step()
			if len(r.outcomes) != 1 || r.outcomes[0].Err != nil || len(r.outcomes[0].Offsets) != 3 {
				t.Fatalf("outcomes %+v, want t/0's 3 offsets accepted once", r.outcomes)
			}
			if err, ok := results[tp0]; !ok || err != nil {
				t.Fatalf("commit result %v, want t/0 accepted", results)
			}
		})
	}
}

// A commit whose deadline has already passed (commitSync(Duration.ZERO))
// still sends its acknowledgements once; a retriable answer then reports
// them failed at once with the deadline's error.
func TestShareAcknowledgePastDeadlineGoesOnce(t *testing.T) {
	for scope, cases := range retriableAckCases(t) {
		c := cases[0]
		t.Run(scope.String()+"/"+c.Name(), func(t *testing.T) {
			r, cs := acknowledged(t)
			var results map[managers.TopicPartition]error
			commitBy(r, cs, r.Now, &results)
			r.Complete(r.Request(cs), c, func(code int16) any { return ackAnswer(scope, code) })
			st := r.Step()
			if reqs := r.Sent(st, cs); len(reqs) != 0 {
				t.Fatalf("sent %d requests after the answer past the deadline, want none", len(reqs))
			}
			r.expectOutcome(t, managers.ErrRetryDeadline)
			if !errors.Is(results[tp0], kerr.RequestTimedOut) {
				t.Fatalf("commit result %v, want REQUEST_TIMED_OUT", results)
			}
		})
	}
}

// The close's acknowledgements (the session's closing ShareAcknowledge,
// epoch -1) are not retried: a retriable answer reports them failed with
// it, as Java's close request does.
func TestShareAcknowledgeOnCloseNotRetried(t *testing.T) {
	for scope, cases := range retriableAckCases(t) {
		c := cases[0]
		t.Run(scope.String()+"/"+c.Name(), func(t *testing.T) {
			r, cs := acknowledged(t)
			var results map[managers.TopicPartition]error
			commitBy(r, cs, r.Now.Add(ackDeadline), &results)
			r.Do("close", func(*reactor.Tx) { cs.Close() })
			req := r.Request(cs)
			if epochOf(req) != -1 {
				t.Fatalf("closing request with epoch %d, want -1", epochOf(req))
			}
			r.Complete(req, c, func(code int16) any { return ackAnswer(scope, code) })
			r.Step()
			r.expectOutcome(t, c.Err)
			if errors.Is(r.outcomes[0].Err, managers.ErrRetryDeadline) || !errors.Is(results[tp0], c.Err) {
				t.Fatalf("outcome %v, commit result %v: want %v, not retried", r.outcomes[0].Err, results, c.Err)
			}
		})
	}
}
