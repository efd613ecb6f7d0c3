package fidelity

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/suite"
)

// The ConsumerGroupHeartbeats Kafka refuses before they reach the group
// (GroupCoordinatorService.throwIfConsumerGroupHeartbeatRequestIsInvalid),
// sent at version 1, the newest both targets know.
const refusedBeatVersion int16 = 1

// sendBeat sends req to the coordinator of group (req's group may differ:
// an empty one) at refusedBeatVersion.
func sendBeat(ctx context.Context, p *probe, group string, req *kmsg.ConsumerGroupHeartbeatRequest) *kmsg.ConsumerGroupHeartbeatResponse {
	GinkgoHelper()
	return sendBeatAt(ctx, p, group, refusedBeatVersion, req)
}

// refusedAnswer is a heartbeat answer with its error message, as compared.
type refusedAnswer struct {
	beatAnswer
	Message string
}

func refusedAnswerOf(r *kmsg.ConsumerGroupHeartbeatResponse) refusedAnswer {
	return refusedAnswer{consumerAnswer(r), deref(r.ErrorMessage)}
}

// refused is Kafka's answer to a request it refuses: the error and its
// message, no member, epoch 0, no heartbeat interval.
func refused(err, message string) refusedAnswer {
	return refusedAnswer{beatAnswer{err, "<null>", 0, 0}, message}
}

// joinStatic joins member to group with instance id instance, subscribed
// to topic, and heartbeats (with the instance id) until its assignment is
// want; it returns the member epoch.
func joinStatic(ctx context.Context, p *probe, group, member string, instance *string, topic string, want assigned) int32 {
	GinkgoHelper()
	join, epoch, _ := joinUntil(ctx, member, p.cl.HeartbeatInterval(), want, func(epoch int32) *kmsg.ConsumerGroupHeartbeatResponse {
		return sendBeat(ctx, p, group, beat(group, member, instance, epoch, topic))
	})
	Expect(errName(join.ErrorCode)).To(Equal("NONE"), "static join of %s", member)
	return epoch
}

var _ = Describe("ConsumerGroupHeartbeats Kafka refuses", func() {
	It("refuses a static member's leave (epoch -2) without InstanceId with INVALID_REQUEST (\"InstanceId can't be null.\"), the member staying, so a new member with its instance id is refused UNRELEASED_INSTANCE_ID; the leave with the InstanceId is accepted and the new member then gets the partitions back",
		spec("fidelity.static-leave-without-instance-id", itemFidelity), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			_, p, topic := startTopic(ctx, "fid-static", 2)
			all := assigned{p.topicID(ctx, topic): {0, 1}}
			group, instance := suite.UniqueName("fid-static"), suite.UniqueName("fid-instance")
			a, b := memberID(), memberID()
			epoch := joinStatic(ctx, p, group, a, &instance, topic, all)

			leave := refusedAnswerOf(sendBeat(ctx, p, group, beat(group, a, nil, -2)))
			suite.Note("answer_leave_without_instance_id", fmt.Sprint(leave))
			Expect(leave).To(Equal(refused("INVALID_REQUEST", "InstanceId can't be null.")), "the static leave (epoch -2) without InstanceId")
			still := consumerAnswer(sendBeat(ctx, p, group, beat(group, a, &instance, epoch)))
			Expect(still.Error).To(Equal("NONE"), "the member's heartbeat after its refused leave: it is still in the group")
			taken := sendBeat(ctx, p, group, beat(group, b, &instance, 0, topic))
			suite.Note("answer_join_instance_taken", fmt.Sprint(refusedAnswerOf(taken)))
			Expect(consumerAnswer(taken)).To(Equal(beatAnswer{"UNRELEASED_INSTANCE_ID", "<null>", 0, 0}), "a new member's join with the instance id of the member whose leave was refused")

			left := consumerAnswer(sendBeat(ctx, p, group, beat(group, a, &instance, -2)))
			suite.Note("answer_leave_with_instance_id", fmt.Sprint(left))
			Expect(left).To(Equal(beatAnswer{"NONE", a, -2, 0}), "the static leave with its InstanceId")
			joinStatic(ctx, p, group, b, &instance, topic, all)
			Expect(consumerAnswer(sendBeat(ctx, p, group, beat(group, b, &instance, -1)))).To(Equal(beatAnswer{"NONE", b, -1, 0}), "the new member's leave (epoch -1)")
		})

	It("refuses, before the group changes, a heartbeat with a blank MemberId, GroupId, InstanceId or RackId, a join without RebalanceTimeoutMs, with null TopicPartitions or without a subscription, a leave at epoch -2 without InstanceId and an epoch below -2 (INVALID_REQUEST), and an unknown ServerAssignor (UNSUPPORTED_ASSIGNOR), each with Kafka's message",
		spec("fidelity.consumer-group-heartbeat-refused", itemFidelity), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			cl, p, topic := startTopic(ctx, "fid-refused", 1)
			group, member := suite.UniqueName("fid-refused"), memberID()
			join, epoch, _ := joinConsumer(ctx, p, group, member, topic, assigned{p.topicID(ctx, topic): {0}})
			Expect(join.Error).To(Equal("NONE"))

			blank, empty, assignor := " \t", "", "sticky"
			joining := func(edit func(*kmsg.ConsumerGroupHeartbeatRequest)) *kmsg.ConsumerGroupHeartbeatRequest {
				req := beat(group, memberID(), nil, 0, topic)
				edit(req)
				return req
			}
			invalid := func(message string) refusedAnswer { return refused("INVALID_REQUEST", message) }
			for _, c := range []struct {
				name string
				req  *kmsg.ConsumerGroupHeartbeatRequest
				want refusedAnswer
			}{
				{"join_without_member_id", joining(func(r *kmsg.ConsumerGroupHeartbeatRequest) { r.MemberID = "" }), invalid("MemberId can't be empty.")},
				{"heartbeat_blank_member_id", beat(group, blank, nil, epoch), invalid("MemberId can't be empty.")},
				{"join_empty_group_id", joining(func(r *kmsg.ConsumerGroupHeartbeatRequest) { r.Group = "" }), invalid("GroupId can't be empty.")},
				{"join_blank_instance_id", joining(func(r *kmsg.ConsumerGroupHeartbeatRequest) { r.InstanceID = &blank }), invalid("InstanceId can't be empty.")},
				{"join_empty_rack_id", joining(func(r *kmsg.ConsumerGroupHeartbeatRequest) { r.RackID = &empty }), invalid("RackId can't be empty.")},
				{"join_without_rebalance_timeout", joining(func(r *kmsg.ConsumerGroupHeartbeatRequest) { r.RebalanceTimeoutMillis = -1 }), invalid("RebalanceTimeoutMs must be provided in first request.")},
				{"join_null_topic_partitions", joining(func(r *kmsg.ConsumerGroupHeartbeatRequest) { r.Topics = nil }), invalid("TopicPartitions must be empty when (re-)joining.")},
				{"join_without_subscription", joining(func(r *kmsg.ConsumerGroupHeartbeatRequest) { r.SubscribedTopicNames = nil }), invalid("Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.")},
				{"static_leave_without_instance_id", beat(group, member, nil, -2), invalid("InstanceId can't be null.")},
				{"epoch_minus_3", beat(group, member, nil, -3), invalid("MemberEpoch is invalid.")},
				{"join_unknown_assignor", joining(func(r *kmsg.ConsumerGroupHeartbeatRequest) { r.ServerAssignor = &assignor }),
					refused("UNSUPPORTED_ASSIGNOR", "ServerAssignor sticky is not supported. Supported assignors: uniform, range.")},
			} {
				got := refusedAnswerOf(sendBeat(ctx, p, group, c.req))
				suite.Note("answer_"+c.name, fmt.Sprint(got))
				Expect(got).To(Equal(c.want), "%s", c.name)
			}
			interval := int32(cl.HeartbeatInterval().Milliseconds())
			Expect(consumerAnswer(sendBeat(ctx, p, group, beat(group, member, nil, epoch)))).To(Equal(beatAnswer{"NONE", member, epoch, interval}),
				"the member's heartbeat after the refused requests: still in the group at its epoch")
		})
})
