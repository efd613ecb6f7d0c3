package fidelity

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/suite"
)

// listedOffset is one partition of a ListOffsets answer, as compared.
type listedOffset struct {
	Partition int32
	Timestamp int64
	Offset    int64
	Error     string
}

var _ = Describe("Partitions and topics", func() {
	It("answers ListOffsets earliest (-2) with the log start and latest (-1) with the high watermark, timestamp -1 and a leader epoch",
		spec("fidelity.list-offsets", itemFidelity), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			cl, p, topic := startTopic(ctx, "fid-partitions", 2)
			counts, err := cl.Produce(ctx, topic, 7, nil)
			Expect(err).NotTo(HaveOccurred())
			node := p.node(ctx)
			for _, c := range []struct {
				ts   int64
				name string
				want func(partition int32) int64
			}{
				{-2, "earliest", func(int32) int64 { return 0 }},
				{-1, "latest", func(pt int32) int64 { return int64(counts[pt]) }},
			} {
				req := kmsg.NewPtrListOffsetsRequest()
				req.ReplicaID = -1
				rt := kmsg.NewListOffsetsRequestTopic()
				rt.Topic = topic
				for pt := range int32(2) {
					rp := kmsg.NewListOffsetsRequestTopicPartition()
					rp.Partition, rp.Timestamp = pt, c.ts
					rt.Partitions = append(rt.Partitions, rp)
				}
				req.Topics = append(req.Topics, rt)
				resp := p.send(ctx, node, newest, req).(*kmsg.ListOffsetsResponse)
				var got, want []listedOffset
				for _, t := range resp.Topics {
					Expect(t.Topic).To(Equal(topic))
					for _, x := range t.Partitions {
						got = append(got, listedOffset{x.Partition, x.Timestamp, x.Offset, errName(x.ErrorCode)})
						Expect(x.LeaderEpoch).To(BeNumerically(">=", 0), "ListOffsets %s: leader epoch of partition %d", c.name, x.Partition)
					}
				}
				for pt := range int32(2) {
					want = append(want, listedOffset{pt, -1, c.want(pt), "NONE"})
				}
				suite.Note("answer_"+c.name, fmt.Sprint(got))
				Expect(got).To(ConsistOf(want), "ListOffsets %s (timestamp %d) after producing %v", c.name, c.ts, counts)
			}
		})

	It("gives every topic a non-zero id in Metadata, the same on every request, and answers a Metadata request by topic id with the topic's name",
		spec("fidelity.metadata-topic-ids", itemFidelity), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			_, p, topic := startTopic(ctx, "fid-partitions", 2)
			id := p.topicID(ctx, topic)
			Expect(id).NotTo(Equal([16]byte{}), "topic id of %s", topic)
			Expect(p.topicID(ctx, topic)).To(Equal(id), "topic id on a second Metadata request")

			req := kmsg.NewPtrMetadataRequest()
			rt := kmsg.NewMetadataRequestTopic()
			rt.TopicID = id
			req.Topics = append(req.Topics, rt)
			resp := p.send(ctx, p.node(ctx), newest, req).(*kmsg.MetadataResponse)
			Expect(resp.Version).To(BeNumerically(">=", 12), "Metadata by topic id needs v12+")
			type named struct {
				Topic string
				ID    [16]byte
				Error string
				Parts int
			}
			var got []named
			for _, t := range resp.Topics {
				got = append(got, named{deref(t.Topic), t.TopicID, errName(t.ErrorCode), len(t.Partitions)})
			}
			suite.Note("answer_by_id", fmt.Sprint(got))
			Expect(got).To(Equal([]named{{topic, id, "NONE", 2}}), "Metadata v%d for the topic by id", resp.Version)
		})
})
