package share

import (
	"context"
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/consume"
	"github.com/kreactor/kreactor/harness/suite"
	"github.com/kreactor/kreactor/reactor"
)

// bothRecords is how many records each consumer reads in the P5 spec.
const bothRecords = 200

var _ = Describe("A regular and a share consumer in one process", func() {
	It("run on the same execution mechanics with separate managers: each consumes its own records, and the regular group's coordinator outage does not stall the share consumer",
		suite.Spec("shared-mechanics.regular-and-share-together", []string{"P5"}, subject.Name(), target.Name()), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			cl, shareGroup := newShareGroup(ctx, "shared", 2)
			_, err := cl.Produce(ctx, "shared", bothRecords, nil)
			Expect(err).NotTo(HaveOccurred())

			regularGroup := suite.UniqueName("regular")
			reg := suite.NewConsumer(subject, suite.ConsumerConfig(cl, regularGroup, suite.UniqueName("regular-client")))
			Expect(reg.Subscribe("shared")).To(Succeed())
			sh := newShareConsumer(cl, shareGroup, suite.UniqueName("share-client"), "shared")

			By("both consuming the same topic, each through its own group")
			wctx, cancel := context.WithTimeout(ctx, harness.WaitTimeout)
			defer cancel()
			recs, _, err := consume.PollUntil(wctx, reg, bothRecords)
			Expect(err).NotTo(HaveOccurred(), harness.Diagnose(reg))
			shared := suite.PollShare(ctx, sh, bothRecords, nil)
			suite.Figure("regular_records", float64(len(recs)), "records", fmt.Sprintf(">= %d", bothRecords))
			suite.Figure("share_records", float64(len(shared)), "records", fmt.Sprintf(">= %d", bothRecords))

			By("the decisions come from the same mechanics, over disjoint manager sets")
			regProbe, shProbe := suite.SkipWithoutProbe(reg, "the decisions of both consumers"), suite.SkipWithoutShareProbe(sh, "the decisions of both consumers")
			regNames, shareNames := managerNames(regProbe.Decision().Results), managerNames(shProbe.Decision().Results)
			Expect(regNames).To(ContainElements("membership", "commit", "fetch", "offsets"))
			Expect(shareNames).To(ContainElements("share-membership", "share-fetch"))
			for _, n := range []string{"membership", "commit", "fetch", "offsets"} {
				Expect(shareNames).NotTo(ContainElement(n), "the share consumer polls no regular-consumer manager")
			}

			By("an outage of the regular group's coordinator leaves the share consumer consuming")
			f, err := cl.Inject(ctx, harness.FaultSpec{Kind: harness.FaultCoordinatorUnavailable, Group: regularGroup})
			Expect(err).NotTo(HaveOccurred())
			defer f.Heal()
			_, err = cl.Produce(ctx, "shared", bothRecords, nil)
			Expect(err).NotTo(HaveOccurred())
			start := time.Now()
			more := suite.PollShare(ctx, sh, bothRecords, nil)
			took := time.Since(start)
			suite.Figure("share_records_during_regular_outage", float64(len(more)), "records", fmt.Sprintf(">= %d", bothRecords))
			suite.Figure("share_consume_during_regular_outage", float64(took.Milliseconds()), "ms", "")
			st := shProbe.Stats()
			suite.Figure("share_spurious_wakeups", float64(st.SpuriousWakeups), "wakeups", "")
			Expect(regProbe.Decision().Diagnose()).To(ContainSubstring("coordinator"), "the regular consumer is waiting on its coordinator")
		})
})

func managerNames(rs []reactor.ManagerResult) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Manager)
	}
	slices.Sort(out)
	return out
}
