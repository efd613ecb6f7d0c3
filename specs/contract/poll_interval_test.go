package contract

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/consume"
	"github.com/kreactor/kreactor/harness/suite"
)

const (
	// pollInterval is max.poll.interval.ms in these specs.
	pollInterval = time.Second
	// pollPause is how long the application stops calling Poll: three
	// intervals (CONTRACT-6).
	pollPause = 3 * pollInterval
	// leaveEarlyRatio and leaveLateRatio bound when the leave may come, as
	// ratios of the interval after the application's last Poll was called
	// ("about that long"). max.poll.interval.ms is "the maximum delay
	// between invocations of poll()" (ConsumerConfig), and kafka-clients
	// starts the timer at the invocation: AsyncKafkaConsumer.poll hands the
	// time the call started to the network thread (PollEvent), whose
	// heartbeat manager resets its poll timer to it
	// (AbstractHeartbeatRequestManager.resetPollTimer). A consumer that
	// starts it when the Poll returns leaves up to one Poll (PollSlice)
	// later, and a loaded machine may run the leave late.
	leaveEarlyRatio = 0.9
	leaveLateRatio  = 1.5
	// pollRecords is what the specs consume before pausing.
	pollRecords = 30
)

// pause is the application not calling Poll for d: scenario time passing
// while the consumer works on its own, not a synchronisation.
func pause(ctx context.Context, d time.Duration) {
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
}

// lastPollCall makes the application's last Poll before its pause (one
// PollSlice) and returns when it was called: the reference point of
// max.poll.interval.ms (see leaveEarlyRatio).
func lastPollCall(ctx context.Context, poll func(context.Context) error) time.Time {
	GinkgoHelper()
	pctx, cancel := context.WithTimeout(ctx, harness.PollSlice)
	defer cancel()
	called := time.Now()
	Expect(poll(pctx)).To(Succeed(), "the last Poll before the pause")
	return called
}

// checkPollIntervalLeave checks the heartbeats (API key) clientID sent in
// one pause: a leave (epoch -1) between leaveEarlyRatio and leaveLateRatio
// x pollInterval after lastPoll, and no heartbeat after it until pauseEnd. The
// leave is found by its epoch (beats); the heartbeats are counted from the
// brokers' recorder (an observer may be called more than once per request
// on kfake).
func checkPollIntervalLeave(cl harness.Cluster, key kmsg.Key, clientID string, beats *heartbeatLog, lastPoll, pauseEnd time.Time) {
	GinkgoHelper()
	recs := cl.Recorder().Filter(harness.Window{From: lastPoll, To: pauseEnd}.Filter(clientID, key))
	suite.Figure("heartbeats_in_pause", float64(len(recs)), "requests", "")
	leave, ok := beats.first(lastPoll, -1)
	Expect(ok).To(BeTrue(), "no leave heartbeat (member epoch -1) in %s without Poll (max.poll.interval.ms %s); heartbeats: %d", pollPause, pollInterval, len(recs))
	after := leave.at.Sub(lastPoll)
	early, late := time.Duration(leaveEarlyRatio*float64(pollInterval)), time.Duration(leaveLateRatio*float64(pollInterval))
	suite.Figure("leave_after_last_poll", float64(after.Milliseconds()), "ms",
		fmt.Sprintf("%d..%d ms (max.poll.interval.ms x %.1f..%.1f)", early.Milliseconds(), late.Milliseconds(), leaveEarlyRatio, leaveLateRatio))
	Expect(after).To(BeNumerically(">=", early), "leave before leaveEarlyRatio x max.poll.interval.ms")
	Expect(after).To(BeNumerically("<=", late), "leave later than leaveLateRatio x max.poll.interval.ms")
	// The leave's record is the last one read before the leave was
	// handled; everything recorded after it came after the leave.
	later := 0
	for _, r := range recs {
		if r.At.After(leave.at) {
			later++
		}
	}
	suite.Figure("heartbeats_after_leave", float64(later), "requests", "== 0")
	Expect(later).To(BeZero(), "heartbeats after the leave while the application still did not poll")
}

var _ = Describe("max.poll.interval.ms", func() {
	It("makes a group consumer that stops polling leave the group about that long after its last Poll, stop heartbeating, and rejoin at its next Poll",
		suite.Spec("contract-6-poll-interval-group", []string{"CONTRACT-6"}, subject.Name(), target.Name()), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			const topic = "orders"
			cl := suite.StartCluster(ctx, target, harness.TargetConfig{Brokers: 3, Topics: map[string]int32{topic: 3}})
			group := suite.UniqueName("poll-interval")
			_, err := cl.Produce(ctx, topic, pollRecords, nil)
			Expect(err).NotTo(HaveOccurred())
			cfg := suite.ConsumerConfig(cl, group, suite.UniqueName("poll-interval-client"))
			cfg.MaxPollInterval = pollInterval
			c := suite.NewConsumer(subject, cfg)
			Expect(c.Subscribe(topic)).To(Succeed())
			wctx, cancel := context.WithTimeout(ctx, harness.WaitTimeout)
			defer cancel()
			_, _, err = consume.PollUntil(wctx, c, pollRecords)
			Expect(err).NotTo(HaveOccurred(), harness.Diagnose(c))
			beats := observeHeartbeats(ctx, cl, kmsg.ConsumerGroupHeartbeat, group)
			lastPoll := lastPollCall(ctx, func(ctx context.Context) error { _, err := c.Poll(ctx); return err })

			By(fmt.Sprintf("not polling for %s", pollPause))
			pause(ctx, pollPause)
			pauseEnd := time.Now()
			checkPollIntervalLeave(cl, kmsg.ConsumerGroupHeartbeat, cfg.ClientID, beats, lastPoll, pauseEnd)
			gi, err := cl.GroupInfo(ctx, group)
			Expect(err).NotTo(HaveOccurred())
			Expect(gi.Members).To(BeEmpty(), "members after the leave")

			By("polling again: the member joins with epoch 0 and consumes")
			rctx, rcancel := context.WithTimeout(ctx, harness.WaitTimeout)
			defer rcancel()
			_, ps, err := consume.PollUntil(rctx, c, 1)
			Expect(err).NotTo(HaveOccurred(), "no record after polling again\n%s", harness.Diagnose(c))
			_, ok := beats.first(pauseEnd, 0)
			Expect(ok).To(BeTrue(), "no join heartbeat (epoch 0) after the next Poll")
			suite.Figure("rejoin_first_record", float64(ps.FirstRecord.Milliseconds()), "ms", "")
			gi, err = cl.GroupInfo(ctx, group)
			Expect(err).NotTo(HaveOccurred())
			Expect(gi.Members).To(HaveLen(1), "members after the rejoin")
		})

	It("makes a share consumer that stops polling leave its share group about that long after its last Poll, stop heartbeating, and rejoin at its next Poll",
		suite.Spec("contract-6-poll-interval-share", []string{"CONTRACT-6"}, subject.Name(), target.Name()), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			const topic = "orders"
			cl := suite.StartCluster(ctx, target, harness.TargetConfig{Brokers: 3, Topics: map[string]int32{topic: 3}})
			group := suite.UniqueName("share-poll-interval")
			Expect(cl.SetGroupConfigs(ctx, group, map[string]string{"share.auto.offset.reset": "earliest"})).To(Succeed())
			_, err := cl.Produce(ctx, topic, pollRecords, nil)
			Expect(err).NotTo(HaveOccurred())
			cfg := suite.ShareConsumerConfig(cl, group, suite.UniqueName("share-poll-interval-client"))
			cfg.MaxPollInterval = pollInterval
			c := suite.NewShareConsumer(subject, cfg)
			Expect(c.Subscribe(topic)).To(Succeed())
			suite.PollShare(ctx, c, pollRecords, nil)
			beats := observeHeartbeats(ctx, cl, kmsg.ShareGroupHeartbeat, group)
			lastPoll := lastPollCall(ctx, func(ctx context.Context) error { _, err := c.Poll(ctx); return err })

			By(fmt.Sprintf("not polling for %s", pollPause))
			pause(ctx, pollPause)
			pauseEnd := time.Now()
			checkPollIntervalLeave(cl, kmsg.ShareGroupHeartbeat, cfg.ClientID, beats, lastPoll, pauseEnd)

			By("polling again: the member joins with epoch 0")
			pctx, pcancel := context.WithTimeout(ctx, harness.PollSlice)
			_, _ = c.Poll(pctx) // its acknowledgements may fail: the records were released when the member left
			pcancel()
			Eventually(ctx, func() bool { _, ok := beats.first(pauseEnd, 0); return ok }).WithTimeout(harness.WaitTimeout).Should(BeTrue(),
				"no join heartbeat (epoch 0) after the next Poll\n%s", harness.Diagnose(c))
			Eventually(ctx, func(ctx context.Context) (int, error) {
				gi, err := cl.GroupInfo(ctx, group)
				return len(gi.Members), err
			}).WithTimeout(harness.WaitTimeout).Should(Equal(1), "share group members after the rejoin")
		})
})
