package group_test

import (
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

type noConsumed struct{}

func (noConsumed) Consumed() map[managers.TopicPartition]managers.Position { return nil }

func commitAnswer(code int16) *kmsg.OffsetCommitResponse {
	resp := kmsg.NewPtrOffsetCommitResponse()
	rt := kmsg.NewOffsetCommitResponseTopic()
	rt.Topic = topic
	p := kmsg.NewOffsetCommitResponseTopicPartition()
	p.Partition, p.ErrorCode = 0, code
	rt.Partitions = append(rt.Partitions, p)
	resp.Topics = append(resp.Topics, rt)
	return resp
}

type commitResult struct {
	err  error
	done int
}

// commitRig is a rig over one commit manager (no member, no assignment).
func commitRig(t *testing.T) (*rig, *group.Commit) {
	r := newRig(t)
	cm := group.NewCommit(group.CommitConfig{Backoff: r.Back}, groupID, r.Coord, noConsumed{})
	r.start(cm)
	return r, cm
}

// enqueueCommit queues a commit of t/0 at offset 10 due in 5 s (an
// application event).
func enqueueCommit(r *rig, c *group.Commit) *commitResult {
	res := &commitResult{}
	r.Do("commit", func(tx *reactor.Tx) {
		c.Enqueue(tx, map[managers.TopicPartition]managers.Position{{Topic: topic, Partition: 0}: {Offset: 10, LeaderEpoch: -1}},
			r.Now.Add(5*time.Second), func(err error, _ uint64) { res.err, res.done = err, res.done+1 })
	})
	return res
}

// Every error the table lists for OffsetCommit, answered to a commit, has
// the effect its class says: retried (after rediscovery, or the backoff), or
// the commit completes once with the error, as an effect of the next step.
func TestCommitErrorsByClass(t *testing.T) {
	for _, c := range testrig.ErrorCases(t, kmsg.OffsetCommit, managers.ScopePartition) {
		t.Run(c.Name(), func(t *testing.T) {
			r, cm := commitRig(t)
			res := enqueueCommit(r, cm)
			r.Complete(r.Request(cm), c, func(code int16) any { return commitAnswer(code) })
			if res.done != 0 {
				t.Fatal("the commit completed before a decision was published (invariant 4)")
			}
			st := r.Step()
			next := r.Result(st, cm)
			switch c.Row.Class {
			case managers.ClassCoordinator:
				if _, known := r.Coord.Known(); known || cm.Pending() != 1 || next.Kind != reactor.KindAwait || next.Inputs&reactor.InputCoordinator == 0 {
					t.Fatalf("coordinator known %v, %d pending, commit %s: want the commit waiting for rediscovery", known, cm.Pending(), testrig.Describe(next, r.Now))
				}
			case managers.ClassRetriable, managers.ClassMetadata:
				if cm.Pending() != 1 || next.Kind != reactor.KindRetryAt || !next.At.Equal(r.Now.Add(r.Back.Delay(1))) || res.done != 0 {
					t.Fatalf("%d pending, commit %s, done %d: want a retry after %s", cm.Pending(), testrig.Describe(next, r.Now), res.done, r.Back.Delay(1))
				}
			default:
				var ce *group.CommitError
				if res.done != 1 || !errors.As(res.err, &ce) || !errors.Is(res.err, c.Err) || cm.Pending() != 0 {
					t.Fatalf("done %d with %v, %d pending: want the commit failed once with %v", res.done, res.err, cm.Pending(), c.Err)
				}
			}
		})
	}
}

// A commit retried on a retriable error backs off more each time and fails
// with ErrCommitTimeout (and the last error) at its deadline. The clock
// moves as the loop's does: to each decision's wake time.
func TestCommitRetriesGrowUntilDeadline(t *testing.T) {
	r, cm := commitRig(t)
	res := enqueueCommit(r, cm)
	deadline := r.Now.Add(5 * time.Second)
	var waits []time.Duration
	for res.done == 0 {
		st := r.Step()
		if sent := r.Sent(st, cm); len(sent) > 0 {
			r.Answer(r.Only(st, cm), commitAnswer(kerr.CoordinatorLoadInProgress.Code), nil)
			continue
		}
		switch next := r.Result(st, cm); next.Kind {
		case reactor.KindRetryAt:
			if !st.Decision.Wake.Equal(next.At) {
				t.Fatalf("decision wakes at +%s, commit retries at +%s", st.Decision.Wake.Sub(r.Now), next.At.Sub(r.Now))
			}
			waits = append(waits, next.At.Sub(r.Now))
			r.Now = st.Decision.Wake
		case reactor.KindIdle:
		default:
			t.Fatalf("commit %s", testrig.Describe(next, r.Now))
		}
		if r.Now.After(deadline) {
			t.Fatal("stepped past the deadline")
		}
	}
	if !errors.Is(res.err, group.ErrCommitTimeout) || !errors.Is(res.err, kerr.CoordinatorLoadInProgress) {
		t.Fatalf("commit ended with %v", res.err)
	}
	want := []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, time.Second}
	for i := range want {
		if waits[i] != want[i] {
			t.Fatalf("waits %v, want them to start %v", waits, want)
		}
	}
}

// Discovery failing with an error the application must see fails the
// commits waiting for the coordinator at once (Java's
// maybeFailOnCoordinatorFatalError), instead of holding them to their
// deadline.
func TestCoordinatorFailureFailsWaitingCommits(t *testing.T) {
	r, cm := commitRig(t)
	r.Do("coordinator moved", func(*reactor.Tx) { r.Coord.MarkUnknown(coordNode, kerr.NotCoordinator) })
	res := enqueueCommit(r, cm)
	if next := r.Result(r.Step(), cm); next.Kind != reactor.KindAwait || next.Inputs&reactor.InputCoordinator == 0 {
		t.Fatalf("commit %s, want Await(coordinator)", testrig.Describe(next, r.Now))
	}
	r.Elapse(time.Second)
	r.FindCoordinator(kerr.GroupAuthorizationFailed)
	next := r.Result(r.Step(), cm)
	if res.done != 1 || !errors.Is(res.err, kerr.GroupAuthorizationFailed) || cm.Pending() != 0 || next.Kind != reactor.KindIdle {
		t.Fatalf("done %d with %v, %d pending, commit %s", res.done, res.err, cm.Pending(), testrig.Describe(next, r.Now))
	}
	// A retriable discovery error does not.
	r2, cm2 := commitRig(t)
	r2.Do("coordinator moved", func(*reactor.Tx) { r2.Coord.MarkUnknown(coordNode, kerr.NotCoordinator) })
	res2 := enqueueCommit(r2, cm2)
	r2.Elapse(time.Second)
	r2.FindCoordinator(kerr.CoordinatorNotAvailable)
	r2.Step()
	if res2.done != 0 || cm2.Pending() != 1 {
		t.Fatalf("a retriable discovery error completed the commit: %v", res2.err)
	}
}

// A commit in flight when the close deadline fails every pending commit
// (FailAll) completes once, with the close error; its answer arriving
// afterwards is dropped, not run as a second completion (a simulation
// run of `kreactor explore` found a CommitAsync callback run twice, with the error and then nil).
func TestCommitFailedInFlightCompletesOnce(t *testing.T) {
	r, cm := commitRig(t)
	res := enqueueCommit(r, cm)
	req := r.Request(cm) // in flight
	closeErr := errors.New("close deadline")
	r.Do("close deadline", func(tx *reactor.Tx) { cm.FailAll(tx, closeErr) })
	r.Step()
	if res.done != 1 || !errors.Is(res.err, closeErr) {
		t.Fatalf("after FailAll: done %d, err %v; want once with the close error", res.done, res.err)
	}
	r.Answer(req, commitAnswer(0), nil)
	r.Step()
	if res.done != 1 || !errors.Is(res.err, closeErr) {
		t.Fatalf("after the late answer: done %d times, err %v; want still once, with the close error", res.done, res.err)
	}
}
