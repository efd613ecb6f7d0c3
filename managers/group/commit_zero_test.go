package group_test

import (
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/managers/internal/testrig"
	"github.com/kreactor/kreactor/reactor"
)

// A commit whose deadline has already passed (commitSync(Duration.ZERO))
// is sent once when it could go now, and completes with its answer; a
// retriable answer is not retried past the deadline. With no coordinator it
// fails at once, never sent.
func TestCommitZeroDeadlineSentOnce(t *testing.T) {
	r, cm := commitRig(t)
	res := &commitResult{}
	r.Do("commit", func(tx *reactor.Tx) {
		cm.Enqueue(tx, map[managers.TopicPartition]managers.Position{{Topic: topic, Partition: 0}: {Offset: 10, LeaderEpoch: -1}},
			r.Now, func(err error, _ uint64) { res.err, res.done = err, res.done+1 })
	})
	req := r.Request(cm)
	if testrig.API(req) != kmsg.OffsetCommit {
		t.Fatalf("sent %s, want OffsetCommit", kmsg.NameForKey(int16(testrig.API(req))))
	}
	r.Answer(req, commitAnswer(kerr.CoordinatorLoadInProgress.Code), nil)
	st := r.Step()
	if reqs := r.Sent(st, cm); len(reqs) != 0 || res.done != 1 || !errors.Is(res.err, group.ErrCommitTimeout) {
		t.Fatalf("after a retriable answer past the deadline: %d sent, done %d with %v; want none sent, done once with ErrCommitTimeout", len(reqs), res.done, res.err)
	}

	r2, cm2 := commitRig(t)
	r2.Coord.MarkUnknown(coordNode, kerr.NotCoordinator)
	res2 := &commitResult{}
	r2.Do("commit", func(tx *reactor.Tx) {
		cm2.Enqueue(tx, map[managers.TopicPartition]managers.Position{{Topic: topic, Partition: 0}: {Offset: 10, LeaderEpoch: -1}},
			r2.Now, func(err error, _ uint64) { res2.err, res2.done = err, res2.done+1 })
	})
	st = r2.Step()
	if reqs := r2.Sent(st, cm2); len(reqs) != 0 || res2.done != 1 || !errors.Is(res2.err, group.ErrCommitTimeout) {
		t.Fatalf("coordinator unknown: %d sent, done %d with %v; want failed at once", len(reqs), res2.done, res2.err)
	}
}
