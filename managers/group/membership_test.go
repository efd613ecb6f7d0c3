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

// answer completes a heartbeat with an error case (a code, or a transport
// failure).
func answerHB(r *rig, req *reactor.Request, c testrig.ErrorCase) {
	r.Complete(req, c, func(code int16) any { return hbAnswer(code, 0, false) })
}

// stableMember joins, is assigned the three partitions and acknowledges
// them.
func stableMember(t *testing.T, r *rig) *group.Membership {
	t.Helper()
	m := group.NewMembership(groupID, rebalanceTO, r.Back, r.Coord)
	m.Subscribe([]string{topic})
	join := r.Only(m.Poll(r.Tx(), r.view(m)))
	if req := join.Payload.(*managers.Call).Req.(*kmsg.ConsumerGroupHeartbeatRequest); req.MemberEpoch != 0 {
		t.Fatalf("join with epoch %d", req.MemberEpoch)
	}
	join.OnComplete(r.Tx(), hbAnswer(0, 1, true), nil)
	ack := r.Only(m.Poll(r.Tx(), r.view(m)))
	ack.OnComplete(r.Tx(), hbAnswer(0, 1, false), nil)
	if owned, _ := m.Owned(); m.State() != group.MemberStable || len(owned) != 3 {
		t.Fatalf("member %s owning %v, want stable with 3 partitions", m.State(), owned)
	}
	return m
}

// Every error the table lists for ConsumerGroupHeartbeat, answered to a
// stable member's heartbeat, has the effect its class says.
func TestHeartbeatErrorsByClass(t *testing.T) {
	for _, c := range testrig.ErrorCases(t, kmsg.ConsumerGroupHeartbeat, managers.ScopeResponse) {
		t.Run(c.Name(), func(t *testing.T) {
			r := newRig(t)
			m := stableMember(t, r)
			r.Advance(interval)
			answerHB(r, r.Only(m.Poll(r.Tx(), r.view(m))), c)
			res := m.Poll(r.Tx(), r.view(m))
			owed := m.TakeErrors()
			owned, _ := m.Owned()
			switch {
			case c.Row.Class == managers.ClassCoordinator:
				if _, known := r.Coord.Known(); known || m.State() != group.MemberStable || len(owed) != 0 {
					t.Fatalf("coordinator known %v, state %s, owed %v: want rediscovery, still stable", known, m.State(), owed)
				}
				if res.Kind != reactor.KindAwait || res.Inputs&reactor.InputCoordinator == 0 {
					t.Fatalf("poll = %s, want Await(coordinator)", res)
				}
			case c.Row.Class == managers.ClassFenced:
				req := r.Only(res) // the first rejoin goes at once
				if hb := req.Payload.(*managers.Call).Req.(*kmsg.ConsumerGroupHeartbeatRequest); hb.MemberEpoch != 0 || len(owned) != 0 {
					t.Fatalf("rejoin with epoch %d owning %v, want epoch 0 owning nothing", hb.MemberEpoch, owned)
				}
			case c.Row.Fatal:
				if m.State() != group.MemberFatal || !errors.Is(m.LastError(), c.Err) || len(owned) != 0 || res.Kind != reactor.KindIdle {
					t.Fatalf("state %s, last error %v, owned %v, poll %s: want fatal", m.State(), m.LastError(), owned, res)
				}
			case c.Row.Class == managers.ClassAuthorization, c.Row.Class == managers.ClassFailed:
				if len(owed) != 1 || !errors.Is(owed[0], c.Err) {
					t.Fatalf("owed %v, want %v", owed, c.Err)
				}
				fallthrough
			default: // retriable
				if res.Kind != reactor.KindRetryAt || res.At != r.Now.Add(r.Back.Delay(1)) || m.State() != group.MemberStable {
					t.Fatalf("poll = %s in state %s, want RetryAt(+%s) while stable", res, m.State(), r.Back.Delay(1))
				}
				if c.Row.Class == managers.ClassRetriable && len(owed) != 0 {
					t.Fatalf("a retriable error owed %v to the application", owed)
				}
			}
		})
	}
}

// Issue 10 item 4: a member fenced again and again rejoins at once the
// first time, then on the growing retry backoff; a successful heartbeat
// starts over. Over 600 ms of UNKNOWN_MEMBER_ID answered in 1 ms, at most
// the backoff schedule's attempts go out (before: one per round trip).
func TestRepeatedFencingBacksOff(t *testing.T) {
	r := newRig(t)
	m := stableMember(t, r)
	r.Advance(interval)
	fenced := testrig.ErrorCase{Err: kerr.UnknownMemberID}
	answerHB(r, r.Only(m.Poll(r.Tx(), r.view(m))), fenced)

	start, sent := r.Now, 0
	var gaps []time.Duration
	last := r.Now
	for r.Now.Before(start.Add(600 * ms)) {
		res := m.Poll(r.Tx(), r.view(m))
		if res.Kind == reactor.KindReady {
			sent++
			gaps = append(gaps, r.Now.Sub(last))
			last = r.Now
			r.Advance(ms) // the round trip
			answerHB(r, res.Requests[0], fenced)
			continue
		}
		if res.Kind != reactor.KindRetryAt {
			t.Fatalf("fenced member polled %s, want Ready or RetryAt", res)
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
	res := m.Poll(r.Tx(), r.view(m))
	for res.Kind == reactor.KindRetryAt {
		r.Now = res.At
		res = m.Poll(r.Tx(), r.view(m))
	}
	r.Only(res).OnComplete(r.Tx(), hbAnswer(0, 5, false), nil)
	r.Advance(interval)
	answerHB(r, r.Only(m.Poll(r.Tx(), r.view(m))), fenced)
	r.Only(m.Poll(r.Tx(), r.view(m)))
}

// Issue 10 item 2: FindCoordinator answered GROUP_AUTHORIZATION_FAILED
// reaches the application through membership once per failed discovery (in
// any member state), and a repoll is asked so a waiting Poll sees it now;
// discovery keeps backing off.
func TestCoordinatorFailureIsRaisedOncePerDiscovery(t *testing.T) {
	r := newRig(t)
	r.Coord.MarkUnknown(coordNode, kerr.NotCoordinator)
	r.Advance(time.Hour)
	r.FindCoordinator(kerr.GroupAuthorizationFailed)
	m := group.NewMembership(groupID, rebalanceTO, r.Back, r.Coord) // unsubscribed: manual assignment
	repolls := r.Host.Repolls
	m.Poll(r.Tx(), r.view(m))
	owed := m.TakeErrors()
	if len(owed) != 1 || !errors.Is(owed[0], kerr.GroupAuthorizationFailed) || r.Host.Repolls != repolls+1 {
		t.Fatalf("owed %v after %d repolls, want GROUP_AUTHORIZATION_FAILED and one repoll", owed, r.Host.Repolls-repolls)
	}
	m.Poll(r.Tx(), r.view(m))
	if owed := m.TakeErrors(); len(owed) != 0 {
		t.Fatalf("the same failure raised twice: %v", owed)
	}
	res := r.Coord.Poll(r.Tx(), true, r.Meta.Addrs())
	if res.Kind != reactor.KindRetryAt || res.At != r.Now.Add(r.Back.Delay(1)) {
		t.Fatalf("discovery after the failure: %s, want RetryAt(+%s)", res, r.Back.Delay(1))
	}
	r.Now = res.At
	r.FindCoordinator(kerr.GroupAuthorizationFailed)
	m.Poll(r.Tx(), r.view(m))
	if owed := m.TakeErrors(); len(owed) != 1 {
		t.Fatalf("second failed discovery owed %v, want one error", owed)
	}
	if res := r.Coord.Poll(r.Tx(), true, r.Meta.Addrs()); res.At != r.Now.Add(r.Back.Delay(2)) {
		t.Fatalf("second backoff %s, want +%s", res, r.Back.Delay(2))
	}
}

// A leave is best effort: any answer ends membership; a coordinator error
// also marks the coordinator unknown.
func TestLeaveEndsOnAnyAnswer(t *testing.T) {
	for _, c := range []testrig.ErrorCase{{Err: kerr.NotCoordinator}, {Err: kerr.UnknownMemberID}, {Err: testrig.ErrTransport}} {
		r := newRig(t)
		m := stableMember(t, r)
		m.Leave()
		req := r.Only(m.Poll(r.Tx(), r.view(m)))
		if hb := req.Payload.(*managers.Call).Req.(*kmsg.ConsumerGroupHeartbeatRequest); hb.MemberEpoch != -1 {
			t.Fatalf("leave with epoch %d", hb.MemberEpoch)
		}
		answerHB(r, req, c)
		_, known := r.Coord.Known()
		if m.State() != group.MemberLeft || !m.Done() || known == (managers.Class(kmsg.ConsumerGroupHeartbeat, managers.ScopeResponse, c.Err) == managers.ClassCoordinator) {
			t.Fatalf("%v: state %s, coordinator known %v", c.Err, m.State(), known)
		}
	}
}

// The coordinator's rediscovery backoff grows while it keeps moving and
// starts over once a heartbeat succeeds.
func TestCoordinatorRediscoveryGrows(t *testing.T) {
	r := newRig(t)
	m := stableMember(t, r)
	r.Advance(interval)
	// A coordinator that keeps answering NOT_COORDINATOR right after being
	// found: the n-th rediscovery waits Backoff.Delay(n) after the last answer
	// (the first one here long after discovery, so at once).
	for i, want := range []time.Duration{0, 200 * ms, 400 * ms, 800 * ms} {
		answerHB(r, r.Only(m.Poll(r.Tx(), r.view(m))), testrig.ErrorCase{Err: kerr.NotCoordinator})
		if res := m.Poll(r.Tx(), r.view(m)); res.Kind != reactor.KindAwait || res.Inputs&reactor.InputCoordinator == 0 {
			t.Fatalf("move %d: membership %s, want Await(coordinator)", i+1, res)
		}
		found := r.Now
		disc := r.Coord.Poll(r.Tx(), true, r.Meta.Addrs())
		if want == 0 { // the first move after a long-stable coordinator
			r.AnswerFind(r.Only(disc), nil)
			continue
		}
		if disc.Kind != reactor.KindRetryAt || disc.At.Sub(found) != want {
			t.Fatalf("move %d: rediscovery %s, want RetryAt(+%s)", i+1, disc, want)
		}
		r.Now = disc.At
		r.FindCoordinator(nil)
	}
	// A good heartbeat confirms the coordinator: the next move waits one
	// step again.
	r.Only(m.Poll(r.Tx(), r.view(m))).OnComplete(r.Tx(), hbAnswer(0, 1, false), nil)
	r.Advance(interval)
	answerHB(r, r.Only(m.Poll(r.Tx(), r.view(m))), testrig.ErrorCase{Err: kerr.NotCoordinator})
	if disc := r.Coord.Poll(r.Tx(), true, r.Meta.Addrs()); disc.Kind != reactor.KindReady {
		t.Fatalf("a confirmed coordinator moved long after its discovery: %s, want Ready", disc)
	}
}
