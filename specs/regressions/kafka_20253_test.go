package regressions

// KAFKA-20253: with the coordinator unknown while the heartbeat timer has
// expired (or a FindCoordinator in flight past its backoff, or a commit
// pending), today's consumer computes a zero wait although nothing can be
// sent, and the application and background threads spin. The reactor must
// instead Await the coordinator: FindCoordinator at most once per backoff
// step, loop steps bounded by what actually happens (responses, application
// calls, backoff and heartbeat timers), no spurious wakeups, and once the
// coordinator is back the pending commit completes and consumption resumes.

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/reactor"
)

const (
	// coordinatorOutage is how long the coordinator stays unavailable. The
	// spec keeps polling through it (the window is time by design: the
	// property is about what happens while time passes with nothing to do).
	coordinatorOutage = 3 * time.Second
	// findCoordinatorSlack allows one FindCoordinator straddling each edge
	// of the window on top of Backoff.MaxAttemptsIn(window).
	findCoordinatorSlack = 2
	// appEventsPerPoll: a Poll submits one event, and one more to cancel
	// itself when its deadline passes with no records.
	appEventsPerPoll = 2
	// inFlightSlack per broker: a long-poll Fetch may be in flight at the
	// window's start; plus a heartbeat and a Metadata request (the +2).
	inFlightSlack = 2
	// timerSlack: one timer wake straddling each window edge, plus one
	// Await deadline (request timeout) firing.
	timerSlack = 3
	// beforeOutage is how many records are consumed before the outage.
	beforeOutage = 300
	// afterOutage is how many records are produced after the heal.
	afterOutage = 30
)

var _ = Describe("A consumer whose group coordinator becomes unavailable", func() {
	It("awaits the coordinator: at most one FindCoordinator per backoff step, loop steps bounded by observations and timers, no spurious wakeup, and the pending commit completes after the heal",
		harness.Spec("kafka-20253-coordinator-lost", []string{"KAFKA-20253"}, subject.Name(), target.Name()),
		SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			const topic = "payments"
			cl := harness.StartCluster(ctx, target, harness.TargetConfig{Brokers: 3, Topics: map[string]int32{topic: 3}})
			rec := cl.Recorder()
			groupID, clientID := harness.UniqueName("kafka-20253"), harness.UniqueName("kafka-20253-client")
			cfg := harness.ConsumerConfig(cl, groupID, clientID)

			By(fmt.Sprintf("consuming %d records so the member is stable and has positions to commit", beforeOutage))
			counts, err := cl.Produce(ctx, topic, beforeOutage, nil)
			Expect(err).NotTo(HaveOccurred())
			c := harness.Track(harness.NewConsumer(subject, cfg))
			Expect(c.Subscribe(topic)).To(Succeed())
			wctx, cancel := context.WithTimeout(ctx, harness.WaitTimeout)
			defer cancel()
			recs, _, err := harness.PollUntil(wctx, c, beforeOutage)
			Expect(err).NotTo(HaveOccurred(), "consuming before the outage\n%s", harness.Diagnose(c))
			delivered, err := harness.CheckDelivery(recs, harness.Partitions(topic, counts), nil)
			Expect(err).NotTo(HaveOccurred())

			By(fmt.Sprintf("making the coordinator unavailable for %s and committing asynchronously at once", coordinatorOutage))
			// The loop's counters and the application's wakeups are ours
			// to read; for a black-box subject they are n/a, and the
			// brokers' and the application's view below still decide.
			probe, probed := harness.RequireProbe(c, "loop_steps_and_app_wakeups_in_window")
			var before, after reactor.Stats
			var wakesBefore, wakesAfter uint64
			if probed {
				before, wakesBefore = probe.Stats(), probe.AppWakeups()
			}
			callsBefore := c.Calls()
			from := rec.Mark()
			fault, err := cl.CoordinatorUnavailable(ctx, groupID)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(fault.Heal)
			type outcome struct {
				err    error
				at     time.Time
				inCall bool
			}
			committed := make(chan outcome, 1)
			c.CommitAsync(func(err error) { committed <- outcome{err, time.Now(), c.InCall()} })

			By("polling through the outage")
			got, _, err := harness.PollFor(ctx, c, coordinatorOutage-time.Since(from))
			Expect(err).NotTo(HaveOccurred(), "Poll during the outage\n%s", harness.Diagnose(c))
			Expect(got).To(BeEmpty(), "records during the outage (none were produced)")
			if probed {
				after, wakesAfter = probe.Stats(), probe.AppWakeups()
			}
			callsAfter := c.Calls()
			to := rec.Mark()
			Expect(committed).NotTo(Receive(), "the CommitAsync callback ran while the coordinator was unavailable")
			faultHits := fault.Hits()
			fault.Heal()
			healed := time.Now()

			window := harness.Window{From: from, To: to}
			polls := callsAfter.Polls - callsBefore.Polls
			findCoordinator := harness.CountIn(rec, kmsg.FindCoordinator, clientID, window)
			requests := harness.RequestsIn(rec, clientID, window)
			backoff := harness.Backoff(cfg)
			attempts := backoff.MaxAttemptsIn(window.Duration())

			// FindCoordinator: the first at once, then one per backoff step.
			findBound := attempts + findCoordinatorSlack
			harness.Figure("find_coordinator_in_window", float64(findCoordinator), "requests", fmt.Sprintf("<= %d (MaxAttemptsIn(%s) + %d)", findBound, window.Duration().Round(time.Millisecond), findCoordinatorSlack))
			harness.Figure("find_coordinator_rate", harness.RateIn(rec, kmsg.FindCoordinator, clientID, window), "req/s", "")
			Expect(findCoordinator).To(BeNumerically(">=", 1), "FindCoordinator requests in the window: the outage was never noticed (fault hits %d)", faultHits)
			Expect(findCoordinator).To(BeNumerically("<=", findBound), "FindCoordinator requests in %s exceed one per backoff step\n%s", window.Duration(), harness.Diagnose(c))

			if probed {
				// Loop steps. A step starts only on an observation (inbox) or
				// a passed deadline (timer). Observations: at most one
				// completion per request the brokers saw in the window, plus
				// requests already in flight when it opened, plus the
				// application's events. Timer wakes: each is a RetryAt or
				// Await deadline some manager returned: the coordinator's,
				// the heartbeat's and the commit's backoff steps (at most
				// MaxAttemptsIn(window) each), the heartbeat interval, and a
				// small constant for the edges.
				d := after.Sub(before)
				obsBound := requests + inFlightSlack*cl.Brokers() + 2 + appEventsPerPoll*int(polls) + 1
				hbIntervals := int(window.Duration()/cl.HeartbeatInterval()) + 1
				timerBound := 3*attempts + hbIntervals + timerSlack
				stepBound := obsBound + timerBound + 1
				harness.Figure("loop_steps_in_window", float64(d.Steps), "steps", fmt.Sprintf("<= %d (observations <= %d + timer wakes <= %d + 1)", stepBound, obsBound, timerBound))
				harness.Figure("loop_steps_per_second", float64(d.Steps)/window.Duration().Seconds(), "steps/s", "")
				harness.Figure("observations_in_window", float64(d.Observations), "observations", fmt.Sprintf("<= %d (%d requests, %d polls)", obsBound, requests, polls))
				harness.Figure("timer_wakes_in_window", float64(d.TimerWakes), "wakeups", fmt.Sprintf("<= %d", timerBound))
				harness.Figure("spurious_wakeups_in_window", float64(d.SpuriousWakeups), "wakeups", "== 0")
				harness.Figure("ready_without_request_in_window", float64(d.ReadyWithoutRequest), "results", "== 0")
				harness.Figure("past_deadline_in_window", float64(d.PastDeadline), "results", "== 0")
				Expect(d.SpuriousWakeups).To(BeZero(), "spurious wakeups in the window (invariant 2)\n%s", harness.Diagnose(c))
				Expect(d.ReadyWithoutRequest).To(BeZero(), "Ready results without a request in the window (invariant 1)\n%s", harness.Diagnose(c))
				Expect(d.PastDeadline).To(BeZero(), "RetryAt times already past when returned (a zero wait: the KAFKA-20253 shape)\n%s", harness.Diagnose(c))
				Expect(d.Observations).To(BeNumerically("<=", uint64(obsBound)), "observations in the window exceed responses + application events\n%s", harness.Diagnose(c))
				Expect(d.TimerWakes).To(BeNumerically("<=", uint64(timerBound)), "timer wakes in the window exceed backoff steps + heartbeat intervals + %d\n%s", timerSlack, harness.Diagnose(c))
				Expect(d.Steps).To(BeNumerically("<=", uint64(stepBound)), "loop steps in the window exceed observations + timer wakes\n%s", harness.Diagnose(c))

				// The application side: every Poll wakes once (records, or
				// its deadline), never on a signal that carries nothing.
				appWakeups := wakesAfter - wakesBefore
				harness.Figure("app_wakeups_in_window", float64(appWakeups), "wakeups", fmt.Sprintf("<= %d (one per Poll)", polls))
				Expect(appWakeups).To(BeNumerically("<=", uint64(polls)), "application wakeups in the window exceed one per Poll: the application side spins\n%s", harness.Diagnose(c))
			}

			By("after the heal, the commit completes on a later Poll")
			healToCommitBound := harness.MaxBackoffWait(cfg) + 2*cl.HeartbeatInterval() + harness.PollSlice + time.Second
			var done outcome
			Eventually(ctx, func(g Gomega) {
				pctx, pcancel := context.WithTimeout(ctx, harness.PollSlice)
				defer pcancel()
				_, err := c.Poll(pctx)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(committed).To(Receive(&done))
			}).WithTimeout(harness.WaitTimeout).WithPolling(time.Millisecond).Should(Succeed(), "the CommitAsync callback after the heal\n%s", harness.Diagnose(c))
			healToCommit := done.at.Sub(healed)
			harness.Figure("heal_to_commit", float64(healToCommit.Milliseconds()), "ms", fmt.Sprintf("<= %d ms", healToCommitBound.Milliseconds()))
			Expect(done.err).NotTo(HaveOccurred(), "the CommitAsync callback's error")
			Expect(done.inCall).To(BeTrue(), "the CommitAsync callback ran outside an application call")
			Expect(healToCommit).To(BeNumerically("<=", healToCommitBound), "heal -> commit completion exceeds max backoff + 2 heartbeats + a poll + 1 s")
			gi, err := cl.GroupInfo(ctx, groupID)
			Expect(err).NotTo(HaveOccurred())
			Expect(gi.Commits).To(Equal(delivered.Next), "offsets committed by the CommitAsync")

			By(fmt.Sprintf("producing %d more records: consumption resumes where it stopped", afterOutage))
			counts, err = cl.Produce(ctx, topic, afterOutage, nil)
			Expect(err).NotTo(HaveOccurred())
			resumed := time.Now()
			wctx2, cancel2 := context.WithTimeout(ctx, harness.WaitTimeout)
			defer cancel2()
			recs, _, err = harness.PollUntil(wctx2, c, afterOutage)
			Expect(err).NotTo(HaveOccurred(), "consuming after the heal\n%s", harness.Diagnose(c))
			harness.Figure("resume_to_records", float64(time.Since(resumed).Milliseconds()), "ms", "")
			_, err = harness.CheckDelivery(recs, harness.Partitions(topic, counts), delivered.Next)
			Expect(err).NotTo(HaveOccurred())

			cctx, ccancel := context.WithTimeout(ctx, harness.CloseTimeout)
			defer ccancel()
			Expect(c.Close(cctx)).To(Succeed(), "Close after the heal\n%s", harness.Diagnose(c))
		})
})
