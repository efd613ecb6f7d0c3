package regressions

// KAFKA-20253: with the coordinator unknown while the heartbeat timer has
// expired (or a FindCoordinator in flight past its backoff, or a commit
// pending), today's consumer computes a zero wait although nothing can be
// sent, and the application and background threads spin. The reactor must
// instead Await the coordinator: FindCoordinator at most once per step of
// the retry schedule, loop steps within what the configuration lets happen
// in the window (responses, application calls, backoff and heartbeat
// timers), no spurious wakeup and no past deadline, and once the
// coordinator is back the pending commit completes and consumption
// resumes.
//
// Every bound below comes from the configuration (the retry schedule as
// Kafka documents it, through measure.RetrySchedule; the heartbeat interval;
// fetch.max.wait.ms; the spec's own Poll slice), never from what the
// subject did in the window: a bound scaled by the requests or polls the
// subject made grows with a bug that makes more of them (a mutant
// whose Poll returned at once passed with 227,725 steps in 3 s).

import (
	"context"
	"fmt"
	"maps"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/consume"
	"github.com/kreactor/kreactor/harness/measure"
	"github.com/kreactor/kreactor/harness/suite"
	"github.com/kreactor/kreactor/reactor"
)

const (
	// coordinatorOutage is how long the coordinator stays unavailable. The
	// spec keeps polling through it (the window is time by design: the
	// property is about what happens while time passes with nothing to do).
	coordinatorOutage = 3 * time.Second
	// retriedInOutage are the requests that retry on the schedule while
	// the coordinator is unavailable: FindCoordinator, the heartbeat, the
	// commit and Metadata.
	retriedInOutage = 4
	// beforeOutage is how many records are consumed before the outage.
	beforeOutage = 300
	// afterOutage is how many records are produced after the heal.
	afterOutage = 30
	// calmWindow is how long the idle CPU calibration polls, after the
	// member consumed and before the outage (a JVM's start and JIT are
	// behind it by then).
	calmWindow = 2 * time.Second
)

// Keys of the spec's expectations (figure names).
const (
	keyDeliveredBefore = "delivered_before_outage"
	keyFindCoordinator = "find_coordinator_in_window"
	keySteps           = "loop_steps_in_window"
	keyObservations    = "observations_in_window"
	keyTimerWakes      = "timer_wakes_in_window"
	keySpurious        = "spurious_wakeups_in_window"
	keyReadyNoRequest  = "ready_without_request_in_window"
	keyPastDeadline    = "past_deadline_in_window"
	keyAppWakeups      = "app_wakeups_in_window"
	keyCPU             = "cpu_in_window"
	keyCPUSelects      = keyCPU + measure.CPUSuffixSelects
	keyCommitted       = "commit_completed"
	keyHealToCommit    = "heal_to_commit"
	keyDeliveredAfter  = "delivered_after_heal"
	keyClose           = "close"
)

var _ = Describe("A consumer whose group coordinator becomes unavailable", func() {
	It("awaits the coordinator: at most one FindCoordinator per step of the retry schedule, loop steps within what the configuration allows, no spurious wakeup and no past deadline, and the pending commit completes after the heal",
		suite.Spec("kafka-20253-coordinator-lost", []string{"KAFKA-20253"}, subject.Name(), target.Name()), suite.Alone(suite.JudgesCPU),
		SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			// The Jira's symptom is the spin: loop steps and wakes with
			// nothing to do. Progress is the records, the commit, and the
			// records after the heal.
			// For a subject without the loop's counters (java, kgo) the
			// spin shows as the consumer's CPU against its own calm
			// window, and Java's selector polls (measure.DefaultCPUBound).
			suite.Signals(keySteps, keySpurious, keyCPU, keyCPUSelects)
			suite.Liveness(keyDeliveredBefore, keyCommitted, keyDeliveredAfter)
			var ex suite.Checks
			const topic = "payments"
			cl := suite.StartCluster(ctx, target, harness.TargetConfig{Brokers: 3, Topics: map[string]int32{topic: 3}})
			rec := cl.Recorder()
			groupID, clientID := suite.UniqueName("kafka-20253"), suite.UniqueName("kafka-20253-client")
			cfg := suite.ConsumerConfig(cl, groupID, clientID)

			By(fmt.Sprintf("consuming %d records so the member is stable and has positions to commit", beforeOutage))
			counts, err := cl.Produce(ctx, topic, beforeOutage, nil)
			Expect(err).NotTo(HaveOccurred())
			c := consume.Track(suite.NewConsumer(subject, cfg))
			Expect(c.Subscribe(topic)).To(Succeed())
			wctx, cancel := context.WithTimeout(ctx, harness.WaitTimeout)
			defer cancel()
			recs, _, err := consume.PollUntil(wctx, c, beforeOutage)
			ex.Require(keyDeliveredBefore, err == nil, "consuming before the outage: %v\n%s", err, harness.Diagnose(c))
			delivered, err := consume.CheckDelivery(recs, consume.Partitions(topic, counts), nil)
			ex.Require(keyDeliveredBefore, err == nil, "%v", err)

			By(fmt.Sprintf("polling %s with nothing to do: the idle CPU calibration", calmWindow))
			calm, err := measure.StartCPU(c)
			Expect(err).NotTo(HaveOccurred(), "read the consumer's CPU")
			_, _, err = consume.PollFor(ctx, c, calmWindow)
			ex.Require(harness.KeyTimeline, err == nil, "Poll in the calm window: %v", err)
			idleCPU, err := calm.Stop()
			Expect(err).NotTo(HaveOccurred(), "read the consumer's CPU")

			By(fmt.Sprintf("making the coordinator unavailable for %s and committing asynchronously at once", coordinatorOutage))
			// The loop's counters are ours to read; for a black-box
			// subject they are n/a, and the brokers' and the
			// application's view below still decide.
			probe, probed := suite.RequireProbe(c, "loop_steps_and_app_wakeups_in_window")
			var before, after reactor.Stats
			if probed {
				before = probe.Stats()
			}
			from := rec.Mark()
			outageCPU, err := measure.StartCPU(c)
			Expect(err).NotTo(HaveOccurred(), "read the consumer's CPU")
			fault, err := cl.CoordinatorUnavailable(ctx, groupID)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(fault.Heal)
			type outcome struct {
				err    error
				at     time.Time
				inCall bool
			}
			committed := make(chan outcome, 1)
			c.CommitAsync(func(err error) { committed <- outcome{err, time.Now(), c.InCallHere()} })

			By("polling through the outage")
			got, _, err := consume.PollFor(ctx, c, coordinatorOutage-time.Since(from))
			ex.Require(harness.KeyTimeline, err == nil, "Poll during the outage: %v\n%s", err, harness.Diagnose(c))
			ex.That(keyDeliveredBefore, len(got) == 0, "%d records during the outage (none were produced)", len(got))
			var pastInTrace int
			if probed {
				after = probe.Stats()
			}
			to := rec.Mark()
			faultCPU, err := outageCPU.Stop()
			Expect(err).NotTo(HaveOccurred(), "read the consumer's CPU")
			if probed {
				pastInTrace = measure.PastDeadlinesIn(probe.Trace(), from, to)
			}
			// A callback that already ran (kafka-clients fails a
			// commitAsync at once with RetriableCommitFailedException when
			// the coordinator is unknown) is the commit's outcome: there is
			// nothing left to wait for after the heal.
			var early *outcome
			select {
			case o := <-committed:
				early = &o
				ex.That(keyCommitted, false, "the CommitAsync callback ran while the coordinator was unavailable (%v)", o.err)
			default:
			}
			faultHits := fault.Hits()
			fault.Heal()
			healed := time.Now()

			window := harness.Window{From: from, To: to}
			budget := measure.LoopBudget{Window: window.Duration(), Schedule: measure.Schedule(cfg), Retried: retriedInOutage, Brokers: cl.Brokers(),
				FetchWait: cfg.FetchMaxWait, Heartbeat: cl.HeartbeatInterval(), PollSlice: harness.PollSlice}.Compute()
			suite.Note("budget", budget.String())

			// FindCoordinator: the first at once, then one per step of
			// the schedule.
			findCoordinator := window.Count(rec, kmsg.FindCoordinator, clientID)
			findBound := budget.Attempts + measure.BudgetEdgeSlack
			suite.BoundedFigure(keyFindCoordinator, float64(findCoordinator), "requests", float64(findBound), fmt.Sprintf("retry schedule %s: %d attempts in %s + %d", measure.Schedule(cfg), budget.Attempts, window.Duration().Round(time.Millisecond), measure.BudgetEdgeSlack))
			suite.Figure("find_coordinator_rate", window.Rate(rec, kmsg.FindCoordinator, clientID), "req/s", "")
			suite.Figure("requests_in_window", float64(window.Requests(rec, clientID)), "requests", fmt.Sprintf("budget %d", budget.Requests))
			ex.That(keyFindCoordinator, findCoordinator >= 1, "no FindCoordinator in the window: the outage was never noticed (fault hits %d)", faultHits)
			ex.That(keyFindCoordinator, findCoordinator <= findBound, "%d FindCoordinator requests in %s exceed the retry schedule's %d\n%s", findCoordinator, window.Duration(), findBound, harness.Diagnose(c))

			// CPU: the consumer's own (checked) for java and kgo, the test
			// process's (shown only) for our in-process subjects.
			cpu, err := measure.JudgeCPU(faultCPU, idleCPU, measure.DefaultCPUBound)
			Expect(err).NotTo(HaveOccurred())
			suite.AttachCPU(cpu, keyCPU)
			ex.That(keyCPU, cpu.CPUOK, "%s\n%s", cpu.CPUMessage(), harness.Diagnose(c))
			ex.That(keyCPUSelects, cpu.SelectsOK, "%s", cpu.SelectsMessage())

			if probed {
				d := after.Sub(before)
				past := max(d.PastDeadline, uint64(pastInTrace))
				suite.BoundedFigure(keySteps, float64(d.Steps), "steps", float64(budget.Steps), fmt.Sprintf("observations <= %d + timer wakes <= %d + 1", budget.Observations, budget.Timers))
				suite.Figure("loop_steps_per_second", float64(d.Steps)/window.Duration().Seconds(), "steps/s", "")
				suite.BoundedFigure(keyObservations, float64(d.Observations), "observations", float64(budget.Observations), fmt.Sprintf("%d requests + %d in flight + %d polls x %d + 1", budget.Requests, measure.BudgetInFlightAtStart*cl.Brokers(), budget.Polls, measure.BudgetEventsPerPoll))
				suite.BoundedFigure(keyTimerWakes, float64(d.TimerWakes), "wakeups", float64(budget.Timers), "")
				suite.Figure(keySpurious, float64(d.SpuriousWakeups), "wakeups", "== 0")
				suite.Figure(keyReadyNoRequest, float64(d.ReadyWithoutRequest), "results", "== 0")
				suite.Figure(keyPastDeadline, float64(past), "results", fmt.Sprintf("== 0 (engine %d, decisions %d)", d.PastDeadline, pastInTrace))
				ex.That(keySpurious, d.SpuriousWakeups == 0, "%d spurious wakeups in the window (invariant 2)\n%s", d.SpuriousWakeups, harness.Diagnose(c))
				ex.That(keyReadyNoRequest, d.ReadyWithoutRequest == 0, "%d Ready results without a request (invariant 1)", d.ReadyWithoutRequest)
				ex.That(keyPastDeadline, past == 0, "%d RetryAt times or Await deadlines at or before their step (a zero wait: the KAFKA-20253 shape)\n%s", past, harness.Diagnose(c))
				ex.That(keyObservations, d.Observations <= uint64(budget.Observations), "%d observations exceed the %d the configuration allows\n%s", d.Observations, budget.Observations, harness.Diagnose(c))
				ex.That(keyTimerWakes, d.TimerWakes <= uint64(budget.Timers), "%d timer wakes exceed the schedule's and the heartbeat's %d", d.TimerWakes, budget.Timers)
				ex.That(keySteps, d.Steps <= uint64(budget.Steps), "%d loop steps exceed the %d the configuration allows (%s)\n%s", d.Steps, budget.Steps, budget.String(), harness.Diagnose(c))

				// The application side: every Poll of the spec's loop is
				// released by its deadline and by the cancel's
				// acknowledgement; the number of Polls the window holds is
				// the spec's, not the subject's.
				suite.BoundedFigure(keyAppWakeups, float64(d.AppWakeups), "wakeups", float64(budget.AppWakeups), fmt.Sprintf("%d per Poll of %s in %s", measure.BudgetWakeupsPerPoll, harness.PollSlice, window.Duration().Round(time.Millisecond)))
				ex.That(keyAppWakeups, d.AppWakeups <= uint64(budget.AppWakeups), "%d application wakeups exceed %d per %s Poll (%d): the application side spins\n%s", d.AppWakeups, measure.BudgetWakeupsPerPoll, harness.PollSlice, budget.AppWakeups, harness.Diagnose(c))
			}

			By("after the heal, the commit completes on a later Poll")
			healToCommitBound := measure.Schedule(cfg).MaxWait() + 2*cl.HeartbeatInterval() + harness.PollSlice + time.Second
			var done outcome
			completed := early != nil
			if completed {
				done = *early
			}
			for deadline := time.Now().Add(harness.WaitTimeout); !completed && time.Now().Before(deadline) && ctx.Err() == nil; {
				pctx, pcancel := context.WithTimeout(ctx, harness.PollSlice)
				_, err := c.Poll(pctx)
				pcancel()
				ex.Require(harness.KeyTimeline, err == nil, "Poll after the heal: %v", err)
				select {
				case done = <-committed:
					completed = true
				default:
				}
			}
			ex.Require(keyCommitted, completed, "no CommitAsync callback within %s of the heal\n%s", harness.WaitTimeout, harness.Diagnose(c))
			healToCommit := done.at.Sub(healed)
			suite.BoundedFigure(keyHealToCommit, float64(healToCommit.Milliseconds()), "ms", float64(healToCommitBound.Milliseconds()), "max backoff + 2 heartbeats + a poll + 1 s")
			ex.That(keyCommitted, done.err == nil, "the CommitAsync callback's error: %v", done.err)
			ex.That(keyCommitted, done.inCall, "the CommitAsync callback ran outside an application call on the application goroutine (Java runs it in the application's next Poll, CommitSync or Close, on its thread)")
			ex.That(keyHealToCommit, healToCommit <= healToCommitBound, "heal -> commit completion %s exceeds %s (max backoff + 2 heartbeats + a poll + 1 s)", healToCommit, healToCommitBound)
			gi, err := cl.GroupInfo(ctx, groupID)
			Expect(err).NotTo(HaveOccurred())
			ex.That(keyCommitted, maps.Equal(gi.Commits, delivered.Next), "offsets committed by the CommitAsync: %v, want %v", gi.Commits, delivered.Next)

			By(fmt.Sprintf("producing %d more records: consumption resumes where it stopped", afterOutage))
			counts, err = cl.Produce(ctx, topic, afterOutage, nil)
			Expect(err).NotTo(HaveOccurred())
			resumed := time.Now()
			wctx2, cancel2 := context.WithTimeout(ctx, harness.WaitTimeout)
			defer cancel2()
			recs, _, err = consume.PollUntil(wctx2, c, afterOutage)
			ex.Require(keyDeliveredAfter, err == nil, "consuming after the heal: %v\n%s", err, harness.Diagnose(c))
			suite.Figure("resume_to_records", float64(time.Since(resumed).Milliseconds()), "ms", "")
			_, err = consume.CheckDelivery(recs, consume.Partitions(topic, counts), delivered.Next)
			ex.That(keyDeliveredAfter, err == nil, "%v", err)

			cctx, ccancel := context.WithTimeout(ctx, harness.CloseTimeout)
			defer ccancel()
			err = c.Close(cctx)
			ex.That(keyClose, err == nil, "Close after the heal: %v\n%s", err, harness.Diagnose(c))
			ex.Done()
		})
})
