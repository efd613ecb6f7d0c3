package fidelity

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/suite"
)

// downProbeTimeout bounds one request to a broker that is down: it fails
// well within it (the connection is dropped or refused).
const downProbeTimeout = 3 * time.Second

// metadataTo sends a Metadata request to node within downProbeTimeout and
// returns its transport error.
func metadataTo(ctx context.Context, p *probe, node int32) error {
	GinkgoHelper()
	rctx, cancel := context.WithTimeout(ctx, downProbeTimeout)
	defer cancel()
	_, err := p.trySend(rctx, node, newest, kmsg.NewPtrMetadataRequest())
	return err
}

var _ = Describe("Harness faults", func() {
	It("makes a group's coordinator unavailable the same way on every target: FindCoordinator answers COORDINATOR_NOT_AVAILABLE naming no node, the group's heartbeats, commits and offset fetches NOT_COORDINATOR, other groups are unaffected, and healing restores the coordinator",
		spec("fidelity.fault-coordinator-unavailable", itemFidelity), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			cl, p, topic := startTopic(ctx, "fid-faults", 1)
			id := p.topicID(ctx, topic)
			group, other, member := suite.UniqueName("fid-fault"), suite.UniqueName("fid-other"), memberID()
			_, epoch, _ := joinConsumer(ctx, p, group, member, topic, assigned{id: {0}})
			coord := p.coordinator(ctx, group)
			p.coordinator(ctx, other)

			f, err := cl.CoordinatorUnavailable(ctx, group)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(f.Heal)
			for _, v := range []int16{3, 6} {
				got := findCoordinator(ctx, p, coord, v, 0, group)
				suite.Note(fmt.Sprintf("find_coordinator_v%d", v), fmt.Sprint(got))
				Expect(got).To(Equal(noNode("COORDINATOR_NOT_AVAILABLE")), "FindCoordinator v%d for the group while its coordinator is unavailable", v)
			}
			Expect(findCoordinator(ctx, p, coord, 6, 0, other)).To(Equal(brokerAnswer(ctx, p, coord)), "FindCoordinator for another group")

			hb := kmsg.NewPtrConsumerGroupHeartbeatRequest()
			hb.Group, hb.MemberID, hb.MemberEpoch = group, member, epoch
			beat := consumerAnswer(p.send(ctx, coord, newest, hb).(*kmsg.ConsumerGroupHeartbeatResponse))
			commit := kmsg.NewPtrOffsetCommitRequest()
			commit.Group, commit.Generation, commit.MemberID = group, epoch, member
			ct := kmsg.NewOffsetCommitRequestTopic()
			ct.Topic, ct.TopicID = topic, id
			ct.Partitions = append(ct.Partitions, kmsg.NewOffsetCommitRequestTopicPartition())
			commit.Topics = append(commit.Topics, ct)
			committed := errName(offsetCommitCode(p.send(ctx, coord, 10, commit)))
			fetch := kmsg.NewPtrOffsetFetchRequest()
			rg := kmsg.NewOffsetFetchRequestGroup()
			rg.Group, rg.MemberID, rg.MemberEpoch = group, kmsg.StringPtr(member), epoch
			fetch.Groups = append(fetch.Groups, rg)
			fetched := errName(offsetFetchCode(p.send(ctx, coord, 10, fetch)))
			type groupAnswers struct{ Heartbeat, OffsetCommit, OffsetFetch string }
			got := groupAnswers{beat.Error, committed, fetched}
			suite.Note("group_requests", fmt.Sprint(got))
			Expect(got).To(Equal(groupAnswers{"NOT_COORDINATOR", "NOT_COORDINATOR", "NOT_COORDINATOR"}), "the group's requests to its coordinator while it is unavailable")
			Expect(beat.Interval).To(BeZero(), "a heartbeat error answer hands out no interval")
			Expect(f.Hits()).To(BeNumerically(">=", 5), "requests the fault acted on (2 FindCoordinator, heartbeat, commit, fetch)")

			f.Heal()
			Expect(findCoordinator(ctx, p, coord, 6, 0, group)).To(Equal(brokerAnswer(ctx, p, coord)), "FindCoordinator after healing")
			Expect(errName(offsetFetchCode(p.send(ctx, coord, 10, fetch)))).To(Equal("NONE"), "OffsetFetch after healing")
		})

	It("takes every broker down the same way on every target: a request to a broker fails without an answer until the fault is healed",
		spec("fidelity.fault-brokers-down", itemFidelity), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			cl, p := startCluster(ctx, nil)
			node := p.node(ctx)
			Expect(metadataTo(ctx, p, node)).To(Succeed(), "Metadata before the fault")
			f, err := cl.Inject(ctx, harness.FaultSpec{Kind: harness.FaultBrokersDown})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(f.Heal)
			start := time.Now()
			err = metadataTo(ctx, p, node)
			suite.Note("error_while_down", fmt.Sprint(err))
			Expect(err).To(HaveOccurred(), "Metadata while every broker is down")
			Expect(ctx.Err()).NotTo(HaveOccurred())
			suite.Figure("failed_after", float64(time.Since(start).Milliseconds()), "ms", fmt.Sprintf("< %d ms", downProbeTimeout.Milliseconds()))
			f.Heal()
			Eventually(ctx, func() error { return metadataTo(ctx, p, node) }).WithTimeout(harness.WaitTimeout).Should(Succeed(), "Metadata after healing")
		})

	It("stops the only broker of a cluster: a request fails until the broker is restarted",
		spec("fidelity.stop-last-broker", itemStopLastBroker), Label(labelKnownDifference), SpecTimeout(3*harness.SpecTimeout),
		func(ctx SpecContext) {
			cl, p := startCluster(ctx, nil)
			node := p.node(ctx)
			f, err := cl.StopBroker(ctx, node)
			type outcome struct {
				Stopped       bool
				RequestFailed bool
			}
			if err != nil {
				suite.Note("stop_error", err.Error())
				kafkaAnswers(itemStopLastBroker, outcome{}, Equal(outcome{true, true}), fmt.Sprintf("StopBroker(%d) of a one-broker cluster (error %v)", node, err))
			}
			DeferCleanup(f.Heal)
			reqErr := metadataTo(ctx, p, node)
			suite.Note("error_while_stopped", fmt.Sprint(reqErr))
			kafkaAnswers(itemStopLastBroker, outcome{true, reqErr != nil}, Equal(outcome{true, true}), "StopBroker of the only broker, then a Metadata request to it")
			start := time.Now()
			f.Heal()
			Eventually(ctx, func() error { return metadataTo(ctx, p, node) }).WithTimeout(harness.WaitTimeout).Should(Succeed(), "Metadata after the restart")
			suite.Figure("restart", float64(time.Since(start).Milliseconds()), "ms", "")
		})
})
