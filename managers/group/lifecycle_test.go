package group_test

// Java's contract (CONTRACT-*): the leave heartbeat goes whatever else is going on (a heartbeat
// in flight, a heartbeat backoff), max.poll.interval.ms leaves the group and
// the next Poll rejoins, and a CommitSync completes after every commit made
// before it.

import (
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/managers/internal/testrig"
	"github.com/kreactor/kreactor/reactor"
)

// A heartbeat held in flight does not keep the leave back: it goes in the
// step Leave is called (Java's shouldSendLeaveHeartbeatNow;
// CONTRACT-3), and the held heartbeat's late answer is ignored.
func TestLeaveGoesWhileHeartbeatInFlight(t *testing.T) {
	r, m := stableMember(t)
	r.Elapse(interval)
	held := r.Request(m)
	if hbEpoch(held) != 1 {
		t.Fatalf("heartbeat with epoch %d, want 1", hbEpoch(held))
	}
	r.Do("close", func(*reactor.Tx) { m.Leave() })
	leave := r.Request(m)
	if hbEpoch(leave) != -1 {
		t.Fatalf("leave with epoch %d, want -1", hbEpoch(leave))
	}
	r.Answer(held, hbAnswer(kerr.UnknownMemberID.Code, 0, false), nil) // a stale answer: ignored
	st := r.Step()
	if got := len(r.Sent(st, m)); got != 0 || m.State() != managers.MemberLeaving {
		t.Fatalf("after the held heartbeat's answer: %d requests, member %s; want none, still leaving", got, m.State())
	}
	r.Answer(leave, hbAnswer(0, -1, false), nil)
	r.Step()
	if !m.Done() || m.State() != managers.MemberLeft {
		t.Fatalf("member %s after the leave's answer, want left", m.State())
	}
}

// A heartbeat backoff does not delay the leave either.
func TestLeaveGoesDuringHeartbeatBackoff(t *testing.T) {
	r, m := stableMember(t)
	r.Elapse(interval)
	answerHB(r, r.Request(m), testrig.ErrorCase{Err: kerr.CoordinatorLoadInProgress})
	st := r.Step()
	if res := r.Result(st, m); res.Kind != reactor.KindRetryAt {
		t.Fatalf("after a retriable error: %s, want a backoff", testrig.Describe(res, r.Now))
	}
	r.Do("close", func(*reactor.Tx) { m.Leave() })
	if leave := r.Request(m); hbEpoch(leave) != -1 {
		t.Fatalf("leave with epoch %d, want -1", hbEpoch(leave))
	}
}

// max.poll.interval.ms (CONTRACT-6): while a Poll waits the timer
// does not run; without Poll activity for the interval the member sends a
// leave heartbeat (epoch -1) at the interval's end, gives up its
// assignment, sends nothing more (MemberStale), and the next Poll joins
// again with epoch 0.
func TestPollIntervalLeavesAndNextPollRejoins(t *testing.T) {
	r := newRig(t)
	m := group.NewMembership(groupID, 3*interval, r.Back, r.Coord)
	r.startMember(m)
	r.Do("subscribe", func(tx *reactor.Tx) { m.Subscribe([]string{topic}); m.OnPoll(tx.Now) })
	r.Answer(r.Request(m), hbAnswer(0, 1, true), nil)
	r.Answer(r.Request(m), hbAnswer(0, 1, false), nil) // the acknowledgement
	lastPoll := r.Now

	// While a Poll waits, heartbeats go on past the interval.
	r.polling = true
	for range 5 {
		r.Elapse(interval)
		r.Answer(r.Request(m), hbAnswer(0, 1, false), nil)
	}
	r.polling = false
	r.Do("poll returned", func(tx *reactor.Tx) { m.OnPoll(tx.Now) })
	lastPoll = r.Now

	// The application stops polling: heartbeats until the interval ends,
	// whose time the member's result names.
	var leave *reactor.Request
	for leave == nil {
		st := r.Step()
		if reqs := r.Sent(st, m); len(reqs) == 1 {
			if hbEpoch(reqs[0]) == -1 {
				leave = reqs[0]
				break
			}
			r.Answer(reqs[0], hbAnswer(0, 1, false), nil)
			continue
		}
		res := r.Result(st, m)
		if res.Kind != reactor.KindRetryAt || res.At.After(lastPoll.Add(3*interval)) {
			t.Fatalf("stable member %s, want RetryAt no later than the poll timer (+%s)", testrig.Describe(res, r.Now), lastPoll.Add(3*interval).Sub(r.Now))
		}
		r.Now = res.At
	}
	if got := r.Now.Sub(lastPoll); got != 3*interval {
		t.Fatalf("leave %s after the last Poll, want max.poll.interval.ms (%s)", got, 3*interval)
	}
	if owned, _ := m.Owned(); len(owned) != 0 || m.State() != managers.MemberLeaving {
		t.Fatalf("expired member %s owning %v, want leaving with nothing", m.State(), owned)
	}
	r.Answer(leave, hbAnswer(0, -1, false), nil)
	for range 3 {
		st := r.Step()
		if n := len(r.Sent(st, m)); n != 0 || m.State() != managers.MemberStale {
			t.Fatalf("stale member sent %d heartbeats, state %s", n, m.State())
		}
		if res := r.Result(st, m); res.Kind != reactor.KindIdle {
			t.Fatalf("stale member %s, want Idle", testrig.Describe(res, r.Now))
		}
		r.Elapse(10 * interval)
	}
	if m.InGroup() || m.NeedsCoordinator() || !m.Done() {
		t.Fatalf("stale member: in group %v, needs coordinator %v, done %v", m.InGroup(), m.NeedsCoordinator(), m.Done())
	}
	r.Do("poll", func(tx *reactor.Tx) { m.OnPoll(tx.Now) })
	if join := r.Request(m); hbEpoch(join) != 0 {
		t.Fatalf("rejoin with epoch %d, want 0", hbEpoch(join))
	}
}

// A Poll that comes while the poll timer's leave is in flight makes the
// member join again once the leave is answered.
func TestPollDuringExpiryLeaveRejoins(t *testing.T) {
	r := newRig(t)
	m := group.NewMembership(groupID, interval/2, r.Back, r.Coord)
	r.startMember(m)
	r.Do("subscribe", func(tx *reactor.Tx) { m.Subscribe([]string{topic}); m.OnPoll(tx.Now) })
	r.Answer(r.Request(m), hbAnswer(0, 1, false), nil)
	r.Elapse(interval / 2)
	leave := r.Request(m)
	if hbEpoch(leave) != -1 {
		t.Fatalf("request with epoch %d after the poll timer expired, want the leave (-1)", hbEpoch(leave))
	}
	r.Do("poll", func(tx *reactor.Tx) { m.OnPoll(tx.Now) })
	r.Answer(leave, hbAnswer(0, -1, false), nil)
	if join := r.Request(m); hbEpoch(join) != 0 {
		t.Fatalf("after the leave: epoch %d, want a join (0)", hbEpoch(join))
	}
}

// CommitSync's completion (CONTRACT-1): a commit with nothing to send
// queued behind a commit in flight completes after it, in the same step
// and after its done, never at once; a commit completes after every commit
// queued before it.
func TestCommitsCompleteInOrder(t *testing.T) {
	r, cm := commitRig(t)
	var order []string
	first := enqueueCommit(r, cm)
	inFlight := r.Request(cm)
	r.Do("commit-sync nothing", func(tx *reactor.Tx) {
		cm.Enqueue(tx, nil, r.Now.Add(5*time.Second), func(err error, _ uint64) {
			if err != nil {
				t.Errorf("barrier completed with %v", err)
			}
			if first.done != 1 {
				t.Errorf("the empty commit completed before the commit queued ahead of it (done %d)", first.done)
			}
			order = append(order, "sync")
		})
	})
	st := r.Step()
	if len(order) != 0 || cm.Pending() != 2 {
		t.Fatalf("the empty commit completed (%v) or left the queue (%d pending) while the first is in flight", order, cm.Pending())
	}
	r.Answer(inFlight, commitAnswer(0), nil)
	r.Do("note", func(*reactor.Tx) {})
	st = r.Step()
	if first.done != 1 || first.err != nil || len(order) != 1 || cm.Pending() != 0 {
		t.Fatalf("first done %d (%v), empty commit %v, %d pending; want both completed", first.done, first.err, order, cm.Pending())
	}
	if res := r.Result(st, cm); res.Kind != reactor.KindIdle {
		t.Fatalf("commit manager %s, want Idle", testrig.Describe(res, r.Now))
	}

	// Nothing queued: an empty commit completes at once (next step's effects).
	r.Do("commit-sync nothing", func(tx *reactor.Tx) {
		cm.Enqueue(tx, nil, r.Now.Add(5*time.Second), func(error, uint64) { order = append(order, "at once") })
	})
	r.Step()
	if len(order) != 2 {
		t.Fatalf("an empty commit with nothing queued did not complete at once: %v", order)
	}

	// A barrier whose deadline passes before the commit ahead completes
	// fails with the commit timeout at its deadline (Java's commitSync
	// times out), once; the commit ahead still completes with its answer.
	second := enqueueCommit(r, cm)
	ahead := r.Request(cm)
	var barrierErr []error
	r.Do("commit-sync nothing", func(tx *reactor.Tx) {
		cm.Enqueue(tx, nil, r.Now.Add(time.Second), func(err error, _ uint64) { barrierErr = append(barrierErr, err) })
	})
	st = r.Step()
	if res := r.Result(st, cm); res.Kind != reactor.KindAwait || !res.At.Equal(r.Now.Add(time.Second)) {
		t.Fatalf("commit in flight with a barrier due in 1 s: %s, want await(response) until +1s", testrig.Describe(res, r.Now))
	}
	r.Elapse(time.Second)
	r.Step()
	var ce *group.CommitError
	if len(barrierErr) != 1 || !errors.As(barrierErr[0], &ce) || !errors.Is(barrierErr[0], group.ErrCommitTimeout) {
		t.Fatalf("barrier outcomes %v, want one commit timeout", barrierErr)
	}
	r.Answer(ahead, commitAnswer(0), nil)
	r.Step()
	if second.done != 1 || second.err != nil || len(barrierErr) != 1 {
		t.Fatalf("commit ahead done %d (%v), barrier outcomes %v", second.done, second.err, barrierErr)
	}
}
