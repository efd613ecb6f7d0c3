package group_test

// Committed look-ups (Java's committed(partitions, Duration)): answered
// offsets, retriable answers retried until the look-up's deadline, other
// errors at once, and a deadline already passed still sending once.

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/managers/internal/testrig"
	"github.com/kreactor/kreactor/reactor"
)

// lookupResult is a committed look-up's outcome, an effect.
type lookupResult struct {
	offsets map[managers.TopicPartition]managers.Position
	err     error
	done    int
}

// lookupRig is a rig over the fetch and offsets managers of a consumer of
// the group with nothing assigned, discovering the coordinator whenever
// the offsets manager needs it.
func lookupRig(t *testing.T) (*rig, *group.Offsets) {
	r := newRig(t)
	f := newFetch(r)
	o := group.NewOffsets(group.ResetEarliest, r.Back, r.Coord, r.Meta, f)
	r.NeedsCoordinator = func(v group.View) bool { return o.NeedsCoordinator(v) }
	r.start(f, o)
	return r, o
}

// lookUp asks for t/0's committed offset by deadline (an application event).
func lookUp(r *rig, o *group.Offsets, deadline time.Time) *lookupResult {
	res := &lookupResult{}
	r.Do("committed", func(tx *reactor.Tx) {
		o.LookupCommitted(tx, []managers.TopicPartition{tp0}, deadline, func(m map[managers.TopicPartition]managers.Position, err error) {
			res.offsets, res.err, res.done = m, err, res.done+1
		})
	})
	return res
}

// The look-up's OffsetFetch answers t/0's committed offset; a partition
// without one is absent, not an error.
func TestCommittedLookupAnswers(t *testing.T) {
	for _, offset := range []int64{7, -1} {
		r, o := lookupRig(t)
		res := lookUp(r, o, r.Now.Add(apiTimeout))
		req := r.Request(o)
		if testrig.API(req) != kmsg.OffsetFetch {
			t.Fatalf("sent %s, want OffsetFetch", kmsg.NameForKey(int16(testrig.API(req))))
		}
		r.Answer(req, offsetFetchAnswer(0, 0, offset), nil)
		r.Step()
		pos, ok := res.offsets[tp0]
		if res.done != 1 || res.err != nil || ok != (offset >= 0) || (ok && pos.Offset != offset) || o.PendingLookups() != 0 {
			t.Fatalf("committed %d: done %d, offsets %v, err %v, %d pending", offset, res.done, res.offsets, res.err, o.PendingLookups())
		}
	}
}

// Every OffsetFetch error, at both scopes: the retriable classes
// (retriable, metadata, coordinator) are retried on the backoff schedule
// (after rediscovery for the coordinator's) until the look-up's deadline,
// which ends it with context.DeadlineExceeded and ErrRetryDeadline; every
// other class ends it at once with the error (an ignored one: nothing
// committed).
func TestCommittedLookupRetriesEndAtDeadline(t *testing.T) {
	for _, scope := range []managers.Scope{managers.ScopeResponse, managers.ScopePartition} {
		for _, c := range testrig.ErrorCases(t, kmsg.OffsetFetch, scope) {
			t.Run(scope.String()+"/"+c.Name(), func(t *testing.T) {
				r, o := lookupRig(t)
				start := r.Now
				res := lookUp(r, o, start.Add(apiTimeout))
				var fetches []time.Duration
				for res.done == 0 && r.Now.Sub(start) <= 2*apiTimeout {
					st := r.Step()
					for _, req := range st.Requests {
						switch testrig.API(req) {
						case kmsg.OffsetFetch:
							fetches = append(fetches, r.Now.Sub(start))
							r.Complete(req, c, func(code int16) any {
								if scope == managers.ScopeResponse {
									return offsetFetchAnswer(code, 0, -1)
								}
								return offsetFetchAnswer(0, code, -1)
							})
						case kmsg.FindCoordinator:
							r.Answer(req, testrig.FindAnswer(nil), nil)
						case kmsg.Metadata:
							r.Answer(req, testrig.MetadataAnswer(), nil)
						}
					}
					if res.done != 0 || len(st.Requests) > 0 {
						continue
					}
					if st.Decision.Wake.IsZero() {
						t.Fatalf("the look-up waits for nothing:\n%s", st.Decision.Diagnose())
					}
					r.Now = st.Decision.Wake
				}
				if res.done != 1 {
					t.Fatalf("look-up done %d times after %s", res.done, r.Now.Sub(start))
				}
				switch c.Row.Class {
				case managers.ClassRetriable, managers.ClassMetadata, managers.ClassCoordinator:
					if !errors.Is(res.err, context.DeadlineExceeded) || !errors.Is(res.err, managers.ErrRetryDeadline) || !errors.Is(res.err, c.Err) {
						t.Fatalf("ended with %v, want the deadline's error wrapping %v", res.err, c.Err)
					}
					if took := r.Now.Sub(start); took != apiTimeout {
						t.Fatalf("ended after %s, want at its deadline %s", took, apiTimeout)
					}
					if len(fetches) < 3 || len(fetches) > r.Back.MaxAttemptsIn(apiTimeout)+1 {
						t.Fatalf("OffsetFetch at %v: want the backoff schedule in %s", fetches, apiTimeout)
					}
				case managers.ClassIgnored:
					if res.err != nil || len(res.offsets) != 0 || len(fetches) != 1 {
						t.Fatalf("ended with %v, %v after %d OffsetFetch: want nothing committed at once", res.offsets, res.err, len(fetches))
					}
				default:
					if !errors.Is(res.err, c.Err) || len(fetches) != 1 {
						t.Fatalf("ended with %v after %d OffsetFetch, want %v at once", res.err, len(fetches), c.Err)
					}
				}
				if o.PendingLookups() != 0 {
					t.Fatalf("%d look-ups pending", o.PendingLookups())
				}
			})
		}
	}
}

// A deadline already passed (committed(partitions, Duration.ZERO)) still
// lets the OffsetFetch go once; a retriable answer then ends the look-up
// with the deadline's error, not a retry.
func TestCommittedLookupPastDeadlineGoesOnce(t *testing.T) {
	r, o := lookupRig(t)
	res := lookUp(r, o, r.Now)
	r.Answer(r.Request(o), offsetFetchAnswer(kerr.CoordinatorLoadInProgress.Code, 0, -1), nil)
	st := r.Step()
	if reqs := r.Sent(st, o); len(reqs) != 0 || res.done != 1 || !errors.Is(res.err, context.DeadlineExceeded) {
		t.Fatalf("after the answer: %d requests, done %d with %v; want ended with the deadline", len(reqs), res.done, res.err)
	}
}
