package e2e

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/consume"
	"github.com/kreactor/kreactor/harness/suite"
	"github.com/kreactor/kreactor/managers"
)

const (
	// failoverRecords are produced, half before the coordinator's broker
	// stops (consumed and committed) and half after, so the second half
	// can only arrive through fetches made after the failover.
	failoverRecords = 600
	// failoverCloseBound is how long Close may take after the failover:
	// one commit and one leave against the new coordinator.
	failoverCloseBound = harness.CloseBound
)

var _ = Describe("A group consumer whose coordinator's broker stops", func() {
	It("finds the new coordinator and resumes, loses nothing and delivers nothing twice past its last commit, and closes within its deadline",
		suite.Spec("coordinator-failover", []string{"E2E-2"}, subject.Name(), target.Name()), SpecTimeout(2*harness.SpecTimeout),
		func(ctx SpecContext) {
			const topic = "orders"
			cl := suite.StartCluster(ctx, target, harness.TargetConfig{Brokers: 3, Topics: map[string]int32{topic: 3}})
			groupID, clientID := suite.UniqueName("failover"), suite.UniqueName("failover-client")
			counts, err := cl.Produce(ctx, topic, failoverRecords/2, nil)
			Expect(err).NotTo(HaveOccurred())

			c := suite.NewConsumer(subject, suite.ConsumerConfig(cl, groupID, clientID))
			Expect(c.Subscribe(topic)).To(Succeed())
			wctx, cancel := context.WithTimeout(ctx, harness.WaitTimeout)
			defer cancel()
			before, _, err := consume.PollUntil(wctx, c, failoverRecords/2)
			Expect(err).NotTo(HaveOccurred(), harness.Diagnose(c))
			Expect(c.CommitSync(ctx)).To(Succeed())
			committed := map[managers.TopicPartition]int64{}
			for _, r := range before {
				committed[managers.TopicPartition{Topic: r.Topic, Partition: r.Partition}] = r.Offset + 1
			}

			coord, err := cl.Coordinator(ctx, groupID)
			Expect(err).NotTo(HaveOccurred())
			By(fmt.Sprintf("stopping broker %d, the group coordinator", coord))
			stopped := time.Now()
			f, err := cl.StopBroker(ctx, coord)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(f.Heal)
			more2, err := cl.Produce(ctx, topic, failoverRecords/2, nil)
			Expect(err).NotTo(HaveOccurred(), "producing after the stop")
			for p, n := range more2 {
				counts[p] += n
			}
			want := consume.Partitions(topic, counts)

			var after []consumer.Record
			var firstAfter time.Duration
			deadline := time.Now().Add(harness.WaitTimeout)
			for len(before)+len(after) < failoverRecords {
				Expect(time.Now().Before(deadline)).To(BeTrue(), "%d of %d records %s after the stop\n%s",
					len(before)+len(after), failoverRecords, harness.WaitTimeout, harness.Diagnose(c))
				pctx, pcancel := context.WithTimeout(ctx, harness.PollSlice)
				recs, _ := c.Poll(pctx) // errors while the cluster fails over are expected
				pcancel()
				if len(recs) > 0 && firstAfter == 0 {
					firstAfter = time.Since(stopped)
				}
				after = append(after, recs...)
			}
			more, _, _ := consume.PollFor(ctx, c, harness.QuietPoll)
			after = append(after, more...)
			suite.Figure("resume_after_stop", float64(firstAfter.Milliseconds()), "ms", "")

			// Records past the last commit: each exactly once; records before
			// it may come again only if the member lost its partitions.
			var pastCommit []consumer.Record
			for _, r := range after {
				if r.Offset >= committed[managers.TopicPartition{Topic: r.Topic, Partition: r.Partition}] {
					pastCommit = append(pastCommit, r)
				}
			}
			rest := map[managers.TopicPartition]int{}
			for tp, n := range want {
				rest[tp] = n - int(committed[tp])
			}
			_, err = consume.CheckDelivery(pastCommit, rest, committed)
			Expect(err).NotTo(HaveOccurred(), "records past the last commit")
			suite.Figure("delivered_past_commit", float64(len(pastCommit)), "records", fmt.Sprintf("== %d, each once", failoverRecords-len(before)))

			newCoord, err := cl.Coordinator(ctx, groupID)
			Expect(err).NotTo(HaveOccurred())
			Expect(newCoord).NotTo(Equal(coord), "the coordinator moved")
			suite.Figure("new_coordinator", float64(newCoord), "node", fmt.Sprintf("!= %d", coord))

			Expect(c.CommitSync(ctx)).To(Succeed(), harness.Diagnose(c))
			cctx, ccancel := context.WithTimeout(ctx, harness.CloseTimeout)
			defer ccancel()
			start := time.Now()
			Expect(c.Close(cctx)).To(Succeed(), harness.Diagnose(c))
			took := time.Since(start)
			suite.Figure("close_duration", float64(took.Milliseconds()), "ms", fmt.Sprintf("<= %d ms", failoverCloseBound.Milliseconds()))
			Expect(took).To(BeNumerically("<=", failoverCloseBound))
		})
})
