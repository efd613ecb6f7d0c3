package share_test

import (
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/internal/testrig"
	"github.com/kreactor/kreactor/managers/share"
	"github.com/kreactor/kreactor/reactor"
)

// acceptAll accepts recs and flushes the acknowledgements (application
// events).
func acceptAll(t *testing.T, r *rig, c *share.Consume, recs []share.Record) {
	t.Helper()
	var err error
	r.Do("acknowledge", func(*reactor.Tx) {
		for _, rec := range recs {
			if err = c.Acknowledge(tp0, rec.Offset, share.AckAccept); err != nil {
				return
			}
		}
		c.Flush()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// commit commits the flushed acknowledgements (an application event);
// results receives the commit's outcome, an effect.
func commit(r *rig, c *share.Consume, results *map[managers.TopicPartition]error) {
	r.Do("commit", func(tx *reactor.Tx) {
		c.Commit(tx, time.Time{}, func(res map[managers.TopicPartition]error, _ uint64) { *results = res })
	})
}

func epochOf(req *reactor.Request) int32 {
	switch r := req.Payload.(*managers.Call).Req.(type) {
	case *kmsg.ShareFetchRequest:
		return r.ShareSessionEpoch
	case *kmsg.ShareAcknowledgeRequest:
		return r.ShareSessionEpoch
	}
	return -2
}

// expectOutcome checks the acknowledgements of t/0 were reported once with
// err.
func (r *rig) expectOutcome(t *testing.T, err error) {
	t.Helper()
	if len(r.outcomes) != 1 || r.outcomes[0].TP != tp0 || len(r.outcomes[0].Offsets) != 3 || !errors.Is(r.outcomes[0].Err, err) {
		t.Fatalf("outcomes %+v, want t/0's 3 offsets reported with %v", r.outcomes, err)
	}
}

// Every top-level ShareFetch error (and a ShareFetch without answer), on a
// ShareFetch carrying acknowledgements, reports them failed with the error
// and has the effect its class says on the session.
func TestShareFetchErrorsByClass(t *testing.T) {
	for _, c := range testrig.ErrorCases(t, kmsg.ShareFetch, managers.ScopeResponse) {
		t.Run(c.Name(), func(t *testing.T) {
			r, cs := consumeRig(t)
			acceptAll(t, r, cs, r.delivered(t, cs))
			req := r.Request(cs)
			if testrig.API(req) != kmsg.ShareFetch || epochOf(req) != 1 {
				t.Fatalf("%s with epoch %d, want the acknowledgements on a ShareFetch at epoch 1", kmsg.NameForKey(int16(testrig.API(req))), epochOf(req))
			}
			r.Complete(req, c, func(code int16) any { return shareFetchAnswer(code, 0, 0, 0) })
			r.expectOutcome(t, c.Err)
			st := r.Step()
			owed := cs.TakeErrors()
			switch c.Row.Class {
			case managers.ClassSessionReset:
				again := r.Only(st, cs) // the first reset reopens at once
				if epochOf(again) != 0 {
					t.Fatalf("after %v: epoch %d, want a new session (0)", c.Err, epochOf(again))
				}
				r.Complete(again, c, func(code int16) any { return shareFetchAnswer(code, 0, 0, 0) })
				r.ExpectRetry(r.Step(), cs, c.Row.Class) // a second reset backs off
			default:
				r.ExpectOwed(c, owed, nil)
				r.ExpectRetry(st, cs, c.Row.Class)
			}
		})
	}
}

// Every partition-level ShareFetch error has the effect its class says;
// fetching backs off while acknowledgements still go.
func TestShareFetchPartitionErrorsByClass(t *testing.T) {
	for _, c := range testrig.ErrorCases(t, kmsg.ShareFetch, managers.ScopePartition) {
		if c.Row.Match == managers.MatchTransport {
			continue // a whole-request failure: TestShareFetchErrorsByClass
		}
		t.Run(c.Name(), func(t *testing.T) {
			r, cs := consumeRig(t)
			recs := r.delivered(t, cs)
			r.Complete(r.Request(cs), c, func(code int16) any { return shareFetchAnswer(0, code, 0, 0) })
			st := r.Step()
			r.ExpectOwed(c, cs.TakeErrors(), new(*share.PartitionError))
			r.ExpectRetry(st, cs, c.Row.Class)
			// Acknowledging during the fetch backoff sends them now, alone.
			acceptAll(t, r, cs, recs)
			req := r.Request(cs)
			if testrig.API(req) != kmsg.ShareAcknowledge {
				t.Fatalf("acknowledgements during the fetch backoff went in %s", kmsg.NameForKey(int16(testrig.API(req))))
			}
			r.Answer(req, shareAckAnswer(0, 0), nil)
			r.expectOutcome(t, nil)
		})
	}
}

// Every acknowledgement error code (on a ShareFetch, and on the
// ShareAcknowledge of a commit) is reported to the callback, once, with the
// error; the commit's result, an effect of the next step, says the same. A
// retriable one on a commit's ShareAcknowledge is first retried until the
// commit's deadline (ack_deadline_test.go).
func TestAcknowledgementErrorsAreReported(t *testing.T) {
	for _, api := range []kmsg.Key{kmsg.ShareFetch, kmsg.ShareAcknowledge} {
		for _, c := range testrig.ErrorCases(t, api, managers.ScopeAcknowledge) {
			if api == kmsg.ShareAcknowledge && c.Row.Class == managers.ClassRetriable {
				continue
			}
			t.Run(kmsg.NameForKey(int16(api))+"/"+c.Name(), func(t *testing.T) {
				r, cs := consumeRig(t)
				acceptAll(t, r, cs, r.delivered(t, cs))
				var results map[managers.TopicPartition]error
				if api == kmsg.ShareAcknowledge {
					commit(r, cs, &results)
				}
				req := r.Request(cs)
				if testrig.API(req) != api {
					t.Fatalf("acknowledgements went in %s, want %s", kmsg.NameForKey(int16(testrig.API(req))), kmsg.NameForKey(int16(api)))
				}
				r.Complete(req, c, func(code int16) any {
					if api == kmsg.ShareFetch {
						return shareFetchAnswer(0, 0, code, 0)
					}
					return shareAckAnswer(0, code)
				})
				if results != nil {
					t.Fatal("the commit completed before a decision was published (invariant 4)")
				}
				r.Step()
				r.expectOutcome(t, c.Err)
				if api == kmsg.ShareAcknowledge && !errors.Is(results[tp0], c.Err) {
					t.Fatalf("commit result %v, want %v", results, c.Err)
				}
			})
		}
	}
}

// Every top-level ShareAcknowledge error reports the commit's
// acknowledgements failed and has the effect its class says; a retriable
// one keeps them for a retry after the backoff (until the commit's
// deadline: ack_deadline_test.go).
func TestShareAcknowledgeErrorsByClass(t *testing.T) {
	for _, c := range testrig.ErrorCases(t, kmsg.ShareAcknowledge, managers.ScopeResponse) {
		t.Run(c.Name(), func(t *testing.T) {
			r, cs := consumeRig(t)
			acceptAll(t, r, cs, r.delivered(t, cs))
			var results map[managers.TopicPartition]error
			commit(r, cs, &results)
			r.Complete(r.Request(cs), c, func(code int16) any { return shareAckAnswer(code, 0) })
			st := r.Step() // runs the commit's completion
			if c.Row.Class == managers.ClassRetriable {
				if len(r.outcomes) != 0 || results != nil || cs.PendingCommits() != 1 {
					t.Fatalf("after %v: outcomes %+v, results %v, %d commits pending; want the commit kept for a retry", c.Err, r.outcomes, results, cs.PendingCommits())
				}
				r.ExpectRetry(st, cs, c.Row.Class)
				return
			}
			r.expectOutcome(t, c.Err)
			if !errors.Is(results[tp0], c.Err) || cs.PendingCommits() != 0 {
				t.Fatalf("commit result %v with %d pending, want %v", results, cs.PendingCommits(), c.Err)
			}
			owed := cs.TakeErrors()
			switch c.Row.Class {
			case managers.ClassSessionReset:
				if req := r.Only(st, cs); epochOf(req) != 0 {
					t.Fatalf("after %v: epoch %d, want a new session", c.Err, epochOf(req))
				}
			case managers.ClassAuthorization, managers.ClassFailed:
				if len(owed) != 1 || !errors.Is(owed[0], c.Err) {
					t.Fatalf("owed %v, want %v", owed, c.Err)
				}
				r.ExpectRetry(st, cs, c.Row.Class)
			default:
				r.ExpectRetry(st, cs, c.Row.Class)
			}
		})
	}
}
