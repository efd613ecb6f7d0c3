package group_test

import (
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/managers/internal/testrig"
	"github.com/kreactor/kreactor/reactor"
)

const apiTimeout = 2 * time.Second // default.api.timeout.ms in these tests

// answerUntilDeadline runs the rig from Now, answering every request the
// step sends: FindCoordinator and Metadata with good answers, each request
// of api the offsets manager sends with answer; it returns at the first
// step in which the offsets manager sends something else, with the count of
// api requests answered. It fails the test past 2x the deadline.
func answerUntilDeadline(t *testing.T, r *rig, o *group.Offsets, api kmsg.Key, answer func(req *reactor.Request)) (testrig.Step, int) {
	t.Helper()
	start, n := r.Now, 0
	for r.Now.Sub(start) <= 2*apiTimeout {
		st := r.Step()
		for _, req := range st.Requests {
			switch {
			case req.Manager == o.Name() && testrig.API(req) == api:
				n++
				answer(req)
			case req.Manager == o.Name():
				return st, n
			case testrig.API(req) == kmsg.FindCoordinator:
				r.Answer(req, testrig.FindAnswer(nil), nil)
			case testrig.API(req) == kmsg.Metadata:
				r.Answer(req, testrig.MetadataAnswer(), nil)
			}
		}
		if st.Requests == nil || len(st.Requests) == 0 {
			if st.Decision.Wake.IsZero() {
				t.Fatalf("the rig waits for nothing:\n%s", st.Decision.Diagnose())
			}
			r.Now = st.Decision.Wake
		}
	}
	t.Fatalf("%s still retried %s after the start, past 2x default.api.timeout.ms", kmsg.NameForKey(int16(api)), r.Now.Sub(start))
	return testrig.Step{}, n
}

// Every OffsetFetch error that is retried (group or partition level; the
// shape of UNKNOWN_TOPIC_ID answered for good) ends at default.api.timeout.ms:
// the partition then takes its position from auto.offset.reset (a
// ListOffsets), never retried silently for ever.
func TestOffsetFetchRetriesEndAtAPITimeout(t *testing.T) {
	for _, scope := range []managers.Scope{managers.ScopeResponse, managers.ScopePartition} {
		for _, c := range testrig.ErrorCases(t, kmsg.OffsetFetch, scope) {
			if c.Row.Class == managers.ClassIgnored || c.Row.Fatal {
				continue // answered: auto.offset.reset decides at once
			}
			t.Run(scope.String()+"/"+c.Name(), func(t *testing.T) {
				r, f, o := offsetsRig(t, group.ResetEarliest, groupID)
				o.SetAPITimeout(apiTimeout)
				start := r.Now
				st, n := answerUntilDeadline(t, r, o, kmsg.OffsetFetch, func(req *reactor.Request) {
					r.Complete(req, c, func(code int16) any {
						if scope == managers.ScopeResponse {
							return offsetFetchAnswer(code, 0, -1)
						}
						return offsetFetchAnswer(0, code, -1)
					})
				})
				f.TakeErrors()
				reqs := r.Sent(st, o)
				if len(reqs) != 1 || testrig.API(reqs[0]) != kmsg.ListOffsets {
					t.Fatalf("after %d OffsetFetch answered %v: offsets %s at +%s, want ListOffsets (auto.offset.reset)", n, c.Err, testrig.Describe(r.Result(st, o), r.Now), r.Now.Sub(start))
				}
				if waited := r.Now.Sub(start); waited < apiTimeout || waited > apiTimeout+time.Second {
					t.Fatalf("gave up after %s, want default.api.timeout.ms %s (+ at most one backoff)", waited, apiTimeout)
				}
				r.Answer(reqs[0], listOffsetsAnswer(0, 5), nil)
				if needs := f.NeedingPosition(); len(needs) != 0 {
					t.Fatalf("still needing a position after the reset: %v", needs)
				}
			})
		}
	}
}

// ListOffsets retries that keep failing are reported to the application
// once per default.api.timeout.ms (ErrRetryDeadline wrapping the last
// error), not retried in silence.
func TestListOffsetsRetriesReportedAtAPITimeout(t *testing.T) {
	for _, c := range testrig.ErrorCases(t, kmsg.ListOffsets, managers.ScopePartition) {
		if c.Row.Fatal || (c.Row.Class != managers.ClassRetriable && c.Row.Class != managers.ClassMetadata && c.Row.Class != managers.ClassIgnored) {
			continue // reported at once (the table's authorization and failed rows)
		}
		t.Run(c.Name(), func(t *testing.T) {
			r, f, o := offsetsRig(t, group.ResetEarliest, "")
			o.SetAPITimeout(apiTimeout)
			start := r.Now
			var owed []error
			for r.Now.Sub(start) <= apiTimeout+time.Second && len(owed) == 0 {
				st := r.Step()
				for _, req := range r.Sent(st, o) {
					r.Complete(req, c, func(code int16) any { return listOffsetsAnswer(code, -1) })
				}
				owed = f.TakeErrors()
				if len(owed) > 0 {
					break
				}
				next := r.Result(r.Step(), o)
				if next.At.IsZero() {
					if next.Kind == reactor.KindAwait && next.Inputs&reactor.InputMetadata != 0 {
						r.Elapse(r.Back.Initial) // the metadata refresh: answered by the rig's metadata
						continue
					}
					t.Fatalf("offsets %s: a retry with no deadline", testrig.Describe(next, r.Now))
				}
				r.Now = next.At
			}
			if len(owed) != 1 || !errors.Is(owed[0], managers.ErrRetryDeadline) {
				t.Fatalf("owed %v after %s of %v, want one error wrapping ErrRetryDeadline", owed, r.Now.Sub(start), c.Err)
			}
			if waited := r.Now.Sub(start); waited < apiTimeout {
				t.Fatalf("reported after %s, before default.api.timeout.ms %s", waited, apiTimeout)
			}
		})
	}
}
