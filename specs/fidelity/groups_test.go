package fidelity

import (
	"context"
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/suite"
)

// coordinatorAnswer is one key of a FindCoordinator answer, as compared.
type coordinatorAnswer struct {
	Node  int32
	Host  string
	Port  int32
	Error string
}

// findCoordinator sends FindCoordinator at version v (v3: one key at the top
// level; v4+: a list) for key of keyType to node and returns the answer.
func findCoordinator(ctx context.Context, p *probe, node int32, v int16, keyType int8, key string) coordinatorAnswer {
	GinkgoHelper()
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.CoordinatorType = keyType
	req.CoordinatorKey, req.CoordinatorKeys = key, []string{key}
	resp := p.send(ctx, node, v, req).(*kmsg.FindCoordinatorResponse)
	if v < 4 {
		return coordinatorAnswer{resp.NodeID, resp.Host, resp.Port, errName(resp.ErrorCode)}
	}
	Expect(resp.Coordinators).To(HaveLen(1), "FindCoordinator v%d for one key", v)
	c := resp.Coordinators[0]
	Expect(c.Key).To(Equal(key))
	return coordinatorAnswer{c.NodeID, c.Host, c.Port, errName(c.ErrorCode)}
}

// noNode is the answer naming no coordinator, with err.
func noNode(err string) coordinatorAnswer { return coordinatorAnswer{-1, "", -1, err} }

// brokerAnswer is node as Metadata lists it, as a coordinator answer.
func brokerAnswer(ctx context.Context, p *probe, node int32) coordinatorAnswer {
	GinkgoHelper()
	for _, b := range p.metadata(ctx).Brokers {
		if b.NodeID == node {
			return coordinatorAnswer{b.NodeID, b.Host, b.Port, "NONE"}
		}
	}
	Fail(fmt.Sprintf("node %d is not in Metadata", node))
	return coordinatorAnswer{}
}

// consumerBeat sends a ConsumerGroupHeartbeat for member of group at epoch
// to its coordinator; a join (epoch 0) subscribes to topics.
func consumerBeat(ctx context.Context, p *probe, group, member string, epoch int32, topics ...string) *kmsg.ConsumerGroupHeartbeatResponse {
	GinkgoHelper()
	return sendBeatAt(ctx, p, group, newest, beat(group, member, nil, epoch, topics...))
}

// beat is a ConsumerGroupHeartbeat of member (static when instance is
// set) at epoch; a join (epoch 0) subscribes to topics with a 5 s
// rebalance timeout.
func beat(group, member string, instance *string, epoch int32, topics ...string) *kmsg.ConsumerGroupHeartbeatRequest {
	req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	req.Group, req.MemberID, req.InstanceID, req.MemberEpoch = group, member, instance, epoch
	if epoch == 0 {
		req.RebalanceTimeoutMillis, req.SubscribedTopicNames = 5000, topics
		req.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	}
	return req
}

// sendBeatAt sends req to the coordinator of group (req's group may
// differ: an empty one) at version (newest: the highest both sides know).
func sendBeatAt(ctx context.Context, p *probe, group string, version int16, req *kmsg.ConsumerGroupHeartbeatRequest) *kmsg.ConsumerGroupHeartbeatResponse {
	GinkgoHelper()
	return p.toCoordinator(ctx, group, version, req, func(r kmsg.Response) int16 {
		return r.(*kmsg.ConsumerGroupHeartbeatResponse).ErrorCode
	}).(*kmsg.ConsumerGroupHeartbeatResponse)
}

// shareBeat is consumerBeat for a share group (ShareGroupHeartbeat).
func shareBeat(ctx context.Context, p *probe, group, member string, epoch int32, topics ...string) *kmsg.ShareGroupHeartbeatResponse {
	GinkgoHelper()
	req := kmsg.NewPtrShareGroupHeartbeatRequest()
	req.GroupID, req.MemberID, req.MemberEpoch = group, member, epoch
	if epoch == 0 {
		req.SubscribedTopicNames = topics
	}
	return p.toCoordinator(ctx, group, newest, req, func(r kmsg.Response) int16 {
		return r.(*kmsg.ShareGroupHeartbeatResponse).ErrorCode
	}).(*kmsg.ShareGroupHeartbeatResponse)
}

// beatAnswer is a heartbeat answer, as compared.
type beatAnswer struct {
	Error    string
	Member   string
	Epoch    int32
	Interval int32 // ms
}

func consumerAnswer(r *kmsg.ConsumerGroupHeartbeatResponse) beatAnswer {
	return beatAnswer{errName(r.ErrorCode), deref(r.MemberID), r.MemberEpoch, r.HeartbeatIntervalMillis}
}

func shareAnswer(r *kmsg.ShareGroupHeartbeatResponse) beatAnswer {
	return beatAnswer{errName(r.ErrorCode), deref(r.MemberID), r.MemberEpoch, r.HeartbeatIntervalMillis}
}

// assigned is an assignment by topic id, partitions sorted.
type assigned map[[16]byte][]int32

// joinConsumer joins member to group subscribed to topic and heartbeats
// until its assignment holds every partition of topic (a real coordinator
// may hand it out a heartbeat later than the join's answer). It returns
// the join answer, the member epoch and the assignment.
func joinConsumer(ctx context.Context, p *probe, group, member, topic string, want assigned) (beatAnswer, int32, assigned) {
	GinkgoHelper()
	join, epoch, got := joinUntil(ctx, topic, p.cl.HeartbeatInterval(), want, func(epoch int32) *kmsg.ConsumerGroupHeartbeatResponse {
		return consumerBeat(ctx, p, group, member, epoch, topic)
	})
	return consumerAnswer(join), epoch, got
}

// joinUntil sends send(0) (a join), then send(epoch) every interval until
// the assignment (the last one answered) is want, each answer without an
// error; what names the member in failure messages. It returns the join's
// answer, the member epoch and the assignment.
func joinUntil(ctx context.Context, what string, interval time.Duration, want assigned, send func(epoch int32) *kmsg.ConsumerGroupHeartbeatResponse) (*kmsg.ConsumerGroupHeartbeatResponse, int32, assigned) {
	GinkgoHelper()
	join := send(0)
	epoch, got := join.MemberEpoch, assigned{}
	record := func(a *kmsg.ConsumerGroupHeartbeatResponseAssignment) {
		if a == nil {
			return
		}
		got = assigned{}
		for _, t := range a.Topics {
			got[t.TopicID] = slices.Sorted(slices.Values(t.Partitions))
		}
	}
	record(join.Assignment)
	Eventually(ctx, func() assigned {
		if !mapsEqual(got, want) {
			r := send(epoch)
			Expect(errName(r.ErrorCode)).To(Equal("NONE"), "heartbeat of %s at epoch %d", what, epoch)
			epoch = r.MemberEpoch
			record(r.Assignment)
		}
		return got
	}).WithTimeout(harness.WaitTimeout).WithPolling(interval).Should(Equal(want), "assignment of %s", what)
	return join, epoch, got
}

func mapsEqual(a, b assigned) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

var _ = Describe("Coordinators and group membership", func() {
	It("names a live broker as coordinator of a consumer and of a share group (key type 0, v3 and v6) and answers a share-coordinator key (type 2) that is not group:topic-id:partition with INVALID_REQUEST and no node",
		spec("fidelity.find-coordinator", itemFidelity), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			_, p, topic := startTopic(ctx, "fid-groups", 1)
			node := p.node(ctx)
			group, share := suite.UniqueName("fid-group"), suite.UniqueName("fid-share")
			coord := p.coordinator(ctx, group)
			Expect(shareBeat(ctx, p, share, memberID(), 0, topic).ErrorCode).To(BeZero(), "a share member joins, so the share group exists")
			for _, key := range []string{group, share} {
				for _, v := range []int16{3, 6} {
					got := findCoordinator(ctx, p, node, v, 0, key)
					suite.Note(fmt.Sprintf("answer_%s_v%d", key, v), fmt.Sprint(got))
					Expect(got).To(Equal(brokerAnswer(ctx, p, coord)), "FindCoordinator v%d for %s names the coordinator as Metadata lists it", v, key)
				}
			}
			got := findCoordinator(ctx, p, node, 6, 2, share)
			suite.Note("answer_share_key_type", fmt.Sprint(got))
			Expect(got).To(Equal(noNode("INVALID_REQUEST")), "FindCoordinator key type 2 (share coordinator) for a bare group id")
		})

	It("answers a ConsumerGroupHeartbeat join with the member's id, an epoch above 0 and the configured heartbeat interval, assigns the subscribed topic by id, and answers the leave (epoch -1) with epoch -1 and no interval",
		spec("fidelity.consumer-group-heartbeat", itemFidelity), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			cl, p, topic := startTopic(ctx, "fid-groups", 2)
			id := p.topicID(ctx, topic)
			group, member := suite.UniqueName("fid-group"), memberID()
			interval := int32(cl.HeartbeatInterval().Milliseconds())

			join, epoch, _ := joinConsumer(ctx, p, group, member, topic, assigned{id: {0, 1}})
			suite.Note("answer_join", fmt.Sprint(join))
			Expect(join.Error).To(Equal("NONE"))
			Expect(join.Member).To(Equal(member), "the join answer echoes the client's member id (KIP-1082)")
			Expect(join.Epoch).To(BeNumerically(">", 0), "member epoch after the join")
			Expect(join.Interval).To(Equal(interval), "heartbeat interval handed out (group.consumer.heartbeat.interval.ms)")
			beat := consumerAnswer(consumerBeat(ctx, p, group, member, epoch))
			Expect(beat).To(Equal(beatAnswer{"NONE", member, epoch, interval}), "a heartbeat at the current epoch")

			leave := consumerAnswer(consumerBeat(ctx, p, group, member, -1))
			suite.Note("answer_leave", fmt.Sprint(leave))
			Expect(leave).To(Equal(beatAnswer{"NONE", member, -1, 0}), "the leave answer: epoch -1, no heartbeat interval")
			after := consumerAnswer(consumerBeat(ctx, p, group, member, epoch))
			suite.Note("answer_after_leave", fmt.Sprint(after))
			Expect(after).To(Equal(beatAnswer{"UNKNOWN_MEMBER_ID", "<null>", 0, 0}), "a heartbeat of the member that left")
		})

	It("answers a ShareGroupHeartbeat join with the member's id, an epoch above 0 and the configured heartbeat interval, assigns the subscribed topic by id, and answers the leave (epoch -1) with epoch -1 and no interval",
		spec("fidelity.share-group-heartbeat", itemFidelity), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			cl, p, topic := startTopic(ctx, "fid-groups", 2)
			id := p.topicID(ctx, topic)
			group, member := suite.UniqueName("fid-share"), memberID()
			interval := int32(cl.HeartbeatInterval().Milliseconds())

			join := shareBeat(ctx, p, group, member, 0, topic)
			suite.Note("answer_join", fmt.Sprint(shareAnswer(join)))
			Expect(shareAnswer(join)).To(Equal(beatAnswer{"NONE", member, join.MemberEpoch, interval}), "the join answer")
			Expect(join.MemberEpoch).To(BeNumerically(">", 0), "member epoch after the join")
			epoch := joinShareAssignment(ctx, p, group, member, join, assigned{id: {0, 1}})
			beat := shareAnswer(shareBeat(ctx, p, group, member, epoch))
			Expect(beat).To(Equal(beatAnswer{"NONE", member, epoch, interval}), "a share heartbeat at the current epoch")

			leave := shareAnswer(shareBeat(ctx, p, group, member, -1))
			suite.Note("answer_leave", fmt.Sprint(leave))
			Expect(leave).To(Equal(beatAnswer{"NONE", member, -1, 0}), "the leave answer: epoch -1, no heartbeat interval")
		})

	It("answers a ConsumerGroupHeartbeat with a member epoch above 0 for a group it does not know with GROUP_ID_NOT_FOUND and creates no group",
		spec("fidelity.heartbeat-unknown-group", itemHeartbeatUnknown), Label(labelKnownDifference), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			_, p := startCluster(ctx, nil)
			group := suite.UniqueName("fid-nogroup")
			got := consumerAnswer(consumerBeat(ctx, p, group, memberID(), 5))
			type outcome struct {
				Answer      beatAnswer
				GroupListed bool
			}
			suite.Note("answer", fmt.Sprint(got))
			kafkaAnswers(itemHeartbeatUnknown, outcome{got, p.groupListed(ctx, group)}, Equal(outcome{beatAnswer{"GROUP_ID_NOT_FOUND", "<null>", 0, 0}, false}),
				"ConsumerGroupHeartbeat at epoch 5 for an unknown group, and whether ListGroups lists the group after it")
		})
})

// joinShareAssignment heartbeats a joined share member until its
// assignment is want and returns its epoch.
func joinShareAssignment(ctx context.Context, p *probe, group, member string, join *kmsg.ShareGroupHeartbeatResponse, want assigned) int32 {
	GinkgoHelper()
	epoch, got := join.MemberEpoch, assigned{}
	record := func(a *kmsg.ShareGroupHeartbeatResponseAssignment) {
		if a == nil {
			return
		}
		got = assigned{}
		for _, t := range a.TopicPartitions {
			got[t.TopicID] = slices.Sorted(slices.Values(t.Partitions))
		}
	}
	record(join.Assignment)
	Eventually(ctx, func() assigned {
		if !mapsEqual(got, want) {
			r := shareBeat(ctx, p, group, member, epoch)
			Expect(r.ErrorCode).To(BeZero(), "share heartbeat at epoch %d: %s", epoch, errName(r.ErrorCode))
			epoch = r.MemberEpoch
			record(r.Assignment)
		}
		return got
	}).WithTimeout(harness.WaitTimeout).WithPolling(p.cl.HeartbeatInterval()).Should(Equal(want), "share assignment")
	return epoch
}
