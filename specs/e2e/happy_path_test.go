package e2e

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/consume"
	"github.com/kreactor/kreactor/harness/suite"
)

// happyPathRecords is how many records the happy path produces and consumes.
const happyPathRecords = 1000

var _ = Describe("A group consumer on a healthy cluster", func() {
	It("delivers every record exactly once in partition order, commits what it delivered and leaves the group on close",
		suite.Spec("happy-path", []string{"E2E-1"}, subject.Name(), target.Name()), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			const topic = "orders"
			cl := suite.StartCluster(ctx, target, harness.TargetConfig{Brokers: 3, Topics: map[string]int32{topic: 3}})
			groupID, clientID := suite.UniqueName("happy"), suite.UniqueName("happy-client")

			By(fmt.Sprintf("producing %d records to %d partitions", happyPathRecords, 3))
			counts, err := cl.Produce(ctx, topic, happyPathRecords, nil)
			Expect(err).NotTo(HaveOccurred())
			want := consume.Partitions(topic, counts)

			By("subscribing and polling until every record arrived")
			c := suite.NewConsumer(subject, suite.ConsumerConfig(cl, groupID, clientID))
			Expect(c.Subscribe(topic)).To(Succeed())
			wctx, cancel := context.WithTimeout(ctx, harness.WaitTimeout)
			defer cancel()
			recs, ps, err := consume.PollUntil(wctx, c, happyPathRecords)
			Expect(err).NotTo(HaveOccurred(), "polling for %d records within %s\n%s", happyPathRecords, harness.WaitTimeout, harness.Diagnose(c))
			// A figure, not a bound: on a fresh three-broker Kafka cluster
			// the first FindCoordinator waits for the broker to create
			// __consumer_offsets (COORDINATOR_NOT_AVAILABLE meanwhile), which
			// took 3.8 s on a loaded 2-core machine and more than
			// FirstRecordBound on a busier one. E2E-1 is about delivery,
			// commits and the leave; PollUntil's WaitTimeout bounds the wait.
			suite.Figure("time_to_first_record", float64(ps.FirstRecord.Milliseconds()), "ms", "")

			By("polling a little longer: nothing more may arrive")
			more, _, err := consume.PollFor(ctx, c, harness.QuietPoll)
			Expect(err).NotTo(HaveOccurred())
			recs = append(recs, more...)
			suite.Figure("records", float64(len(recs)), "records", fmt.Sprintf("== %d", happyPathRecords))
			delivered, err := consume.CheckDelivery(recs, want, nil)
			Expect(err).NotTo(HaveOccurred())

			By("committing synchronously: the coordinator stores last offset + 1 per partition")
			Expect(c.CommitSync(ctx)).To(Succeed())
			gi, err := cl.GroupInfo(ctx, groupID)
			Expect(err).NotTo(HaveOccurred())
			Expect(gi.Commits).To(Equal(delivered.Next), "committed offsets vs offsets after the last delivered record")
			Expect(gi.Members).To(HaveLen(1), "members while consuming")

			By(fmt.Sprintf("closing with a %s deadline", harness.CloseTimeout))
			cctx, ccancel := context.WithTimeout(ctx, harness.CloseTimeout)
			defer ccancel()
			start := time.Now()
			err = c.Close(cctx)
			closeTook := time.Since(start)
			suite.Figure("close_duration", float64(closeTook.Milliseconds()), "ms", fmt.Sprintf("<= %d ms", harness.CloseBound.Milliseconds()))
			Expect(err).NotTo(HaveOccurred(), "Close\n%s", harness.Diagnose(c))
			Expect(closeTook).To(BeNumerically("<=", harness.CloseBound), "Close took longer than CloseBound (%s of a %s deadline)", harness.CloseBound, harness.CloseTimeout)

			gi, err = cl.GroupInfo(ctx, groupID)
			Expect(err).NotTo(HaveOccurred())
			Expect(gi.Members).To(BeEmpty(), "members after Close: the leave heartbeat must have removed the member")

			// Loop counters are informative here: E2E-1 is about delivery,
			// commits and the leave; the loop invariants have their own
			// specs, which assert them.
			if probe, ok := suite.RequireProbe(c, "loop_counters"); ok {
				st := probe.Stats()
				suite.Figure("loop_steps", float64(st.Steps), "steps", "")
				suite.Figure("spurious_wakeups", float64(st.SpuriousWakeups), "wakeups", "")
				suite.Figure("ready_without_request", float64(st.ReadyWithoutRequest), "results", "")
				suite.Figure("app_wakeups", float64(probe.AppWakeups()), "wakeups", "")
			}
		})
})
