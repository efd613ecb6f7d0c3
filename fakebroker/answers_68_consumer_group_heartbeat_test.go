package fakebroker

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/wire"
)

// beatReq is a ConsumerGroupHeartbeat of member in group "g" at epoch with
// instance id instance (nil: none); a join (epoch 0) subscribes to "t".
func beatReq(member string, epoch int32, instance *string) *kmsg.ConsumerGroupHeartbeatRequest {
	req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	req.Group, req.MemberID, req.MemberEpoch, req.InstanceID = "g", member, epoch, instance
	if epoch == 0 {
		req.RebalanceTimeoutMillis, req.SubscribedTopicNames = 5000, []string{"t"}
		req.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	}
	return req
}

// beatTo sends req to node and returns the answer.
func beatTo(ctx context.Context, t *testing.T, cl *kgo.Client, node int32, req *kmsg.ConsumerGroupHeartbeatRequest) *kmsg.ConsumerGroupHeartbeatResponse {
	t.Helper()
	kresp, err := cl.Broker(int(node)).Request(ctx, req)
	if err != nil {
		t.Fatalf("ConsumerGroupHeartbeat (member %q, epoch %d): %v", req.MemberID, req.MemberEpoch, err)
	}
	return kresp.(*kmsg.ConsumerGroupHeartbeatResponse)
}

// refusal is a refused heartbeat's answer as compared: Kafka's carries the
// error and its message, no member, epoch 0 and no interval.
type refusal struct {
	Code     int16
	Message  string
	Member   *string
	Epoch    int32
	Interval int32
}

func refusalOf(r *kmsg.ConsumerGroupHeartbeatResponse) refusal {
	msg := "<null>"
	if r.ErrorMessage != nil {
		msg = *r.ErrorMessage
	}
	return refusal{r.ErrorCode, msg, r.MemberID, r.MemberEpoch, r.HeartbeatIntervalMillis}
}

func invalidRequest(msg string) refusal { return refusal{Code: kerr.InvalidRequest.Code, Message: msg} }

func str(s string) *string { return &s }

// TestStaticLeaveWithoutInstanceIDIsRefused: a static member's leave
// (epoch -2) without InstanceId is refused as Kafka 4.4 refuses it, and the
// member stays: a new member with the same instance id is refused
// UNRELEASED_INSTANCE_ID until the member leaves with its InstanceId, and
// then gets its partitions. kfake applies the leave by the member id.
func TestStaticLeaveWithoutInstanceIDIsRefused(t *testing.T) {
	for _, raw := range []bool{false, true} {
		b, cl, ctx := brokerClient(t, Config{Brokers: 1, Topics: map[string]int32{"t": 2}, KfakeAnswers: raw}, "static")
		inst := str("instance-a")
		if r := beatTo(ctx, t, cl, 0, beatReq("member-a-0123456789abcd", 0, inst)); r.ErrorCode != 0 {
			t.Fatalf("KfakeAnswers %v: static join: %v", raw, kerr.ErrorForCode(r.ErrorCode))
		}
		leave := refusalOf(beatTo(ctx, t, cl, 0, beatReq("member-a-0123456789abcd", -2, nil)))
		rejoin := beatTo(ctx, t, cl, 0, beatReq("member-b-0123456789abcd", 0, inst))
		if raw {
			if leave.Code != 0 || leave.Epoch != -2 || rejoin.ErrorCode != 0 {
				t.Errorf("KfakeAnswers: leave %+v, new member's join %v; want kfake's: the leave applied (epoch -2), the join accepted", leave, kerr.ErrorForCode(rejoin.ErrorCode))
			}
			continue
		}
		if want := invalidRequest("InstanceId can't be null."); leave != want {
			t.Errorf("leave without InstanceId: %+v, want %+v", leave, want)
		}
		if rejoin.ErrorCode != kerr.UnreleasedInstanceID.Code {
			t.Errorf("a new member with the instance id of a member that did not leave: %v, want UNRELEASED_INSTANCE_ID", kerr.ErrorForCode(rejoin.ErrorCode))
		}
		if gi := b.GroupInfo("g"); gi == nil || len(gi.Members) != 1 || gi.Members[0].MemberID != "member-a-0123456789abcd" {
			t.Errorf("group after the refused leave: %+v, want member-a alone", gi)
		}
		if r := beatTo(ctx, t, cl, 0, beatReq("member-a-0123456789abcd", -2, inst)); r.ErrorCode != 0 || r.MemberEpoch != -2 {
			t.Errorf("leave with InstanceId: %v epoch %d, want none and -2", kerr.ErrorForCode(r.ErrorCode), r.MemberEpoch)
		}
		r := beatTo(ctx, t, cl, 0, beatReq("member-b-0123456789abcd", 0, inst))
		if r.ErrorCode != 0 || r.Assignment == nil || len(r.Assignment.Topics) != 1 || len(r.Assignment.Topics[0].Partitions) != 2 {
			t.Errorf("the new member after the leave: %v, assignment %+v; want both partitions", kerr.ErrorForCode(r.ErrorCode), r.Assignment)
		}
	}
}

// TestHeartbeatsKafkaRefuses: every ConsumerGroupHeartbeat Kafka 4.4
// refuses before it reaches the group is refused with its message; kfake
// answers none of them so (it refuses the join's TopicPartitions alone,
// without the interval cleared).
func TestHeartbeatsKafkaRefuses(t *testing.T) {
	join := func(edit func(*kmsg.ConsumerGroupHeartbeatRequest)) *kmsg.ConsumerGroupHeartbeatRequest {
		req := beatReq("member-c-0123456789abcd", 0, nil)
		edit(req)
		return req
	}
	cases := []struct {
		name string
		req  *kmsg.ConsumerGroupHeartbeatRequest
		want refusal
	}{
		{"join without a member id (v1)", join(func(r *kmsg.ConsumerGroupHeartbeatRequest) { r.MemberID = "" }), invalidRequest("MemberId can't be empty.")},
		{"blank member id ahead of an empty group id", join(func(r *kmsg.ConsumerGroupHeartbeatRequest) { r.MemberID, r.Group = " ", "" }), invalidRequest("MemberId can't be empty.")},
		{"empty group id", join(func(r *kmsg.ConsumerGroupHeartbeatRequest) { r.Group = "" }), invalidRequest("GroupId can't be empty.")},
		{"blank instance id", join(func(r *kmsg.ConsumerGroupHeartbeatRequest) { r.InstanceID = str(" \t") }), invalidRequest("InstanceId can't be empty.")},
		{"empty rack id", join(func(r *kmsg.ConsumerGroupHeartbeatRequest) { r.RackID = str("") }), invalidRequest("RackId can't be empty.")},
		{"join without a rebalance timeout", join(func(r *kmsg.ConsumerGroupHeartbeatRequest) { r.RebalanceTimeoutMillis = -1 }), invalidRequest("RebalanceTimeoutMs must be provided in first request.")},
		{"join with null TopicPartitions", join(func(r *kmsg.ConsumerGroupHeartbeatRequest) { r.Topics = nil }), invalidRequest("TopicPartitions must be empty when (re-)joining.")},
		{"join without a subscription", join(func(r *kmsg.ConsumerGroupHeartbeatRequest) { r.SubscribedTopicNames = nil }), invalidRequest("Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.")},
		{"static leave without an instance id", beatReq("member-c-0123456789abcd", -2, nil), invalidRequest("InstanceId can't be null.")},
		{"epoch -3", beatReq("member-c-0123456789abcd", -3, nil), invalidRequest("MemberEpoch is invalid.")},
		{"unknown server assignor", join(func(r *kmsg.ConsumerGroupHeartbeatRequest) { r.ServerAssignor = str("sticky") }),
			refusal{Code: kerr.UnsupportedAssignor.Code, Message: "ServerAssignor sticky is not supported. Supported assignors: uniform, range."}},
	}
	for _, raw := range []bool{false, true} {
		b, cl, ctx := brokerClient(t, Config{Brokers: 1, Topics: map[string]int32{"t": 1}, KfakeAnswers: raw}, "refusals")
		for _, c := range cases {
			got := refusalOf(beatTo(ctx, t, cl, 0, c.req))
			switch {
			case !raw && got != c.want:
				t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
			case raw && got == c.want:
				t.Errorf("KfakeAnswers: %s: %+v, want kfake's own answer", c.name, got)
			}
		}
		if gi := b.GroupInfo("g"); !raw && gi != nil && len(gi.Members) > 0 {
			t.Errorf("after the refused heartbeats: members %+v, want none", gi.Members)
		}
	}
	// v0: a join may leave the member id to the coordinator.
	cl := pinnedClient(t, startBroker(t, Config{Brokers: 1, Topics: map[string]int32{"t": 1}}), kmsg.ConsumerGroupHeartbeat, 0)
	r := beatTo(testCtx(t), t, cl, 0, beatReq("", 0, nil))
	if r.ErrorCode != 0 || r.MemberID == nil || *r.MemberID == "" {
		t.Errorf("v0 join without a member id: %+v, want accepted with a member id", refusalOf(r))
	}
}

// TestHeartbeatRefusalKeepsFaultsHoldsAndObservers: the refusal acts after
// what else acts on ConsumerGroupHeartbeat: a hold still holds a refused
// request (answered with the refusal once released), an observer and the
// recorder see it as sent, a fault installed later answers its error
// instead (kfake's Fault directly or through the Broker, the coordinator
// fault included); a broker that is not the coordinator refuses it too.
func TestHeartbeatRefusalKeepsFaultsHoldsAndObservers(t *testing.T) {
	b, cl, ctx := brokerClient(t, Config{Brokers: 2, Topics: map[string]int32{"t": 1}}, "refusals")
	coord := b.CoordinatorFor("g")
	leave := func() *kmsg.ConsumerGroupHeartbeatRequest { return beatReq("member-d-0123456789abcd", -2, nil) }
	refused := invalidRequest("InstanceId can't be null.")

	observed := make(chan *kmsg.ConsumerGroupHeartbeatRequest, 8)
	oh, err := b.ObserveKey(kmsg.ConsumerGroupHeartbeat, func(_ time.Time, req kmsg.Request) {
		observed <- req.(*kmsg.ConsumerGroupHeartbeatRequest)
	})
	if err != nil {
		t.Fatal(err)
	}
	hold, err := b.HoldKey(kmsg.ConsumerGroupHeartbeat)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *kmsg.ConsumerGroupHeartbeatResponse, 1)
	go func() {
		kresp, err := cl.Broker(int(coord)).Request(ctx, leave())
		if err != nil {
			t.Error(err)
			close(done)
			return
		}
		done <- kresp.(*kmsg.ConsumerGroupHeartbeatResponse)
	}()
	if err := hold.Wait(ctx, 1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		t.Fatal("a held heartbeat was answered before its release")
	case <-time.After(100 * time.Millisecond):
	}
	hold.Release()
	select {
	case r := <-done:
		if r == nil || refusalOf(r) != refused {
			t.Errorf("released: %+v, want the refusal %+v", r, refused)
		}
	case <-ctx.Done():
		t.Fatal("a released heartbeat was not answered")
	}
	if req := <-observed; req.MemberEpoch != -2 || req.InstanceID != nil || req.MemberID != "member-d-0123456789abcd" {
		t.Errorf("observer saw epoch %d instance %v member %q, want the request as sent", req.MemberEpoch, req.InstanceID, req.MemberID)
	}
	oh.Remove()
	if n := b.Recorder().Count(wire.Filter{Keys: []kmsg.Key{kmsg.ConsumerGroupHeartbeat}}); n != 1 {
		t.Errorf("recorder: %d heartbeats, want 1", n)
	}

	if got := refusalOf(beatTo(ctx, t, cl, 1-coord, leave())); got != refused {
		t.Errorf("to the broker that is not the coordinator: %+v, want the refusal %+v", got, refused)
	}

	for _, f := range []struct {
		name    string
		install func() (*Handle, error)
		code    int16
		nodes   []int32 // kfake answers NOT_COORDINATOR before a group's faults
	}{
		{"AnswerKeyWithError", func() (*Handle, error) {
			return b.AnswerKeyWithError(kmsg.ConsumerGroupHeartbeat, kerr.CoordinatorNotAvailable, -1)
		}, kerr.CoordinatorNotAvailable.Code, []int32{coord}},
		{"CoordinatorUnavailable", func() (*Handle, error) { return b.CoordinatorUnavailable("g") }, kerr.NotCoordinator.Code, []int32{coord, 1 - coord}},
		{"a top-level kfake Fault", func() (*Handle, error) {
			return b.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ConsumerGroupHeartbeat}, Err: kerr.RebalanceInProgress, TopLevel: true, Count: -1})
		}, kerr.RebalanceInProgress.Code, []int32{coord, 1 - coord}},
		{"a fault on every key", func() (*Handle, error) {
			return b.Fault(kfake.Fault{Group: "g", Err: kerr.GroupAuthorizationFailed, Count: -1})
		}, kerr.GroupAuthorizationFailed.Code, []int32{coord}},
	} {
		h, err := f.install()
		if err != nil {
			t.Fatal(err)
		}
		for _, node := range f.nodes {
			if r := beatTo(ctx, t, cl, node, leave()); r.ErrorCode != f.code || r.ErrorMessage != nil {
				t.Errorf("%s, to node %d: %+v, want the fault's %v", f.name, node, refusalOf(r), kerr.ErrorForCode(f.code))
			}
		}
		h.Remove()
	}
	if got := refusalOf(beatTo(ctx, t, cl, coord, leave())); got != refused {
		t.Errorf("after the faults are removed: %+v, want the refusal %+v", got, refused)
	}
}
