package share

import (
	"context"
	"fmt"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/measure"
	"github.com/kreactor/kreactor/harness/suite"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

const (
	// shareRecords is how many records the delivery specs produce.
	shareRecords = 300
	// outage is how long the coordinator stays unavailable.
	outage = 3 * time.Second
	// heldFetch is how long a ShareFetch is held at the broker.
	heldFetch = 2 * time.Second
	// idlePollWakeups bounds application wakeups of one Poll that waits
	// for nothing: its own deadline, and the cancel's acknowledgement.
	idlePollWakeups = 2
	// shareRetriedInOutage are the requests that retry on the schedule
	// while the share group's coordinator is unavailable: FindCoordinator,
	// the share heartbeat, ShareAcknowledge and Metadata.
	shareRetriedInOutage = 4
	// closeBroken is the close deadline with every broker down, and
	// closeSlack what Close may take beyond it.
	closeBroken = 500 * time.Millisecond
	closeSlack  = 300 * time.Millisecond
)

var _ = Describe("A share consumer", func() {
	It("delivers every record once, accepts each batch implicitly, and leaves the share group on close",
		suite.Spec("share-happy-path", []string{"SHARE-1"}, subject.Name(), target.Name()), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			cl, group := newShareGroup(ctx, "orders", 3)
			_, err := cl.Produce(ctx, "orders", shareRecords, nil)
			Expect(err).NotTo(HaveOccurred())
			c := newShareConsumer(cl, group, suite.UniqueName("share-client"), "orders")
			acks := suite.NewAckLog(c)
			start := time.Now()
			recs := suite.PollShare(ctx, c, shareRecords, nil)
			suite.Figure("records", float64(len(recs)), "records", fmt.Sprintf("== %d", shareRecords))
			suite.Figure("consume_duration", float64(time.Since(start).Milliseconds()), "ms", "")
			seen := map[managers.TopicPartition]map[int64]bool{}
			for _, r := range recs {
				tp := managers.TopicPartition{Topic: r.Topic, Partition: r.Partition}
				if seen[tp] == nil {
					seen[tp] = map[int64]bool{}
				}
				Expect(seen[tp][r.Offset]).To(BeFalse(), "%s@%d delivered twice", tp, r.Offset)
				seen[tp][r.Offset] = true
				Expect(r.DeliveryCount).To(BeEquivalentTo(1))
			}
			// The last batch is accepted implicitly by the next Poll (SHARE-1;
			// KafkaShareConsumer's implicit mode acknowledges a batch at the
			// next poll or commit, and its close does not accept the batch
			// the last poll returned): poll until the callback has reported
			// every offset.
			for end := time.Now().Add(harness.WaitTimeout); time.Now().Before(end); {
				if accepted, failed, _ := acks.Counts(); accepted+failed >= shareRecords {
					break
				}
				pctx, pcancel := context.WithTimeout(ctx, harness.PollSlice)
				more, err := c.Poll(pctx)
				pcancel()
				Expect(err).NotTo(HaveOccurred(), harness.Diagnose(c))
				Expect(more).To(BeEmpty(), "records after all %d were delivered", shareRecords)
			}
			cctx, cancel := context.WithTimeout(ctx, harness.CloseTimeout)
			defer cancel()
			closeStart := time.Now()
			Expect(c.Close(cctx)).To(Succeed())
			closeTook := measure.CallTime(c, "close", time.Since(closeStart))
			suite.Figure("close_duration", float64(closeTook.Milliseconds()), "ms", fmt.Sprintf("<= %d ms", harness.CloseBound.Milliseconds()))
			Expect(closeTook).To(BeNumerically("<=", harness.CloseBound))
			accepted, failed, dups := acks.Counts()
			suite.Figure("acknowledged_accepted", float64(accepted), "offsets", fmt.Sprintf("== %d", shareRecords))
			Expect(failed).To(BeZero(), "acknowledgements failed: %v", acks.Errors())
			Expect(dups).To(BeZero())
			Expect(accepted).To(Equal(shareRecords))
			Eventually(ctx, func(ctx context.Context) (int, error) {
				gi, err := cl.GroupInfo(ctx, group)
				return len(gi.Members), err
			}).Should(BeZero(), "share group members after close")
			if probe, ok := suite.RequireShareProbe(c, "loop_counters"); ok {
				st := probe.Stats()
				suite.Figure("loop_steps", float64(st.Steps), "steps", "")
				suite.Figure("spurious_wakeups", float64(st.SpuriousWakeups), "wakeups", "")
			}
		})

	It("waits without spinning while its coordinator is unavailable, finding it on the backoff schedule",
		suite.Spec("share-no-spin-coordinator-unavailable", []string{"SHARE-2"}, subject.Name(), target.Name()), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			cl, group := newShareGroup(ctx, "orders", 3)
			_, err := cl.Produce(ctx, "orders", 30, nil)
			Expect(err).NotTo(HaveOccurred())
			clientID := suite.UniqueName("share-client")
			c := newShareConsumer(cl, group, clientID, "orders")
			suite.PollShare(ctx, c, 30, nil)
			f, err := cl.Inject(ctx, harness.FaultSpec{Kind: harness.FaultCoordinatorUnavailable, Group: group})
			Expect(err).NotTo(HaveOccurred())
			probe, probed := suite.RequireShareProbe(c, "loop_steps_and_spurious_wakeups_in_outage")
			var s0, s1 reactor.Stats
			if probed {
				s0 = probe.Stats()
			}
			w := harness.Window{From: cl.Recorder().Mark()}
			polls := 0
			for end := time.Now().Add(outage); time.Now().Before(end); polls++ {
				pctx, cancel := context.WithTimeout(ctx, harness.PollSlice)
				_, _ = c.Poll(pctx)
				cancel()
			}
			w.To = cl.Recorder().Mark()
			f.Heal()
			if probed {
				s1 = probe.Stats()
			}
			// Every bound comes from the configuration, none from what the
			// subject did in the window.
			cfg := suite.ShareConsumerConfig(cl, group, clientID)
			sched := measure.RetrySchedule{Initial: cfg.RetryBackoff, Max: cfg.RetryBackoffMax}
			budget := measure.LoopBudget{Window: w.Duration(), Schedule: sched, Retried: shareRetriedInOutage, Brokers: cl.Brokers(),
				FetchWait: cfg.FetchMaxWait, Heartbeat: cl.HeartbeatInterval(), PollSlice: harness.PollSlice}.Compute()
			findBound := budget.Attempts + measure.BudgetEdgeSlack
			finds := w.Count(cl.Recorder(), kmsg.FindCoordinator, clientID)
			suite.BoundedFigure("find_coordinator", float64(finds), "requests", float64(findBound), fmt.Sprintf("retry schedule %s in %s + %d", sched, w.Duration().Round(time.Millisecond), measure.BudgetEdgeSlack))
			suite.Figure("polls", float64(polls), "calls", "")
			Expect(finds).To(BeNumerically("<=", findBound), "FindCoordinator requests in the outage exceed the retry schedule (%d)\n%s", findBound, harness.Diagnose(c))
			if !probed {
				return
			}
			d := s1.Sub(s0)
			suite.BoundedFigure("loop_steps", float64(d.Steps), "steps", float64(budget.Steps), budget.String())
			suite.BoundedFigure("app_wakeups", float64(d.AppWakeups), "wakeups", float64(budget.AppWakeups), fmt.Sprintf("%d per Poll", measure.BudgetWakeupsPerPoll))
			suite.Figure("spurious_wakeups", float64(d.SpuriousWakeups), "wakeups", "== 0")
			suite.Figure("past_deadline", float64(d.PastDeadline), "results", "== 0")
			Expect(d.SpuriousWakeups).To(BeZero(), "spurious wakeups in the outage\n%s", harness.Diagnose(c))
			Expect(d.ReadyWithoutRequest).To(BeZero(), "Ready results without a request in the outage\n%s", harness.Diagnose(c))
			Expect(d.PastDeadline).To(BeZero(), "RetryAt times or Await deadlines at or before their step in the outage\n%s", harness.Diagnose(c))
			Expect(int(d.Steps)).To(BeNumerically("<=", budget.Steps), "loop steps in the outage = %d, more than the configuration allows (%d: %s): a spin\n%s", d.Steps, budget.Steps, budget, harness.Diagnose(c))
			Expect(int(d.AppWakeups)).To(BeNumerically("<=", budget.AppWakeups), "application wakeups in the outage = %d, more than %d per %s Poll (%d)\n%s", d.AppWakeups, measure.BudgetWakeupsPerPoll, harness.PollSlice, budget.AppWakeups, harness.Diagnose(c))
		})

	It("waits for a ShareFetch held in flight without waking the application",
		suite.Spec("share-no-spin-fetch-in-flight", []string{"SHARE-2"}, subject.Name(), target.Name()), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			cl, group := newShareGroup(ctx, "orders", 1)
			_, err := cl.Produce(ctx, "orders", 10, nil)
			Expect(err).NotTo(HaveOccurred())
			c := newShareConsumer(cl, group, suite.UniqueName("share-client"), "orders")
			// Without a probe the spec says nothing: a held fetch is
			// invisible from outside but for the Poll's own duration.
			probe := suite.SkipWithoutShareProbe(c, "loop steps and application wakeups while a ShareFetch is held")
			suite.PollShare(ctx, c, 10, nil)
			f, err := cl.Inject(ctx, harness.FaultSpec{Kind: harness.FaultHold, Key: kmsg.ShareFetch})
			Expect(err).NotTo(HaveOccurred())
			defer f.Heal()
			pctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
			_, _ = c.Poll(pctx) // the next ShareFetch goes out and is held
			cancel()
			s0, wakes0 := probe.Stats(), probe.AppWakeups()
			pctx, cancel = context.WithTimeout(ctx, heldFetch)
			start := time.Now()
			recs, err := c.Poll(pctx)
			took := time.Since(start)
			cancel()
			Expect(err).NotTo(HaveOccurred())
			Expect(recs).To(BeEmpty())
			d, wakes := probe.Stats().Sub(s0), probe.AppWakeups()-wakes0
			suite.Figure("poll_duration", float64(took.Milliseconds()), "ms", fmt.Sprintf(">= %d ms", (heldFetch-100*time.Millisecond).Milliseconds()))
			suite.Figure("app_wakeups", float64(wakes), "wakeups", fmt.Sprintf("<= %d", idlePollWakeups))
			suite.Figure("loop_steps", float64(d.Steps), "steps", "<= 20")
			suite.Figure("spurious_wakeups", float64(d.SpuriousWakeups), "wakeups", "== 0")
			Expect(wakes).To(BeNumerically("<=", idlePollWakeups), "application wakeups = %d while a ShareFetch is held (bound %d): a ping-pong\n%s", wakes, idlePollWakeups, harness.Diagnose(c))
			Expect(d.SpuriousWakeups).To(BeZero(), "spurious wakeups while a ShareFetch is held\n%s", harness.Diagnose(c))
			Expect(d.Steps).To(BeNumerically("<=", 20), "loop steps = %d while a ShareFetch is held (bound 20): a spin\n%s", d.Steps, harness.Diagnose(c))
		})

	It("redelivers a released record with a higher delivery count and never a rejected one",
		suite.Spec("share-release-reject", []string{"SHARE-3"}, subject.Name(), target.Name()), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			cl, group := newShareGroup(ctx, "orders", 1)
			_, err := cl.Produce(ctx, "orders", 10, nil)
			Expect(err).NotTo(HaveOccurred())
			c := newExplicitShareConsumer(cl, group, suite.UniqueName("share-client"), "orders")
			typeOf := func(r consumer.ShareRecord) consumer.AcknowledgeType {
				switch r.Offset {
				case 3:
					return consumer.Release
				case 6:
					return consumer.Reject
				}
				return consumer.Accept
			}
			suite.PollShare(ctx, c, 10, func(r consumer.ShareRecord) { Expect(c.Acknowledge(r, typeOf(r))).To(Succeed()) })
			again := suite.PollShare(ctx, c, 1, func(r consumer.ShareRecord) { Expect(c.Acknowledge(r, consumer.Accept)).To(Succeed()) })
			Expect(again[0].Offset).To(BeEquivalentTo(3), "only the released record comes back")
			Expect(again[0].DeliveryCount).To(BeEquivalentTo(2))
			suite.Figure("redelivered_delivery_count", float64(again[0].DeliveryCount), "deliveries", "== 2")
			// Nothing else comes back: the rejected record is archived.
			var more []consumer.ShareRecord
			for end := time.Now().Add(harness.QuietPoll * 3); time.Now().Before(end); {
				pctx, cancel := context.WithTimeout(ctx, harness.PollSlice)
				recs, err := c.Poll(pctx)
				cancel()
				Expect(err).NotTo(HaveOccurred())
				more = append(more, recs...)
			}
			suite.Figure("redelivered_after_reject", float64(len(more)), "records", "== 0")
			Expect(more).To(BeEmpty(), "records delivered after release/reject were acknowledged")
		})

	It("gets an unacknowledged record back after its acquisition lock expires",
		suite.Spec("share-lock-expiry", []string{"SHARE-3"}, subject.Name(), target.Name()), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			cl, group := newShareGroup(ctx, "orders", 1)
			_, err := cl.Produce(ctx, "orders", 5, nil)
			Expect(err).NotTo(HaveOccurred())
			holder := newShareConsumer(cl, group, suite.UniqueName("share-holder"), "orders")
			first := suite.PollShare(ctx, holder, 5, nil)
			// The holder never acknowledges (it does not poll again), so its
			// locks expire; a second member gets the records back.
			other := newShareConsumer(cl, group, suite.UniqueName("share-other"), "orders")
			start := time.Now()
			back := suite.PollShare(ctx, other, len(first), nil)
			suite.Figure("lock_expiry_redelivery", float64(time.Since(start).Milliseconds()), "ms", "")
			for _, r := range back {
				Expect(r.DeliveryCount).To(BeNumerically(">=", 2), "%s/%d@%d", r.Topic, r.Partition, r.Offset)
			}
			suite.Figure("redelivered", float64(len(back)), "records", fmt.Sprintf("== %d", len(first)))
		})

	It("sends its final acknowledgements before the leave heartbeat and reports every one",
		suite.Spec("share-close-acks-before-leave", []string{"SHARE-4"}, subject.Name(), target.Name()), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			cl, group := newShareGroup(ctx, "orders", 3)
			_, err := cl.Produce(ctx, "orders", 60, nil)
			Expect(err).NotTo(HaveOccurred())
			clientID := suite.UniqueName("share-client")
			c := newShareConsumer(cl, group, clientID, "orders")
			acks := suite.NewAckLog(c)
			type seen struct {
				at    time.Time
				key   kmsg.Key
				epoch int32
			}
			var (
				mu    sync.Mutex // guards order: the observer runs on the broker's goroutine
				order []seen
			)
			obs := func(key kmsg.Key) harness.Fault {
				f, err := cl.Observe(ctx, key, func(o harness.Observed) {
					mu.Lock()
					defer mu.Unlock()
					switch r := o.Req.(type) {
					case *kmsg.ShareAcknowledgeRequest:
						order = append(order, seen{o.At, key, r.ShareSessionEpoch})
					case *kmsg.ShareGroupHeartbeatRequest:
						if r.GroupID == group {
							order = append(order, seen{o.At, key, r.MemberEpoch})
						}
					}
				})
				Expect(err).NotTo(HaveOccurred())
				return f
			}
			f1, f2 := obs(kmsg.ShareAcknowledge), obs(kmsg.ShareGroupHeartbeat)
			delivered := suite.PollShare(ctx, c, 60, nil)
			cctx, cancel := context.WithTimeout(ctx, harness.CloseTimeout)
			defer cancel()
			Expect(c.Close(cctx)).To(Succeed())
			f1.Heal()
			f2.Heal()
			var lastAck, leave time.Time
			mu.Lock()
			defer mu.Unlock()
			for _, s := range order {
				if s.key == kmsg.ShareAcknowledge && s.epoch == -1 {
					lastAck = s.at
				}
				if s.key == kmsg.ShareGroupHeartbeat && s.epoch == -1 && leave.IsZero() {
					leave = s.at
				}
			}
			Expect(lastAck.IsZero()).To(BeFalse(), "no closing ShareAcknowledge (epoch -1) seen")
			Expect(leave.IsZero()).To(BeFalse(), "no leave heartbeat seen")
			suite.Figure("acks_before_leave", float64(leave.Sub(lastAck).Microseconds())/1000, "ms", "> 0")
			Expect(lastAck.Before(leave)).To(BeTrue(), "closing ShareAcknowledge at %s, leave heartbeat at %s", lastAck, leave)
			accepted, failed, dups := acks.Counts()
			suite.Figure("reported", float64(accepted+failed), "offsets", fmt.Sprintf("== %d", len(delivered)))
			Expect(dups).To(BeZero())
			Expect(accepted+failed).To(Equal(len(delivered)), "every delivered offset is reported exactly once")
		})

	It("returns within its deadline with every broker down and reports the acknowledgements it could not send as failed",
		suite.Spec("share-close-brokers-down", []string{"SHARE-4"}, subject.Name(), target.Name()), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			cl, group := newShareGroup(ctx, "orders", 3)
			_, err := cl.Produce(ctx, "orders", 30, nil)
			Expect(err).NotTo(HaveOccurred())
			c := newShareConsumer(cl, group, suite.UniqueName("share-client"), "orders")
			acks := suite.NewAckLog(c)
			delivered := suite.PollShare(ctx, c, 30, nil)
			f, err := cl.Inject(ctx, harness.FaultSpec{Kind: harness.FaultBrokersDown})
			Expect(err).NotTo(HaveOccurred())
			defer f.Heal()
			cctx, cancel := context.WithTimeout(ctx, closeBroken)
			defer cancel()
			start := time.Now()
			_ = c.Close(cctx) // an error naming what was left is expected
			took := time.Since(start)
			suite.Figure("close_duration", float64(took.Milliseconds()), "ms", fmt.Sprintf("<= %d ms", (closeBroken+closeSlack).Milliseconds()))
			Expect(took).To(BeNumerically("<=", closeBroken+closeSlack))
			accepted, failed, dups := acks.Counts()
			suite.Figure("reported_failed", float64(failed), "offsets", "")
			suite.Figure("reported", float64(accepted+failed), "offsets", fmt.Sprintf("== %d", len(delivered)))
			Expect(dups).To(BeZero())
			Expect(accepted+failed).To(Equal(len(delivered)), "every delivered offset reported exactly once, accepted or failed")
		})
})
