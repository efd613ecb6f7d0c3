package fidelity

import (
	"context"
	"errors"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/subjects/java"
	"github.com/kreactor/kreactor/harness/suite"
	kfaketarget "github.com/kreactor/kreactor/harness/targets/kfake"
	"github.com/kreactor/kreactor/managers"
)

// javaRecords is how many records the Java cross-check produces and reads.
const javaRecords = 5

// javaAssigned starts Java's KafkaConsumer (kafka-clients
// java.DefaultClients unless KREACTOR_JAVA_CLIENTS says otherwise) on cl
// with group.protocol=consumer, a group id that never committed and a
// manual assignment of topic's partition 0, and polls until it has
// javaRecords records or a poll fails. The consumer is closed before it
// returns.
func javaAssigned(ctx context.Context, cl harness.Cluster, topic string) ([]consumer.Record, error) {
	GinkgoHelper()
	props := map[string]string{
		"bootstrap.servers":  strings.Join(cl.Addrs(), ","),
		"group.id":           suite.UniqueName("fid-java"),
		"group.protocol":     "consumer",
		"client.id":          suite.UniqueName("fid-java-client"),
		"auto.offset.reset":  "earliest",
		"enable.auto.commit": "false",
	}
	sctx, cancel := context.WithTimeout(ctx, java.DefaultStartTimeout)
	defer cancel()
	c, err := java.NewConsumer(sctx, java.DefaultOptions(), props)
	if errors.Is(err, java.ErrJavaMissing) {
		Skip("the Java cross-check needs a JDK and Maven: " + err.Error())
	}
	Expect(err).NotTo(HaveOccurred(), "start the Java driver")
	defer func() {
		cctx, ccancel := context.WithTimeout(ctx, harness.CloseTimeout)
		defer ccancel()
		Expect(c.Close(cctx)).To(Succeed(), "close the Java consumer")
	}()
	Expect(c.Assign(managers.TopicPartition{Topic: topic, Partition: 0})).To(Succeed())
	wctx, wcancel := context.WithTimeout(ctx, harness.WaitTimeout)
	defer wcancel()
	var recs []consumer.Record
	for len(recs) < javaRecords {
		pctx, pcancel := context.WithTimeout(wctx, 10*harness.PollSlice)
		got, err := c.Poll(pctx)
		pcancel()
		recs = append(recs, got...)
		if err != nil {
			return recs, err
		}
	}
	return recs, nil
}

var _ = Describe("The Java consumer as a cross-check", func() {
	It("lets kafka-clients' KafkaConsumer (group.protocol=consumer) with a group id that never committed and a manual assignment start and poll every record from the earliest offset",
		spec("fidelity.java-assign-with-group", itemFidelity), SpecTimeout(3*harness.SpecTimeout),
		func(ctx SpecContext) {
			topic := suite.UniqueName("fid-java")
			cl := suite.StartCluster(ctx, target, harness.TargetConfig{Brokers: 1, Topics: map[string]int32{topic: 1}})
			_, err := cl.Produce(ctx, topic, javaRecords, nil)
			Expect(err).NotTo(HaveOccurred())
			recs, err := javaAssigned(ctx, cl, topic)
			suite.Figure("records", float64(len(recs)), "records", fmt.Sprintf("== %d", javaRecords))
			Expect(err).NotTo(HaveOccurred(), "Java poll with a group id and a manual assignment (OffsetFetch for a group that never committed)")
			var offsets []int64
			for _, r := range recs {
				offsets = append(offsets, r.Offset)
			}
			Expect(offsets).To(Equal([]int64{0, 1, 2, 3, 4}), "offsets the Java consumer read from partition 0")

			if target.Name() != kfaketarget.Name {
				return
			}
			By("the control: on kfake's own answers (kfake-raw) the same consumer fails on every poll")
			raw := suite.StartCluster(ctx, kfaketarget.Raw{}, harness.TargetConfig{Brokers: 1, Topics: map[string]int32{topic: 1}})
			_, err = raw.Produce(ctx, topic, javaRecords, nil)
			Expect(err).NotTo(HaveOccurred())
			recs, err = javaAssigned(ctx, raw, topic)
			suite.Note("kfake_raw_error", fmt.Sprint(err))
			Expect(err).To(MatchError(ContainSubstring("group id does not exist")),
				"Java on kfake-raw: kfake answers OffsetFetch with GROUP_ID_NOT_FOUND (if this passes, kfake answers as Kafka and fakebroker's OffsetFetch correction can go)")
			Expect(recs).To(BeEmpty())
		})
})
