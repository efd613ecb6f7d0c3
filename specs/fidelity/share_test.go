package fidelity

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/suite"
)

// shareSession is one share member's share session on the partition
// leader (KIP-932): epoch 0 opens it with the topic, later fetches are
// incremental.
type shareSession struct {
	p             *probe
	node          int32
	group, member string
	id            [16]byte
	epoch         int32
}

// acquiredRange is one range of records a ShareFetch acquired.
type acquiredRange struct {
	First, Last int64
	Deliveries  int16
}

// fetch sends the session's next ShareFetch of partition 0 (at most
// maxRecords, batch size batch; 0 leaves the field unset) and returns the
// acquired ranges and the partition's error.
func (s *shareSession) fetch(ctx context.Context, maxRecords, batch int32) ([]acquiredRange, string) {
	GinkgoHelper()
	req := kmsg.NewPtrShareFetchRequest()
	req.GroupID, req.MemberID = kmsg.StringPtr(s.group), kmsg.StringPtr(s.member)
	req.ShareSessionEpoch = s.epoch
	req.MaxWaitMillis, req.MinBytes, req.MaxBytes = 200, 1, 1<<20
	req.MaxRecords, req.BatchSize = maxRecords, batch
	if s.epoch == 0 {
		t := kmsg.NewShareFetchRequestTopic()
		t.TopicID = s.id
		t.Partitions = append(t.Partitions, kmsg.NewShareFetchRequestTopicPartition())
		req.Topics = append(req.Topics, t)
	}
	resp := s.p.send(ctx, s.node, newest, req).(*kmsg.ShareFetchResponse)
	Expect(resp.ErrorCode).To(BeZero(), "ShareFetch at session epoch %d: %s", s.epoch, errName(resp.ErrorCode))
	s.epoch++
	var out []acquiredRange
	code := "NONE"
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			code = errName(p.ErrorCode)
			for _, a := range p.AcquiredRecords {
				out = append(out, acquiredRange{a.FirstOffset, a.LastOffset, a.DeliveryCount})
			}
		}
	}
	return out, code
}

// accept acknowledges offset as accepted (ShareAcknowledge, type 1) in
// the session and returns the partition's error.
func (s *shareSession) accept(ctx context.Context, offset int64) string {
	GinkgoHelper()
	req := kmsg.NewPtrShareAcknowledgeRequest()
	req.GroupID, req.MemberID = kmsg.StringPtr(s.group), kmsg.StringPtr(s.member)
	req.ShareSessionEpoch = s.epoch
	t := kmsg.NewShareAcknowledgeRequestTopic()
	t.TopicID = s.id
	p := kmsg.NewShareAcknowledgeRequestTopicPartition()
	b := kmsg.NewShareAcknowledgeRequestTopicPartitionAcknowledgementBatch()
	b.FirstOffset, b.LastOffset, b.AcknowledgeTypes = offset, offset, []int8{1}
	p.AcknowledgementBatches = append(p.AcknowledgementBatches, b)
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	resp := s.p.send(ctx, s.node, newest, req).(*kmsg.ShareAcknowledgeResponse)
	Expect(resp.ErrorCode).To(BeZero(), "ShareAcknowledge at session epoch %d: %s", s.epoch, errName(resp.ErrorCode))
	s.epoch++
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			return errName(p.ErrorCode)
		}
	}
	Fail("ShareAcknowledge answered no partition")
	return ""
}

// shareMember joins a member to the share group, waits until it is
// assigned partition 0 of topic id, and opens nothing yet: its session
// starts with the first fetch.
func shareMember(ctx context.Context, p *probe, group string, id [16]byte) *shareSession {
	GinkgoHelper()
	member := memberID()
	join := shareBeat(ctx, p, group, member, 0, topicName(ctx, p, id))
	Expect(join.ErrorCode).To(BeZero(), "share join: %s", errName(join.ErrorCode))
	joinShareAssignment(ctx, p, group, member, join, assigned{id: {0}})
	return &shareSession{p: p, node: p.node(ctx), group: group, member: member, id: id}
}

// topicName returns the name of the topic with id.
func topicName(ctx context.Context, p *probe, id [16]byte) string {
	GinkgoHelper()
	for _, t := range p.metadata(ctx).Topics {
		if t.TopicID == id {
			return deref(t.Topic)
		}
	}
	Fail(fmt.Sprintf("no topic with id %x", id))
	return ""
}

// shareTopic creates the share group's setup: a one-partition topic and a
// group reading from the earliest offset.
func shareTopic(ctx context.Context) (harness.Cluster, *probe, string, [16]byte, string) {
	GinkgoHelper()
	cl, p, topic := startTopic(ctx, "fid-share", 1)
	group := suite.UniqueName("fid-share")
	Expect(cl.SetGroupConfigs(ctx, group, map[string]string{"share.auto.offset.reset": "earliest"})).To(Succeed())
	return cl, p, topic, p.topicID(ctx, topic), group
}

var _ = Describe("Share fetch", func() {
	It("answers the acknowledgement of a record whose acquisition lock expired with INVALID_RECORD_STATE, after another member acquired it again (delivery count 2)",
		spec("fidelity.share-lock-expiry", itemFidelity), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			cl, p, topic, id, group := shareTopic(ctx)
			_, err := cl.Produce(ctx, topic, 3, nil)
			Expect(err).NotTo(HaveOccurred())

			By("member A acquires offset 0")
			a := shareMember(ctx, p, group, id)
			var got []acquiredRange
			Eventually(ctx, func() []acquiredRange {
				got, _ = a.fetch(ctx, 500, 0)
				return got
			}).WithTimeout(harness.WaitTimeout).Should(ContainElement(HaveField("First", int64(0))), "A's first acquisition")
			suite.Note("acquired_a", fmt.Sprint(got))
			Expect(got[0].Deliveries).To(Equal(int16(1)))
			acquiredAt, aLast := time.Now(), got[len(got)-1].Last

			By(fmt.Sprintf("member B acquires offset 0 again once A's lock (%s) expired", harness.DefaultShareLockDuration))
			b := shareMember(ctx, p, group, id)
			Eventually(ctx, func() []acquiredRange {
				got, _ = b.fetch(ctx, 500, 0)
				return got
			}).WithTimeout(harness.WaitTimeout).Should(ContainElement(acquiredRange{0, aLast, 2}), "B's acquisition of the records A held, after their lock expired")
			suite.Figure("reacquired_after", float64(time.Since(acquiredAt).Milliseconds()), "ms", fmt.Sprintf(">= %d ms", harness.DefaultShareLockDuration.Milliseconds()))
			suite.Note("acquired_b", fmt.Sprint(got))

			By("A acknowledges offset 0")
			ack := a.accept(ctx, 0)
			suite.Note("answer_ack", ack)
			Expect(ack).To(Equal("INVALID_RECORD_STATE"), "acknowledging a record whose lock expired and that another member holds")
		})

	It("acquires whole record batches (batch-optimized mode): asked for at most one record, a share fetch acquires the whole first batch",
		spec("fidelity.share-batch-acquisition", itemShareBatches), Label(labelKnownDifference), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			_, p, _, id, group := shareTopic(ctx)
			topic := topicName(ctx, p, id)
			const records = 10
			By(fmt.Sprintf("producing %d records in one batch", records))
			prod, err := kgo.NewClient(kgo.SeedBrokers(p.cl.Addrs()...), kgo.ClientID(probeClientID),
				kgo.DefaultProduceTopic(topic), kgo.ProducerLinger(100*time.Millisecond), kgo.RecordPartitioner(kgo.ManualPartitioner()))
			Expect(err).NotTo(HaveOccurred())
			rs := make([]*kgo.Record, records)
			for i := range rs {
				rs[i] = &kgo.Record{Value: fmt.Appendf(nil, "record-%d", i)}
			}
			err = prod.ProduceSync(ctx, rs...).FirstErr()
			prod.Close()
			Expect(err).NotTo(HaveOccurred())
			first, last := firstBatch(ctx, p, topic, id)
			Expect([]int64{first, last}).To(Equal([]int64{0, records - 1}), "the records form one batch (Fetch shows its base offset and last offset)")

			s := shareMember(ctx, p, group, id)
			var got []acquiredRange
			Eventually(ctx, func() []acquiredRange {
				got, _ = s.fetch(ctx, 1, 1)
				return got
			}).WithTimeout(harness.WaitTimeout).ShouldNot(BeEmpty(), "an acquisition")
			suite.Note("acquired", fmt.Sprint(got))
			kafkaAnswers(itemShareBatches, got, Equal([]acquiredRange{{0, records - 1, 1}}),
				"records a ShareFetch with max records 1 and batch size 1 acquired from a 10-record batch")
		})
})

// firstBatch returns the base and last offset of the first record batch
// of topic's partition 0, read with a Fetch from offset 0.
func firstBatch(ctx context.Context, p *probe, topic string, id [16]byte) (int64, int64) {
	GinkgoHelper()
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID, req.MaxWaitMillis, req.MinBytes, req.MaxBytes = -1, 500, 1, 1<<20
	t := kmsg.NewFetchRequestTopic()
	t.Topic, t.TopicID = topic, id
	fp := kmsg.NewFetchRequestTopicPartition()
	fp.PartitionMaxBytes = 1 << 20
	t.Partitions = append(t.Partitions, fp)
	req.Topics = append(req.Topics, t)
	resp := p.send(ctx, p.node(ctx), newest, req).(*kmsg.FetchResponse)
	Expect(resp.Topics).To(HaveLen(1))
	Expect(resp.Topics[0].Partitions).To(HaveLen(1))
	fr := resp.Topics[0].Partitions[0]
	Expect(fr.ErrorCode).To(BeZero(), "Fetch: %s", errName(fr.ErrorCode))
	// Record batch v2: base offset int64, length int32, leader epoch
	// int32, magic int8, crc int32, attributes int16, last offset delta
	// int32 (offset 23).
	Expect(len(fr.RecordBatches)).To(BeNumerically(">=", 27), "Fetch returned no record batch")
	base := int64(binary.BigEndian.Uint64(fr.RecordBatches))
	delta := int32(binary.BigEndian.Uint32(fr.RecordBatches[23:]))
	return base, base + int64(delta)
}
