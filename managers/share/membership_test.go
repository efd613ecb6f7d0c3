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

func (r *rig) memberView(m *share.Membership) share.View {
	coord, known := r.Coord.Known()
	assigned, ver := m.Assigned()
	return share.View{Coordinator: coord, CoordinatorKnown: known, Meta: r.Meta, GroupID: testrig.GroupID,
		InGroup: m.Joined(), MemberID: m.MemberID(), MemberEpoch: m.Epoch(), Assignment: assigned, AssignmentVersion: ver}
}

func stableShareMember(t *testing.T, r *rig) *share.Membership {
	t.Helper()
	m := share.NewMembership(testrig.GroupID, r.Back, r.Coord)
	m.Subscribe([]string{testrig.Topic})
	r.Only(m.Poll(r.Tx(), r.memberView(m))).OnComplete(r.Tx(), shbAnswer(0, 1, true), nil)
	m.Poll(r.Tx(), r.memberView(m)) // resolves the assignment's topic names
	if assigned, _ := m.Assigned(); m.State() != share.MemberStable || len(assigned) != 3 {
		t.Fatalf("member %s assigned %v, want stable with 3 partitions", m.State(), assigned)
	}
	return m
}

func answerSHB(r *rig, req *reactor.Request, c testrig.ErrorCase) {
	r.Complete(req, c, func(code int16) any { return shbAnswer(code, 0, false) })
}

// Every error the table lists for ShareGroupHeartbeat, answered to a stable
// share member's heartbeat, has the effect its class says.
func TestShareHeartbeatErrorsByClass(t *testing.T) {
	for _, c := range testrig.ErrorCases(t, kmsg.ShareGroupHeartbeat, managers.ScopeResponse) {
		t.Run(c.Name(), func(t *testing.T) {
			r := newRig(t)
			m := stableShareMember(t, r)
			r.Advance(interval)
			answerSHB(r, r.Only(m.Poll(r.Tx(), r.memberView(m))), c)
			res := m.Poll(r.Tx(), r.memberView(m))
			owed := m.TakeErrors()
			assigned, _ := m.Assigned()
			switch {
			case c.Row.Class == managers.ClassCoordinator:
				if _, known := r.Coord.Known(); known || res.Kind != reactor.KindAwait || res.Inputs&reactor.InputCoordinator == 0 {
					t.Fatalf("coordinator known %v, poll %s: want rediscovery", known, res)
				}
			case c.Row.Class == managers.ClassFenced:
				if hb := r.Only(res).Payload.(*managers.Call).Req.(*kmsg.ShareGroupHeartbeatRequest); hb.MemberEpoch != 0 || len(assigned) != 0 {
					t.Fatalf("rejoin with epoch %d assigned %v", hb.MemberEpoch, assigned)
				}
			case c.Row.Fatal:
				if m.State() != share.MemberFatal || !errors.Is(m.LastError(), c.Err) || len(assigned) != 0 || !m.Done() {
					t.Fatalf("state %s, last error %v, assigned %v: want fatal", m.State(), m.LastError(), assigned)
				}
			default:
				if res.Kind != reactor.KindRetryAt || res.At != r.Now.Add(r.Back.Delay(1)) || m.State() != share.MemberStable {
					t.Fatalf("poll %s in state %s, want RetryAt(+%s)", res, m.State(), r.Back.Delay(1))
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
	r := newRig(t)
	m := stableShareMember(t, r)
	r.Advance(interval)
	fenced := testrig.ErrorCase{Err: kerr.UnknownMemberID}
	answerSHB(r, r.Only(m.Poll(r.Tx(), r.memberView(m))), fenced)
	answerSHB(r, r.Only(m.Poll(r.Tx(), r.memberView(m))), fenced) // the first rejoin is immediate
	if res := m.Poll(r.Tx(), r.memberView(m)); res.Kind != reactor.KindRetryAt || res.At != r.Now.Add(r.Back.Delay(1)) {
		t.Fatalf("second rejoin %s, want RetryAt(+%s)", res, r.Back.Delay(1))
	}
	// A member rejoining with nothing in flight has nothing to leave.
	m.Leave()
	if m.State() != share.MemberLeft || !m.Done() {
		t.Fatalf("state %s after leaving while rejoining", m.State())
	}
}

// A leave heartbeat is best effort: any answer ends membership, and a
// coordinator error also marks the coordinator unknown.
func TestShareLeaveEndsOnAnyAnswer(t *testing.T) {
	for _, c := range []testrig.ErrorCase{{Err: kerr.NotCoordinator}, {Err: kerr.GroupAuthorizationFailed}, {Err: testrig.ErrTransport}} {
		r := newRig(t)
		m := stableShareMember(t, r)
		m.Leave()
		req := r.Only(m.Poll(r.Tx(), r.memberView(m)))
		if hb := req.Payload.(*managers.Call).Req.(*kmsg.ShareGroupHeartbeatRequest); hb.MemberEpoch != -1 {
			t.Fatalf("leave with epoch %d", hb.MemberEpoch)
		}
		answerSHB(r, req, c)
		_, known := r.Coord.Known()
		if m.State() != share.MemberLeft || known == (managers.Class(kmsg.ShareGroupHeartbeat, managers.ScopeResponse, c.Err) == managers.ClassCoordinator) {
			t.Fatalf("%v: state %s, coordinator known %v", c.Err, m.State(), known)
		}
	}
}
