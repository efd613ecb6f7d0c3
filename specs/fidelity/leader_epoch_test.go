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

// leaderAt is partition 0's leader and leader epoch in Metadata.
type leaderAt struct {
	Leader, Epoch int32
}

// partitionLeader returns topic's partition 0 leader and epoch.
func partitionLeader(ctx context.Context, p *probe, topic string) leaderAt {
	GinkgoHelper()
	md := p.metadata(ctx, topic)
	Expect(md.Topics).To(HaveLen(1))
	l, ok := leaderIn(md)
	if !ok {
		Fail("no partition 0 in Metadata")
	}
	return l
}

// leaderIn returns partition 0's leader and epoch in md's only topic.
func leaderIn(md *kmsg.MetadataResponse) (leaderAt, bool) {
	if len(md.Topics) != 1 {
		return leaderAt{}, false
	}
	for _, pt := range md.Topics[0].Partitions {
		if pt.Partition == 0 {
			return leaderAt{pt.Leader, pt.LeaderEpoch}, true
		}
	}
	return leaderAt{}, false
}

// epochEnd is an OffsetForLeaderEpoch answer for one partition.
type epochEnd struct {
	Err         string
	LeaderEpoch int32
	EndOffset   int64
}

// offsetForLeaderEpoch asks node for the end offset of epoch on topic's
// partition 0 (a consumer's request: replica id -1, current leader epoch
// unset).
func offsetForLeaderEpoch(ctx context.Context, p *probe, node int32, topic string, epoch int32) epochEnd {
	GinkgoHelper()
	req := kmsg.NewPtrOffsetForLeaderEpochRequest()
	req.ReplicaID = -1
	t := kmsg.NewOffsetForLeaderEpochRequestTopic()
	t.Topic = topic
	rp := kmsg.NewOffsetForLeaderEpochRequestTopicPartition()
	rp.Partition, rp.CurrentLeaderEpoch, rp.LeaderEpoch = 0, -1, epoch
	t.Partitions = append(t.Partitions, rp)
	req.Topics = append(req.Topics, t)
	resp := p.send(ctx, node, newest, req).(*kmsg.OffsetForLeaderEpochResponse)
	for _, rt := range resp.Topics {
		for _, pp := range rt.Partitions {
			if rt.Topic == topic && pp.Partition == 0 {
				return epochEnd{errName(pp.ErrorCode), pp.LeaderEpoch, pp.EndOffset}
			}
		}
	}
	Fail("OffsetForLeaderEpoch answered no partition 0")
	return epochEnd{}
}

var _ = Describe("Leader epochs", func() {
	It("answers OffsetForLeaderEpoch for the epoch before a leader change with no records since with that epoch and the log end offset, not -1/-1",
		spec("fidelity.leader-epoch-after-leader-change", itemFidelity), SpecTimeout(2*harness.SpecTimeout),
		func(ctx SpecContext) {
			topic := suite.UniqueName("fid-epoch")
			cl := suite.StartCluster(ctx, target, harness.TargetConfig{Brokers: 3, Topics: map[string]int32{topic: 1}})
			p := newProbe(cl)
			const records = 5
			_, err := cl.Produce(ctx, topic, records, nil)
			Expect(err).NotTo(HaveOccurred())
			before := partitionLeader(ctx, p, topic)
			suite.Note("before", fmt.Sprintf("%+v", before))
			Expect(offsetForLeaderEpoch(ctx, p, before.Leader, topic, before.Epoch)).To(Equal(epochEnd{"NONE", before.Epoch, records}),
				"the current epoch's end offset before the change")

			By(fmt.Sprintf("stopping broker %d, the partition leader", before.Leader))
			f, err := cl.StopBroker(ctx, before.Leader)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(f.Heal)
			var after leaderAt
			Eventually(ctx, func() bool {
				md, err := p.tryMetadata(ctx, topic)
				if err != nil || len(md.Topics) != 1 || md.Topics[0].ErrorCode != 0 {
					return false // the stopped leader answered nothing, or the topic is in flux: ask again
				}
				var ok bool
				if after, ok = leaderIn(md); !ok {
					return false
				}
				return after.Leader >= 0 && after.Leader != before.Leader && after.Epoch > before.Epoch
			}).WithTimeout(harness.WaitTimeout).Should(BeTrue(), "a new leader with a higher epoch")
			suite.Note("after", fmt.Sprintf("%+v", after))

			answer := offsetForLeaderEpoch(ctx, p, after.Leader, topic, before.Epoch)
			suite.Note("answer", fmt.Sprintf("%+v", answer))
			Expect(answer).To(Equal(epochEnd{"NONE", before.Epoch, records}),
				"OffsetForLeaderEpoch for the previous leader's epoch, asked of the new leader: that epoch and the log end offset")
		})
})
