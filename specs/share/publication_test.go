package share

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/consume"
	"github.com/kreactor/kreactor/harness/suite"
)

const (
	// shareCommits is how many CommitSync calls the P4 stress makes, each
	// acknowledging one record in its own ShareAcknowledge.
	shareCommits = 2000
	// maxAckDelay bounds the random delay of each ShareAcknowledge answer.
	maxAckDelay = 2 * time.Millisecond
)

var _ = Describe("A share consumer's CommitSync", func() {
	It(fmt.Sprintf("returns each of %d calls only after the decision containing its completion is published, under random answer delays", shareCommits),
		suite.Spec("share-commit-sync-publication", []string{"P4"}, subject.Name(), target.Name()), SpecTimeout(2*harness.SpecTimeout),
		func(ctx SpecContext) {
			cl, group := newShareGroup(ctx, "orders", 1)
			// A fetch may acquire a whole batch while the spec commits one
			// record at a time: keep the locks long enough (a real broker
			// answers INVALID_RECORD_STATE for an expired one).
			Expect(cl.SetGroupConfigs(ctx, group, map[string]string{"share.record.lock.duration.ms": "60000"})).To(Succeed())
			_, err := cl.Produce(ctx, "orders", shareCommits, nil)
			Expect(err).NotTo(HaveOccurred())
			delays := consume.DelayResponses(kmsg.ShareAcknowledge, func() time.Duration {
				return time.Duration(rand.Int64N(int64(maxAckDelay)))
			})
			DeferCleanup(delays.Heal)
			cfg := suite.ShareConsumerConfig(cl, group, suite.UniqueName("share-p4"))
			cfg.MaxPollRecords = 1
			cfg.Dial = delays.Dial
			c := suite.NewShareConsumer(subject, cfg)
			probe := suite.SkipWithoutShareProbe(c, "the P4 return probe")
			Expect(c.Subscribe("orders")).To(Succeed())
			start, commits := time.Now(), 0
			deadline := start.Add(harness.SpecTimeout)
			for commits < shareCommits {
				Expect(time.Now().Before(deadline)).To(BeTrue(), "%d of %d commits\n%s", commits, shareCommits, harness.Diagnose(c))
				pctx, cancel := context.WithTimeout(ctx, harness.PollSlice)
				recs, err := c.Poll(pctx)
				cancel()
				Expect(err).NotTo(HaveOccurred(), harness.Diagnose(c))
				if len(recs) == 0 {
					continue
				}
				results, err := c.CommitSync(ctx)
				Expect(err).NotTo(HaveOccurred(), harness.Diagnose(c))
				for tp, e := range results {
					Expect(e).NotTo(HaveOccurred(), "acknowledgement of %s", tp)
				}
				commits++
			}
			took := time.Since(start)
			returns, early := probe.CommitReturns()
			suite.Figure("commit_sync_calls", float64(commits), "calls", fmt.Sprintf("== %d", shareCommits))
			suite.Figure("share_acknowledge_delayed", float64(delays.Hits()), "responses", "")
			suite.Figure("early_returns", float64(early), "returns", "== 0")
			suite.Figure("returns_probed", float64(returns), "returns", "")
			suite.Figure("stress_duration", float64(took.Milliseconds()), "ms", "")
			Expect(early).To(BeZero(), "%d of %d CommitSync calls were released before the decision containing their completion was published", early, returns)
		})
})
