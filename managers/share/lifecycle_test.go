package share_test

// Java's contract (CONTRACT-*): the share member's leave goes while a heartbeat is in flight,
// max.poll.interval.ms leaves the share group and the next Poll rejoins (as
// the KIP-932 Java client does), every acknowledgement is reported once
// even when a request carrying it is still unanswered at the close
// deadline (item 7), and commits complete in the order made.

import (
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/internal/testrig"
	"github.com/kreactor/kreactor/managers/share"
	"github.com/kreactor/kreactor/reactor"
)

func TestShareLeaveGoesWhileHeartbeatInFlight(t *testing.T) {
	r, m := stableShareMember(t)
	r.Elapse(interval)
	held := r.Request(m)
	r.Do("close", func(*reactor.Tx) { m.Leave() })
	leave := r.Request(m)
	if shbEpoch(leave) != -1 {
		t.Fatalf("leave with epoch %d, want -1", shbEpoch(leave))
	}
	r.Answer(held, shbAnswer(0, 1, false), nil) // superseded: ignored
	r.Step()
	if m.State() != managers.MemberLeaving {
		t.Fatalf("member %s after the held heartbeat's answer, want leaving", m.State())
	}
	r.Answer(leave, shbAnswer(0, -1, false), nil)
	r.Step()
	if m.State() != managers.MemberLeft {
		t.Fatalf("member %s after the leave's answer, want left", m.State())
	}
}

func TestSharePollIntervalLeavesAndNextPollRejoins(t *testing.T) {
	r := newRig(t)
	m := share.NewMembership(testrig.GroupID, 2*interval, r.Back, r.Coord)
	r.member = m
	r.Start(r.view, m)
	r.Do("subscribe", func(tx *reactor.Tx) { m.Subscribe([]string{testrig.Topic}); m.OnPoll(tx.Now) })
	r.Answer(r.Request(m), shbAnswer(0, 1, true), nil)
	lastPoll := r.Now
	var leave *reactor.Request
	for leave == nil {
		st := r.Step()
		if reqs := r.Sent(st, m); len(reqs) == 1 {
			if shbEpoch(reqs[0]) == -1 {
				leave = reqs[0]
				break
			}
			r.Answer(reqs[0], shbAnswer(0, 1, false), nil)
			continue
		}
		res := r.Result(st, m)
		if res.Kind != reactor.KindRetryAt {
			t.Fatalf("stable share member %s, want RetryAt", testrig.Describe(res, r.Now))
		}
		r.Now = res.At
	}
	if got := r.Now.Sub(lastPoll); got != 2*interval {
		t.Fatalf("leave %s after the last Poll, want %s", got, 2*interval)
	}
	r.Answer(leave, shbAnswer(0, -1, false), nil)
	r.Elapse(10 * interval)
	if st := r.Step(); len(r.Sent(st, m)) != 0 || m.State() != managers.MemberStale {
		t.Fatalf("stale share member sent %d requests, state %s", len(r.Sent(st, m)), m.State())
	}
	r.Do("poll", func(tx *reactor.Tx) { m.OnPoll(tx.Now) })
	if join := r.Request(m); shbEpoch(join) != 0 {
		t.Fatalf("rejoin with epoch %d, want 0", shbEpoch(join))
	}
}

// Item 7: the acknowledgements a ShareFetch carries are reported failed by
// FailAll when it is still unanswered (the close deadline), and its late
// answer reports nothing more: each offset exactly once.
func TestFailAllReportsAcknowledgementsInFlight(t *testing.T) {
	for _, api := range []kmsg.Key{kmsg.ShareFetch, kmsg.ShareAcknowledge} {
		t.Run(kmsg.NameForKey(int16(api)), func(t *testing.T) {
			r, cs := consumeRig(t)
			acceptAll(t, r, cs, r.delivered(t, cs))
			var results map[managers.TopicPartition]error
			if api == kmsg.ShareAcknowledge {
				commit(r, cs, &results)
			}
			req := r.Request(cs) // carries t/0's three acknowledgements, unanswered
			if testrig.API(req) != api {
				t.Fatalf("acknowledgements went in %s, want %s", kmsg.NameForKey(int16(testrig.API(req))), kmsg.NameForKey(int16(api)))
			}
			deadline := errors.New("close deadline")
			r.Do("close deadline", func(tx *reactor.Tx) { cs.Close(); cs.FailAll(tx, deadline) })
			r.Step()
			r.expectOutcome(t, deadline)
			if api == kmsg.ShareAcknowledge && !errors.Is(results[tp0], deadline) {
				t.Fatalf("commit result %v, want the deadline error", results)
			}
			if api == kmsg.ShareFetch {
				r.Answer(req, shareFetchAnswer(0, 0, 0, 0), nil)
			} else {
				r.Answer(req, shareAckAnswer(0, 0), nil)
			}
			r.Step()
			if len(r.outcomes) != 1 || cs.PendingCommits() != 0 {
				t.Fatalf("after the late answer: outcomes %+v, %d commits pending; want the one report only", r.outcomes, cs.PendingCommits())
			}
		})
	}
}

// A commit completes only after every commit made before it: one with
// nothing to send waits for the one in flight.
func TestShareCommitsCompleteInOrder(t *testing.T) {
	r, cs := consumeRig(t)
	acceptAll(t, r, cs, r.delivered(t, cs))
	var order []string
	r.Do("commit-async", func(tx *reactor.Tx) {
		cs.Commit(tx, func(map[managers.TopicPartition]error, uint64) { order = append(order, "async") })
	})
	req := r.Request(cs)
	r.Do("commit-sync", func(tx *reactor.Tx) {
		cs.Commit(tx, func(map[managers.TopicPartition]error, uint64) { order = append(order, "sync") })
	})
	r.Step()
	if len(order) != 0 || cs.PendingCommits() != 2 {
		t.Fatalf("completions %v, %d pending, while the first commit is in flight; want none, 2", order, cs.PendingCommits())
	}
	r.Answer(req, shareAckAnswer(0, 0), nil)
	r.Step()
	if len(order) != 2 || order[0] != "async" || order[1] != "sync" {
		t.Fatalf("completions %v, want [async sync]", order)
	}
}
