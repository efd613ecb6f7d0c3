package contract

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/consume"
	"github.com/kreactor/kreactor/harness/measure"
	"github.com/kreactor/kreactor/harness/suite"
)

const (
	// closeRecords is how many records the close specs produce (10 per
	// partition of a 3-partition topic).
	closeRecords = 30
	// autoCommitOff is an auto-commit interval no spec outlives: the only
	// auto-commit is Close's.
	autoCommitOff = time.Hour
	// closeZeroBound is how long Close(0) may take: the leave phase's
	// floor (client.CloseLeaveFloor, 50 ms) with the 300 ms slack the
	// other close specs allow.
	closeZeroBound = 350 * time.Millisecond
	// leaveSeen bounds the wait for the coordinator to drop a member that
	// sent its leave (a member that did not stays until its session
	// timeout, 45 s by default).
	leaveSeen = 5 * time.Second
)

var _ = Describe("Closing a group consumer", func() {
	It("with auto-commit commits the positions after the last Poll's records, as Java's close commits the consumed positions",
		suite.Spec("contract-5-close-commits-last-poll", []string{"CONTRACT-5"}, subject.Name(), target.Name()), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			const topic = "orders"
			cl := suite.StartCluster(ctx, target, harness.TargetConfig{Brokers: 3, Topics: map[string]int32{topic: 3}})
			group := suite.UniqueName("close-commit")
			counts, err := cl.Produce(ctx, topic, closeRecords, nil)
			Expect(err).NotTo(HaveOccurred())
			cfg := suite.ConsumerConfig(cl, group, suite.UniqueName("close-commit-client"))
			cfg.EnableAutoCommit, cfg.AutoCommitInterval = true, autoCommitOff
			c := suite.NewConsumer(subject, cfg)

			// The OffsetCommits the brokers see for the group (their
			// offsets; on kfake an observer may be called more than once
			// per request, so requests are counted from the recorder).
			var (
				mu      sync.Mutex // guards commits: the observer runs on the broker's goroutine
				commits []map[int32]int64
			)
			f, err := cl.Observe(ctx, kmsg.OffsetCommit, func(o harness.Observed) {
				if r, ok := o.Req.(*kmsg.OffsetCommitRequest); ok && r.Group == group {
					m := map[int32]int64{}
					for _, t := range r.Topics {
						for _, p := range t.Partitions {
							m[p.Partition] = p.Offset
						}
					}
					mu.Lock()
					commits = append(commits, m)
					mu.Unlock()
				}
			})
			Expect(err).NotTo(HaveOccurred())
			defer f.Heal()

			By("polling until every record arrived; the last Poll's records are not followed by another Poll")
			Expect(c.Subscribe(topic)).To(Succeed())
			wctx, cancel := context.WithTimeout(ctx, harness.WaitTimeout)
			defer cancel()
			var recs, last []consumer.Record
			for len(recs) < closeRecords {
				pctx, pcancel := context.WithTimeout(wctx, harness.PollSlice)
				got, err := c.Poll(pctx)
				pcancel()
				Expect(err).NotTo(HaveOccurred(), harness.Diagnose(c))
				Expect(wctx.Err()).NotTo(HaveOccurred(), "%d of %d records within %s\n%s", len(recs), closeRecords, harness.WaitTimeout, harness.Diagnose(c))
				if len(got) > 0 {
					recs, last = append(recs, got...), got
				}
			}
			delivered, err := consume.CheckDelivery(recs, consume.Partitions(topic, counts), nil)
			Expect(err).NotTo(HaveOccurred())
			mu.Lock()
			Expect(commits).To(BeEmpty(), "auto-commits before Close (interval %s)", autoCommitOff)
			mu.Unlock()

			By("closing without another Poll")
			cctx, ccancel := context.WithTimeout(ctx, harness.CloseTimeout)
			defer ccancel()
			closeStart := time.Now()
			Expect(c.Close(cctx)).To(Succeed(), harness.Diagnose(c))
			gi, err := cl.GroupInfo(ctx, group)
			Expect(err).NotTo(HaveOccurred())
			var committed, want int64
			for tp, next := range delivered.Next {
				committed += gi.Commits[tp]
				want += next
			}
			suite.Figure("last_poll_records", float64(len(last)), "records", "")
			suite.Figure("committed_sum", float64(committed), "offsets", fmt.Sprintf("== %d (every delivered record)", want))
			closeCommits := harness.Window{From: closeStart, To: time.Now()}.Count(cl.Recorder(), kmsg.OffsetCommit, cfg.ClientID)
			suite.Figure("close_commits", float64(closeCommits), "requests", ">= 1")
			Expect(closeCommits).To(BeNumerically(">=", 1), "no OffsetCommit at Close")
			Expect(gi.Commits).To(Equal(delivered.Next), "committed offsets after Close vs the positions after every record Poll returned (the last Poll's included)")
		})

	It("with a zero timeout still sends the leave heartbeat, and the coordinator drops the member",
		suite.Spec("contract-3-close-zero-leaves", []string{"CONTRACT-3"}, subject.Name(), target.Name()), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			const topic = "orders"
			cl := suite.StartCluster(ctx, target, harness.TargetConfig{Brokers: 3, Topics: map[string]int32{topic: 3}})
			group := suite.UniqueName("close-zero")
			_, err := cl.Produce(ctx, topic, closeRecords, nil)
			Expect(err).NotTo(HaveOccurred())
			c := suite.NewConsumer(subject, suite.ConsumerConfig(cl, group, suite.UniqueName("close-zero-client")))
			Expect(c.Subscribe(topic)).To(Succeed())
			wctx, cancel := context.WithTimeout(ctx, harness.WaitTimeout)
			defer cancel()
			_, _, err = consume.PollUntil(wctx, c, closeRecords)
			Expect(err).NotTo(HaveOccurred(), harness.Diagnose(c))
			gi, err := cl.GroupInfo(ctx, group)
			Expect(err).NotTo(HaveOccurred())
			Expect(gi.Members).To(HaveLen(1), "members before Close")
			beats := observeHeartbeats(ctx, cl, kmsg.ConsumerGroupHeartbeat, group)

			zero, zcancel := context.WithTimeout(ctx, 0) // Close(0): the deadline has passed already
			defer zcancel()
			start := time.Now()
			err = c.Close(zero)
			measured := time.Since(start)
			// The client's own close: for the java subject, timed inside
			// the driver around KafkaConsumer.close, without the driver's
			// exit that follows it.
			took := measure.CallTime(c, "close", measured)
			suite.Figure("close_duration", float64(took.Milliseconds()), "ms", fmt.Sprintf("<= %d ms", closeZeroBound.Milliseconds()))
			suite.Figure("close_round_trip", float64(measured.Milliseconds()), "ms", "")
			Expect(err == nil || errors.Is(err, consumer.ErrCloseDeadline)).To(BeTrue(), "Close(0): %v", err)
			Expect(took).To(BeNumerically("<=", closeZeroBound), "Close(0) took longer than closeZeroBound")
			Eventually(ctx, func() bool { _, ok := beats.first(start, -1); return ok }).WithTimeout(leaveSeen).Should(BeTrue(),
				"no leave heartbeat (member epoch -1) after Close(0)")
			leave, _ := beats.first(start, -1)
			suite.Figure("leave_after_close_start", float64(leave.at.Sub(start).Microseconds())/1000, "ms", "")
			Eventually(ctx, func(ctx context.Context) (int, error) {
				gi, err := cl.GroupInfo(ctx, group)
				return len(gi.Members), err
			}).WithTimeout(leaveSeen).Should(BeZero(), "members after Close(0)")
		})
})
