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

const interval = time.Second

func hbAnswer(code int16, epoch int32, assign bool) *kmsg.ConsumerGroupHeartbeatResponse {
	resp := kmsg.NewPtrConsumerGroupHeartbeatResponse()
	resp.ErrorCode, resp.MemberEpoch, resp.HeartbeatIntervalMillis = code, epoch, int32(interval/ms)
	if assign {
		a := kmsg.NewConsumerGroupHeartbeatResponseAssignment()
		at := kmsg.NewConsumerGroupHeartbeatResponseAssignmentTopic()
		at.TopicID, at.Partitions = testrig.TopicID, []int32{0, 1, 2}
		a.Topics = append(a.Topics, at)
		resp.Assignment = &a
	}
	return resp
}

// answerHB completes a heartbeat with an error case (a code, or a
// transport failure).
func answerHB(r *rig, req *reactor.Request, c testrig.ErrorCase) {
	r.Complete(req, c, func(code int16) any { return hbAnswer(code, 0, false) })
}

func hbEpoch(req *reactor.Request) int32 {
	return req.Payload.(*managers.Call).Req.(*kmsg.ConsumerGroupHeartbeatRequest).MemberEpoch
}

// memberRig is a rig over one membership manager, not yet subscribed.
func memberRig(t *testing.T) (*rig, *group.Membership) {
	r := newRig(t)
	m := group.NewMembership(groupID, rebalanceTO, r.Back, r.Coord)
	r.startMember(m)
	return r, m
}

// stableMember subscribes, joins, is assigned the three partitions and
// acknowledges them.
func stableMember(t *testing.T) (*rig, *group.Membership) {
	t.Helper()
	r, m := memberRig(t)
	r.Do("subscribe", func(tx *reactor.Tx) { m.Subscribe([]string{topic}); m.OnPoll(tx.Now) })
	join := r.Request(m)
	if hbEpoch(join) != 0 {
		t.Fatalf("join with epoch %d", hbEpoch(join))
	}
	r.Answer(join, hbAnswer(0, 1, true), nil)
	r.Answer(r.Request(m), hbAnswer(0, 1, false), nil) // the acknowledgement
	if owned, _ := m.Owned(); m.State() != managers.MemberStable || len(owned) != 3 {
		t.Fatalf("member %s owning %v, want stable with 3 partitions", m.State(), owned)
	}
	return r, m
}

// Every error the table lists for ConsumerGroupHeartbeat, answered to a
// stable member's heartbeat, has the effect its class says.
func TestHeartbeatErrorsByClass(t *testing.T) {
	for _, c := range testrig.ErrorCases(t, kmsg.ConsumerGroupHeartbeat, managers.ScopeResponse) {
		t.Run(c.Name(), func(t *testing.T) {
			r, m := stableMember(t)
			r.Elapse(interval)
			answerHB(r, r.Request(m), c)
			st := r.Step()
			res := r.Result(st, m)
			owed := m.TakeErrors()
			owned, _ := m.Owned()
			switch {
			case c.Row.Class == managers.ClassCoordinator:
				if _, known := r.Coord.Known(); known || m.State() != managers.MemberStable || len(owed) != 0 {
					t.Fatalf("coordinator known %v, state %s, owed %v: want rediscovery, still stable", known, m.State(), owed)
				}
				if res.Kind != reactor.KindAwait || res.Inputs&reactor.InputCoordinator == 0 {
					t.Fatalf("membership %s, want Await(coordinator)", testrig.Describe(res, r.Now))
				}
			case c.Row.Class == managers.ClassFenced:
				req := r.Only(st, m) // the first rejoin goes at once
				if hbEpoch(req) != 0 || len(owned) != 0 {
					t.Fatalf("rejoin with epoch %d owning %v, want epoch 0 owning nothing", hbEpoch(req), owned)
				}
			case c.Row.Fatal:
				if m.State() != managers.MemberFatal || !errors.Is(m.LastError(), c.Err) || len(owned) != 0 || res.Kind != reactor.KindIdle {
					t.Fatalf("state %s, last error %v, owned %v, membership %s: want fatal", m.State(), m.LastError(), owned, testrig.Describe(res, r.Now))
				}
			case c.Row.Class == managers.ClassAuthorization, c.Row.Class == managers.ClassFailed:
				if len(owed) != 1 || !errors.Is(owed[0], c.Err) {
					t.Fatalf("owed %v, want %v", owed, c.Err)
				}
				fallthrough
			default: // retriable
				if res.Kind != reactor.KindRetryAt || !res.At.Equal(r.Now.Add(r.Back.Delay(1))) || m.State() != managers.MemberStable {
					t.Fatalf("membership %s in state %s, want RetryAt(+%s) while stable", testrig.Describe(res, r.Now), m.State(), r.Back.Delay(1))
				}
				if c.Row.Class == managers.ClassRetriable && len(owed) != 0 {
					t.Fatalf("a retriable error owed %v to the application", owed)
				}
			}
		})
	}
}

// CONTRACT-4: a member fenced again and again rejoins at once the
// first time, then on the growing retry backoff; a successful heartbeat
// starts over. Over 600 ms of UNKNOWN_MEMBER_ID answered in 1 ms, at most
// the backoff schedule's attempts go out (before: one per round trip).
func TestRepeatedFencingBacksOff(t *testing.T) {
	r, m := stableMember(t)
	r.Elapse(interval)
	fenced := testrig.ErrorCase{Err: kerr.UnknownMemberID}
	answerHB(r, r.Request(m), fenced)

	start, sent := r.Now, 0
	var gaps []time.Duration
	last := r.Now
	for r.Now.Before(start.Add(600 * ms)) {
		st := r.Step()
		if reqs := r.Sent(st, m); len(reqs) > 0 {
			sent++
			gaps = append(gaps, r.Now.Sub(last))
			last = r.Now
			r.Elapse(ms) // the round trip
			answerHB(r, r.Only(st, m), fenced)
			continue
		}
		res := r.Result(st, m)
		if res.Kind != reactor.KindRetryAt {
			t.Fatalf("fenced member %s, want a rejoin sent or RetryAt", testrig.Describe(res, r.Now))
		}
		r.Now = res.At
	}
	if bound := r.Back.MaxAttemptsIn(600 * ms); sent > bound {
		t.Fatalf("%d heartbeats in 600 ms of repeated fencing, want <= %d", sent, bound)
	}
	// 0 (immediate), then 100, 200, 400 ms (+1 ms round trip each).
	want := []time.Duration{0, 101 * ms, 201 * ms, 401 * ms}
	for i := range min(len(gaps), len(want)) {
		if gaps[i] != want[i] {
			t.Fatalf("rejoin gaps %v, want %v", gaps, want)
		}
	}
	t.Logf("%d heartbeats in 600 ms of UNKNOWN_MEMBER_ID (gaps %v)", sent, gaps)

	// A successful join resets the count: the next fencing rejoins at once.
	st := r.Step()
	for len(r.Sent(st, m)) == 0 {
		res := r.Result(st, m)
		if res.Kind != reactor.KindRetryAt {
			t.Fatalf("fenced member %s, want RetryAt", testrig.Describe(res, r.Now))
		}
		r.Now = res.At
		st = r.Step()
	}
	r.Answer(r.Only(st, m), hbAnswer(0, 5, false), nil)
	r.Elapse(interval)
	answerHB(r, r.Request(m), fenced)
	r.Request(m)
}

// CONTRACT-2: FindCoordinator answered GROUP_AUTHORIZATION_FAILED
// reaches the application through membership once per failed discovery (in
// any member state), and in the step that raises it: the round is polled
// again, so a waiting Poll in the application manager (the probe, polled
// first) sees it now; discovery keeps backing off.
func TestCoordinatorFailureIsRaisedOncePerDiscovery(t *testing.T) {
	r, m := memberRig(t) // unsubscribed: manual assignment
	var owed []error
	r.Probe.OnPoll(func(*reactor.Tx, group.View) { owed = append(owed, m.TakeErrors()...) }) // the application's Poll
	r.Do("coordinator moved", func(*reactor.Tx) { r.Coord.MarkUnknown(coordNode, kerr.NotCoordinator) })
	r.Elapse(time.Hour)
	r.FindCoordinator(kerr.GroupAuthorizationFailed)
	owed = nil
	st := r.Step()
	if len(owed) != 1 || !errors.Is(owed[0], kerr.GroupAuthorizationFailed) || st.Rounds != 2 {
		t.Fatalf("the application took %v in a step of %d rounds, want GROUP_AUTHORIZATION_FAILED in the same step (a second round)", owed, st.Rounds)
	}
	disc := r.Result(st, r.Coord)
	if disc.Kind != reactor.KindRetryAt || !disc.At.Equal(r.Now.Add(r.Back.Delay(1))) {
		t.Fatalf("discovery after the failure: %s, want RetryAt(+%s)", testrig.Describe(disc, r.Now), r.Back.Delay(1))
	}
	owed = nil
	if st := r.Step(); len(owed) != 0 || st.Rounds != 1 {
		t.Fatalf("the same failure raised twice: %v (%d rounds)", owed, st.Rounds)
	}
	r.Now = disc.At
	r.FindCoordinator(kerr.GroupAuthorizationFailed)
	owed = nil
	st = r.Step()
	if len(owed) != 1 {
		t.Fatalf("second failed discovery owed %v, want one error", owed)
	}
	if res := r.Result(st, r.Coord); !res.At.Equal(r.Now.Add(r.Back.Delay(2))) {
		t.Fatalf("second backoff %s, want +%s", testrig.Describe(res, r.Now), r.Back.Delay(2))
	}
}

// A leave is best effort: any answer ends membership; a coordinator error
// also marks the coordinator unknown.
func TestLeaveEndsOnAnyAnswer(t *testing.T) {
	for _, c := range []testrig.ErrorCase{{Err: kerr.NotCoordinator}, {Err: kerr.UnknownMemberID}, {Err: testrig.ErrTransport}} {
		r, m := stableMember(t)
		r.Do("leave", func(*reactor.Tx) { m.Leave() })
		req := r.Request(m)
		if hbEpoch(req) != -1 {
			t.Fatalf("leave with epoch %d", hbEpoch(req))
		}
		answerHB(r, req, c)
		_, known := r.Coord.Known()
		if m.State() != managers.MemberLeft || !m.Done() || known == (managers.Class(kmsg.ConsumerGroupHeartbeat, managers.ScopeResponse, c.Err) == managers.ClassCoordinator) {
			t.Fatalf("%v: state %s, coordinator known %v", c.Err, m.State(), known)
		}
	}
}

// The coordinator's rediscovery backoff grows while it keeps moving and
// starts over once a heartbeat succeeds.
func TestCoordinatorRediscoveryGrows(t *testing.T) {
	r, m := stableMember(t)
	r.Elapse(interval)
	// A coordinator that keeps answering NOT_COORDINATOR right after being
	// found: the n-th rediscovery waits Backoff.Delay(n) after the last answer
	// (the first one here long after discovery, so at once). Discovery is
	// polled before membership, so it decides in the step membership
	// starts waiting for it.
	for i, want := range []time.Duration{0, 200 * ms, 400 * ms, 800 * ms} {
		answerHB(r, r.Request(m), testrig.ErrorCase{Err: kerr.NotCoordinator})
		st := r.Step()
		if res := r.Result(st, m); res.Kind != reactor.KindAwait || res.Inputs&reactor.InputCoordinator == 0 {
			t.Fatalf("move %d: membership %s, want Await(coordinator)", i+1, testrig.Describe(res, r.Now))
		}
		found := r.Now
		if want == 0 { // the first move after a long-stable coordinator
			r.Answer(r.Only(st, r.Coord), testrig.FindAnswer(nil), nil)
			continue
		}
		disc := r.Result(st, r.Coord)
		if disc.Kind != reactor.KindRetryAt || disc.At.Sub(found) != want {
			t.Fatalf("move %d: rediscovery %s, want RetryAt(+%s)", i+1, testrig.Describe(disc, r.Now), want)
		}
		r.Now = disc.At
		r.FindCoordinator(nil)
	}
	// A good heartbeat confirms the coordinator: the next move waits one
	// step again.
	r.Answer(r.Request(m), hbAnswer(0, 1, false), nil)
	r.Elapse(interval)
	answerHB(r, r.Request(m), testrig.ErrorCase{Err: kerr.NotCoordinator})
	if st := r.Step(); len(r.Sent(st, r.Coord)) != 1 {
		t.Fatalf("a confirmed coordinator moved long after its discovery: %s, want a FindCoordinator sent", testrig.Describe(r.Result(st, r.Coord), r.Now))
	}
}
