package fakebroker

import (
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ConsumerGroupHeartbeat (key 68, KIP-848) requests Kafka 4.4 refuses
// before they reach the group (measured by specs/fidelity against 4.4.0).
// GroupCoordinatorService.consumerGroupHeartbeat checks every request
// (throwIfConsumerGroupHeartbeatRequestIsInvalid) after KafkaApis
// authorized it and before it schedules the heartbeat on the group's
// coordinator shard, so a request it refuses changes nothing and is
// refused by every broker, coordinator of the group or not. The answer
// carries the error and its message and nothing else (no member id, epoch
// 0, no heartbeat interval). In Kafka's order (heartbeatRefusal):
//
//   - a blank MemberId (empty or only whitespace) from version 1, or on
//     a heartbeat (epoch above 0) or leave (-1) of version 0;
//   - a blank GroupId, and an InstanceId or RackId that is set but blank;
//   - a join (epoch 0) without RebalanceTimeoutMs (-1), with TopicPartitions
//     null or not empty, or with neither SubscribedTopicNames nor
//     SubscribedTopicRegex;
//   - a static member's leave (epoch -2) without InstanceId, and an epoch
//     below -2;
//   - a ServerAssignor Kafka does not have (UNSUPPORTED_ASSIGNOR), any
//     epoch.
//
// All are INVALID_REQUEST but the last. kfake checks only the join's
// TopicPartitions (and an unknown assignor, once it has already rebound a
// static member's instance id) and applies the rest. The one a client
// trips on: franz-go's kgo (v1.22.3) leaves as a static member with epoch
// -2 and no InstanceId. Kafka refuses the leave, the member stays in the
// group until its session times out, and a consumer restarted with the
// same instance id is refused UNRELEASED_INSTANCE_ID meanwhile; kfake
// marked the member as left by its member id, and the restarted consumer
// got its partitions back: specs/scenarios/group-static-member-rejoin.yaml
// on kgo passed on kfake and failed on Kafka 4.4.0 (the restarted consumer
// never assigned).
//
// A rewrite of the answer cannot undo what kfake applied, so the refusal
// is made by kfake: two kfake Faults (INVALID_REQUEST and
// UNSUPPORTED_ASSIGNOR) whose When selects the requests Kafka refuses,
// installed by Start, and the tap adds Kafka's message to their answer
// (answerConsumerGroupHeartbeat). kfake checks faults on a heartbeat
// after its controls, after its coordinator check and before it touches
// the group's members, so what else acts on the request still does: the
// recorder keeps its bytes, holds and delays hold and delay it, observers
// see it as the client sent it. Faults answer in the order installed, and
// every fault installed through the Broker (Fault, AnswerKeyWithError,
// CoordinatorUnavailable, Inject) that can answer a ConsumerGroupHeartbeat
// moves the refusals after itself (keepHeartbeatRefusalsLast), so the
// error a spec injects is answered in place of the refusal, as a fault
// proxy in front of a real broker answers it. (A fault installed on kfake
// directly, Cluster().Fault, comes after the refusals.) kfake answers a
// few errors before its fault check, a broker that is not the group's
// coordinator NOT_COORDINATOR among them; Kafka refuses such a request
// all the same, and the tap answers the refusal in their place while no
// fault answers heartbeats. The group kfake creates for any heartbeat
// naming an unknown group (see FIDELITY-HEARTBEAT-UNKNOWN-GROUP) stays.
// Config.KfakeAnswers leaves the refusals out.
func heartbeatRefusal(req *kmsg.ConsumerGroupHeartbeatRequest) (int16, string) {
	invalid := kerr.InvalidRequest.Code
	if (req.Version >= 1 || req.MemberEpoch > 0 || req.MemberEpoch == -1) && blank(&req.MemberID) {
		return invalid, "MemberId can't be empty."
	}
	switch {
	case blank(&req.Group):
		return invalid, "GroupId can't be empty."
	case blank(req.InstanceID):
		return invalid, "InstanceId can't be empty."
	case blank(req.RackID):
		return invalid, "RackId can't be empty."
	}
	switch {
	case req.MemberEpoch == 0:
		switch {
		case req.RebalanceTimeoutMillis == -1:
			return invalid, "RebalanceTimeoutMs must be provided in first request."
		case req.Topics == nil || len(req.Topics) > 0:
			return invalid, "TopicPartitions must be empty when (re-)joining."
		case req.SubscribedTopicNames == nil && req.SubscribedTopicRegex == nil:
			return invalid, "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining."
		}
	case req.MemberEpoch == -2 && req.InstanceID == nil:
		return invalid, "InstanceId can't be null."
	case req.MemberEpoch < -2:
		return invalid, "MemberEpoch is invalid."
	}
	if a := req.ServerAssignor; a != nil && !slices.Contains(serverAssignors, *a) {
		return kerr.UnsupportedAssignor.Code, fmt.Sprintf("ServerAssignor %s is not supported. Supported assignors: %s.", *a, strings.Join(serverAssignors, ", "))
	}
	return 0, ""
}

// serverAssignors are the KIP-848 assignors of Kafka 4.4's default
// group.consumer.assignors, by name in its order; kfake has the same two.
var serverAssignors = []string{"uniform", "range"}

// blank reports whether s is set and empty once trimmed as Java's
// String.trim trims (every character up to the space).
func blank(s *string) bool {
	return s != nil && strings.TrimFunc(*s, func(r rune) bool { return r <= ' ' }) == ""
}

// refusedWith returns the When of the refusal fault answering code.
func refusedWith(code int16) func(kmsg.Request) bool {
	return func(kreq kmsg.Request) bool {
		req, ok := kreq.(*kmsg.ConsumerGroupHeartbeatRequest)
		if !ok {
			return false
		}
		c, _ := heartbeatRefusal(req)
		return c == code
	}
}

// heartbeatRefusalFaults are the kfake Faults that refuse what Kafka
// refuses; each answers its error in place of kfake's handling.
func heartbeatRefusalFaults() []kfake.Fault {
	keys := []kmsg.Key{kmsg.ConsumerGroupHeartbeat}
	return []kfake.Fault{
		{Keys: keys, Err: kerr.InvalidRequest, Count: -1, When: refusedWith(kerr.InvalidRequest.Code)},
		{Keys: keys, Err: kerr.UnsupportedAssignor, Count: -1, When: refusedWith(kerr.UnsupportedAssignor.Code)},
	}
}

// installHeartbeatRefusals installs the refusal faults for the life of the
// Broker, after every fault installed so far.
func (b *Broker) installHeartbeatRefusals() {
	b.refuseMu.Lock()
	defer b.refuseMu.Unlock()
	old := b.refusals
	b.refusals = b.cluster.Fault(heartbeatRefusalFaults()...)
	if old != nil {
		old.Remove() // after the new ones are in: no request slips between
	}
}

// keepHeartbeatRefusalsLast moves the refusal faults after faults, just
// installed, if one of them can answer a ConsumerGroupHeartbeat.
func (b *Broker) keepHeartbeatRefusalsLast(faults []kfake.Fault) {
	if !slices.ContainsFunc(faults, func(f kfake.Fault) bool {
		return len(f.Keys) == 0 || slices.Contains(f.Keys, kmsg.ConsumerGroupHeartbeat)
	}) {
		return
	}
	b.refuseMu.Lock()
	on := b.refusals != nil
	b.refuseMu.Unlock()
	if on {
		b.installHeartbeatRefusals()
	}
}

// kfakeAnswersFirst are the errors kfake answers a ConsumerGroupHeartbeat
// with before its fault check, where Kafka refuses an invalid request
// first: a broker that is not the group's coordinator, a group id that is
// a share group's, an empty group id.
var kfakeAnswersFirst = []int16{kerr.NotCoordinator.Code, kerr.GroupIDNotFound.Code, kerr.InvalidGroupID.Code}

// answerRefusal makes resp, kfake's answer to req, Kafka's refusal of req
// where Kafka refuses it: the refusal faults' answer gets Kafka's message,
// and an error kfake answered before its fault check becomes the refusal
// unless a fault answers heartbeats (kfake answered before it could). An
// error a fault injected stays.
func answerRefusal(b *Broker, req *kmsg.ConsumerGroupHeartbeatRequest, resp *kmsg.ConsumerGroupHeartbeatResponse) bool {
	code, msg := heartbeatRefusal(req)
	if code == 0 {
		return false
	}
	switch {
	case resp.ErrorCode == code && resp.ErrorMessage == nil:
	case slices.Contains(kfakeAnswersFirst, resp.ErrorCode) && !b.injectsAny(kmsg.ConsumerGroupHeartbeat):
	default:
		return false
	}
	refusal := kmsg.NewConsumerGroupHeartbeatResponse()
	refusal.Version, refusal.ThrottleMillis = resp.Version, resp.ThrottleMillis
	refusal.ErrorCode, refusal.ErrorMessage = code, &msg
	*resp = refusal
	return true
}
