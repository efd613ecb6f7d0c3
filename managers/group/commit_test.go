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

// enqueueCommit queues a commit of t/0 at offset 10 due in 5 s.
func enqueueCommit(r *rig, c *group.Commit) *commitResult {
	res := &commitResult{}
	c.Enqueue(r.Tx(), map[managers.TopicPartition]managers.Position{{Topic: topic, Partition: 0}: {Offset: 10, LeaderEpoch: -1}},
		r.Now.Add(5*time.Second), func(err error, _ uint64) { res.err, res.done = err, res.done+1 })
	return res
}

// Every error the table lists for OffsetCommit, answered to a commit, has
// the effect its class says: retried (after rediscovery, or the backoff), or
// the commit completes once with the error.
func TestCommitErrorsByClass(t *testing.T) {
	for _, c := range testrig.ErrorCases(t, kmsg.OffsetCommit, managers.ScopePartition) {
		t.Run(c.Name(), func(t *testing.T) {
			r := newRig(t)
			cm := group.NewCommit(group.CommitConfig{Backoff: r.Back}, groupID, r.Coord, noConsumed{})
			res := enqueueCommit(r, cm)
			req := r.Only(cm.Poll(r.Tx(), r.view(nil)))
			if code, transport := c.Code(); transport {
				req.OnComplete(r.Tx(), nil, c.Err)
			} else {
				req.OnComplete(r.Tx(), commitAnswer(code), nil)
			}
			next := cm.Poll(r.Tx(), r.view(nil))
			r.Host.RunEffects()
			switch c.Row.Class {
			case managers.ClassCoordinator:
				if _, known := r.Coord.Known(); known || cm.Pending() != 1 || next.Kind != reactor.KindAwait || next.Inputs&reactor.InputCoordinator == 0 {
					t.Fatalf("coordinator known %v, %d pending, poll %s: want the commit waiting for rediscovery", known, cm.Pending(), next)
				}
			case managers.ClassRetriable, managers.ClassMetadata:
				if cm.Pending() != 1 || next.Kind != reactor.KindRetryAt || next.At != r.Now.Add(r.Back.Delay(1)) || res.done != 0 {
					t.Fatalf("%d pending, poll %s, done %d: want a retry after %s", cm.Pending(), next, res.done, r.Back.Delay(1))
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
// with ErrCommitTimeout (and the last error) at its deadline.
func TestCommitRetriesGrowUntilDeadline(t *testing.T) {
	r := newRig(t)
	cm := group.NewCommit(group.CommitConfig{Backoff: r.Back}, groupID, r.Coord, noConsumed{})
	res := enqueueCommit(r, cm)
	deadline := r.Now.Add(5 * time.Second)
	var waits []time.Duration
	for res.done == 0 {
		next := cm.Poll(r.Tx(), r.view(nil))
		r.Host.RunEffects()
		switch next.Kind {
		case reactor.KindReady:
			next.Requests[0].OnComplete(r.Tx(), commitAnswer(kerr.CoordinatorLoadInProgress.Code), nil)
		case reactor.KindRetryAt:
			waits = append(waits, next.At.Sub(r.Now))
			r.Now = next.At
		case reactor.KindIdle:
		default:
			t.Fatalf("poll %s", next)
		}
		if r.Now.After(deadline) {
			t.Fatal("polled past the deadline")
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
	r := newRig(t)
	cm := group.NewCommit(group.CommitConfig{Backoff: r.Back}, groupID, r.Coord, noConsumed{})
	r.Coord.MarkUnknown(coordNode, kerr.NotCoordinator)
	res := enqueueCommit(r, cm)
	if next := cm.Poll(r.Tx(), r.view(nil)); next.Kind != reactor.KindAwait {
		t.Fatalf("poll %s, want Await(coordinator)", next)
	}
	r.Advance(time.Second)
	r.FindCoordinator(kerr.GroupAuthorizationFailed)
	next := cm.Poll(r.Tx(), r.view(nil))
	r.Host.RunEffects()
	if res.done != 1 || !errors.Is(res.err, kerr.GroupAuthorizationFailed) || cm.Pending() != 0 || next.Kind != reactor.KindIdle {
		t.Fatalf("done %d with %v, %d pending, poll %s", res.done, res.err, cm.Pending(), next)
	}
	// A retriable discovery error does not.
	r2 := newRig(t)
	cm2 := group.NewCommit(group.CommitConfig{Backoff: r2.Back}, groupID, r2.Coord, noConsumed{})
	r2.Coord.MarkUnknown(coordNode, kerr.NotCoordinator)
	res2 := enqueueCommit(r2, cm2)
	r2.Advance(time.Second)
	r2.FindCoordinator(kerr.CoordinatorNotAvailable)
	cm2.Poll(r2.Tx(), r2.view(nil))
	r2.Host.RunEffects()
	if res2.done != 0 || cm2.Pending() != 1 {
		t.Fatalf("a retriable discovery error completed the commit: %v", res2.err)
	}
}
