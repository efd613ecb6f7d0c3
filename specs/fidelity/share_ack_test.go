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

// ackOnlyPartition is the answer for partition 0 of a ShareFetch that only
// acknowledged records (nothing left to acquire): whether it is in the
// answer, its record set's state ("null" for length -1, "empty" for length
// 0, "N bytes") and its acknowledgement error.
type ackOnlyPartition struct {
	Present bool
	Records string
	AckErr  string
}

// fetchAcking sends the session's next ShareFetch acknowledging
// [first, last] as accepted (type 1), waiting at most 200 ms for more
// records, and returns partition 0's answer.
func (s *shareSession) fetchAcking(ctx context.Context, first, last int64) ackOnlyPartition {
	GinkgoHelper()
	req := kmsg.NewPtrShareFetchRequest()
	req.GroupID, req.MemberID = kmsg.StringPtr(s.group), kmsg.StringPtr(s.member)
	req.ShareSessionEpoch = s.epoch
	req.MaxWaitMillis, req.MinBytes, req.MaxBytes = 200, 1, 1<<20
	t := kmsg.NewShareFetchRequestTopic()
	t.TopicID = s.id
	p := kmsg.NewShareFetchRequestTopicPartition()
	b := kmsg.NewShareFetchRequestTopicPartitionAcknowledgementBatch()
	b.FirstOffset, b.LastOffset, b.AcknowledgeTypes = first, last, []int8{1}
	p.AcknowledgementBatches = append(p.AcknowledgementBatches, b)
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	resp := s.p.send(ctx, s.node, newest, req).(*kmsg.ShareFetchResponse)
	Expect(resp.ErrorCode).To(BeZero(), "ShareFetch at session epoch %d: %s", s.epoch, errName(resp.ErrorCode))
	s.epoch++
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			if rt.TopicID != s.id || rp.Partition != 0 {
				continue
			}
			Expect(rp.AcquiredRecords).To(BeEmpty(), "records acquired after every record was acknowledged")
			recs := "null"
			switch {
			case rp.Records == nil:
			case len(rp.Records) == 0:
				recs = "empty"
			default:
				recs = fmt.Sprintf("%d bytes", len(rp.Records))
			}
			return ackOnlyPartition{Present: true, Records: recs, AckErr: errName(rp.AcknowledgeErrorCode)}
		}
	}
	return ackOnlyPartition{}
}

var _ = Describe("Share fetch acknowledgements", func() {
	It("answers a partition that carries only the result of piggybacked acknowledgements with an empty record set, not a null one",
		spec("fidelity.share-ack-only-records", itemFidelity), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			cl, p, topic, id, group := shareTopic(ctx)
			const records = 3
			_, err := cl.Produce(ctx, topic, records, nil)
			Expect(err).NotTo(HaveOccurred())
			s := shareMember(ctx, p, group, id)
			var got []acquiredRange
			Eventually(ctx, func() int64 {
				rs, _ := s.fetch(ctx, 500, 0)
				got = append(got, rs...)
				last := int64(-1)
				for _, r := range got {
					last = max(last, r.Last)
				}
				return last
			}).WithTimeout(harness.WaitTimeout).Should(Equal(int64(records-1)), "every record acquired")
			suite.Note("acquired", fmt.Sprint(got))

			By("a ShareFetch acknowledging every record, with nothing left to acquire")
			answer := s.fetchAcking(ctx, 0, records-1)
			suite.Note("answer", fmt.Sprintf("%+v", answer))
			Expect(answer).To(Equal(ackOnlyPartition{Present: true, Records: "empty", AckErr: "NONE"}),
				"partition 0 of the acknowledging ShareFetch: present, empty (not null) records, acknowledgement accepted")
		})
})
