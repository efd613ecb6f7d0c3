package share_test

import (
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/internal/testrig"
	"github.com/kreactor/kreactor/managers/share"
	"github.com/kreactor/kreactor/reactor"
)

const interval = time.Second

func shbAnswer(code int16, epoch int32, assign bool) *kmsg.ShareGroupHeartbeatResponse {
	resp := kmsg.NewPtrShareGroupHeartbeatResponse()
	resp.ErrorCode, resp.MemberEpoch, resp.HeartbeatIntervalMillis = code, epoch, int32(interval/ms)
	if assign {
		a := kmsg.NewShareGroupHeartbeatResponseAssignment()
		at := kmsg.NewShareGroupHeartbeatResponseAssignmentTopicPartition()
		at.TopicID, at.Partitions = testrig.TopicID, []int32{0, 1, 2}
		a.TopicPartitions = append(a.TopicPartitions, at)
		resp.Assignment = &a
	}
	return resp
}

func shbEpoch(req *reactor.Request) int32 {
	return req.Payload.(*managers.Call).Req.(*kmsg.ShareGroupHeartbeatRequest).MemberEpoch
}

// stableShareMember returns a rig over a share membership manager that
// subscribed, joined and was assigned the three partitions.
func stableShareMember(t *testing.T) (*rig, *share.Membership) {
	t.Helper()
	r := newRig(t)
	m := share.NewMembership(testrig.GroupID, 5*time.Minute, r.Back, r.Coord)
	r.member = m
	r.Start(r.view, m)
	r.Do("subscribe", func(tx *reactor.Tx) { m.Subscribe([]string{testrig.Topic}); m.OnPoll(tx.Now) })
	r.Answer(r.Request(m), shbAnswer(0, 1, true), nil)
	r.Step() // resolves the assignment's topic names
	if assigned, _ := m.Assigned(); m.State() != managers.MemberStable || len(assigned) != 3 {
		t.Fatalf("member %s assigned %v, want stable with 3 partitions", m.State(), assigned)
	}
	return r, m
}

func answerSHB(r *rig, req *reactor.Request, c testrig.ErrorCase) {
	r.Complete(req, c, func(code int16) any { return shbAnswer(code, 0, false) })
}

// Every error the table lists for ShareGroupHeartbeat, answered to a stable
// share member's heartbeat, has the effect its class says.
func TestShareHeartbeatErrorsByClass(t *testing.T) {
	for _, c := range testrig.ErrorCases(t, kmsg.ShareGroupHeartbeat, managers.ScopeResponse) {
		t.Run(c.Name(), func(t *testing.T) {
			r, m := stableShareMember(t)
			r.Elapse(interval)
			answerSHB(r, r.Request(m), c)
			st := r.Step()
			res := r.Result(st, m)
			owed := m.TakeErrors()
			assigned, _ := m.Assigned()
			switch {
			case c.Row.Class == managers.ClassCoordinator:
				if _, known := r.Coord.Known(); known || res.Kind != reactor.KindAwait || res.Inputs&reactor.InputCoordinator == 0 {
					t.Fatalf("coordinator known %v, membership %s: want rediscovery", known, testrig.Describe(res, r.Now))
				}
			case c.Row.Class == managers.ClassFenced:
				if epoch := shbEpoch(r.Only(st, m)); epoch != 0 || len(assigned) != 0 {
					t.Fatalf("rejoin with epoch %d assigned %v", epoch, assigned)
				}
			case c.Row.Fatal:
				if m.State() != managers.MemberFatal || !errors.Is(m.LastError(), c.Err) || len(assigned) != 0 || !m.Done() {
					t.Fatalf("state %s, last error %v, assigned %v: want fatal", m.State(), m.LastError(), assigned)
				}
			default:
				if res.Kind != reactor.KindRetryAt || !res.At.Equal(r.Now.Add(r.Back.Delay(1))) || m.State() != managers.MemberStable {
					t.Fatalf("membership %s in state %s, want RetryAt(+%s)", testrig.Describe(res, r.Now), m.State(), r.Back.Delay(1))
				}
				wantOwed := c.Row.Class == managers.ClassAuthorization || c.Row.Class == managers.ClassFailed
				if wantOwed != (len(owed) == 1) || (wantOwed && !errors.Is(owed[0], c.Err)) {
					t.Fatalf("owed %v for %s", owed, c.Row.ClassName())
				}
			}
		})
	}
}

// Repeated fencing of a share member backs off as a regular member's does.
func TestShareRepeatedFencingBacksOff(t *testing.T) {
	r, m := stableShareMember(t)
	r.Elapse(interval)
	fenced := testrig.ErrorCase{Err: kerr.UnknownMemberID}
	answerSHB(r, r.Request(m), fenced)
	answerSHB(r, r.Request(m), fenced) // the first rejoin is immediate
	if res := r.Result(r.Step(), m); res.Kind != reactor.KindRetryAt || !res.At.Equal(r.Now.Add(r.Back.Delay(1))) {
		t.Fatalf("second rejoin %s, want RetryAt(+%s)", testrig.Describe(res, r.Now), r.Back.Delay(1))
	}
	// A member rejoining with nothing in flight has nothing to leave.
	r.Do("leave", func(*reactor.Tx) { m.Leave() })
	if m.State() != managers.MemberLeft || !m.Done() {
		t.Fatalf("state %s after leaving while rejoining", m.State())
	}
}

// A leave heartbeat is best effort: any answer ends membership, and a
// coordinator error also marks the coordinator unknown.
func TestShareLeaveEndsOnAnyAnswer(t *testing.T) {
	for _, c := range []testrig.ErrorCase{{Err: kerr.NotCoordinator}, {Err: kerr.GroupAuthorizationFailed}, {Err: testrig.ErrTransport}} {
		r, m := stableShareMember(t)
		r.Do("leave", func(*reactor.Tx) { m.Leave() })
		req := r.Request(m)
		if shbEpoch(req) != -1 {
			t.Fatalf("leave with epoch %d", shbEpoch(req))
		}
		answerSHB(r, req, c)
		_, known := r.Coord.Known()
		if m.State() != managers.MemberLeft || known == (managers.Class(kmsg.ShareGroupHeartbeat, managers.ScopeResponse, c.Err) == managers.ClassCoordinator) {
			t.Fatalf("%v: state %s, coordinator known %v", c.Err, m.State(), known)
		}
	}
}
