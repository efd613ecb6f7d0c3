package properties

// P4: one immutable timing decision is published before any
// application-visible effect it includes runs, and an application call never
// stays blocked once its release condition is published.
//
// Two specs. The stress spec drives CommitSync through a consumer of the
// subject 10,000 times against kfake with every OffsetCommit answer delayed
// by a random 0-2 ms (held on the consumer's side of the connection), and
// checks each return twice: with the consumer's own return probe
// (consumer.CommitReturns: the published decision's version at return is
// below the version of the completion) and independently with the decision
// trace (the decision whose commit manager result first turns Idle after
// the call, i.e. the one containing the completion, must already be in the
// trace when the call returns). A late return is a call still blocked
// heartbeat interval / lateFraction or more after the start of the step
// that published its completion, not counting the time this process was
// stalled (a measure.StallMonitor runs through the stress, and a gap of it
// counts only if no CommitSync of any consumer returned inside it: a machine
// that holds every goroutine for 90 ms is not a lost wakeup, a monitor
// starved while the consumers run is not a stall). The step's time At
// is read before the step polls and publishes, so the measure can only
// overstate lateness. A call the publication failed to wake (a lost
// wakeup) stays blocked until the consumer's next step; while the stress
// runs no Fetch is in flight and no other commit is pending, so that is the
// next heartbeat, up to one heartbeat interval later.
//
// The engine spec checks invariant 4 on the engine alone, with synthetic
// managers: every effect sees a published version at least the version it
// was queued at.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/consume"
	"github.com/kreactor/kreactor/harness/measure"
	"github.com/kreactor/kreactor/harness/subjects/ours"
	"github.com/kreactor/kreactor/harness/suite"
	"github.com/kreactor/kreactor/reactor"
)

const (
	// commitCalls is how many CommitSync calls the stress spec makes in
	// total, spread over commitConsumers consumers (each in its own group,
	// each called from its own goroutine) so the broker's delays overlap.
	commitCalls     = 10_000
	commitConsumers = 4
	// commitDelayMax bounds the delay of each OffsetCommit answer: uniform
	// in [0, commitDelayMax).
	commitDelayMax = 2 * time.Millisecond
	// lateFraction is the share of the cluster's heartbeat interval a
	// CommitSync may still be blocked after the start of the step that
	// published its completion, stalls of this process not counted (50 ms
	// at the default 250 ms). Steps take well under a millisecond. A lost
	// wakeup is released by the next heartbeat, a uniform 0 to 1 interval
	// later, so each one is late with probability 1 - 1/lateFraction (4 in
	// 5), and a loss that recurs in 10,000 calls is seen.
	lateFraction = 5
	// p4Records are consumed first, so every CommitSync has positions to
	// commit on both subjects (the baseline commits only positions of
	// records it returned).
	p4Records = 300
	// effectChecks is how many effects the engine spec queues.
	effectChecks = 10_000
)

// commitRun is what one consumer's goroutine measured.
type commitRun struct {
	clientID      string
	calls, errors int
	firstErr      error
	earlyTrace    int // returned before its completion decision was in the trace
	unmeasured    int // the trace no longer held the call's steps
	latenesses    []time.Duration
	returns       []time.Time // when each call returned: activity that refutes a stall
	// slow are the calls that returned lateBound or more after their
	// completion step; whether the time is the machine's is known only
	// once the stress has ended (judgeLate).
	slow         []slowReturn
	earlyExample string
}

// slowReturn is one call that returned lateBound or more after the start
// of the step that published its completion.
type slowReturn struct {
	step, returned time.Time
	example        string
}

var _ = Describe("Publication before effects", func() {
	It("returns every one of 10,000 CommitSync calls after, and promptly after, the decision containing its completion is published",
		suite.Spec("publication.commit-sync-stress", []string{"P4"}, subject.Name(), target.Name()), suite.Alone(suite.JudgesTiming),
		SpecTimeout(2*harness.SpecTimeout),
		func(ctx SpecContext) {
			const topic = "ledger"
			cl := suite.StartCluster(ctx, target, harness.TargetConfig{Brokers: 1, Topics: map[string]int32{topic: 3}})
			rec := cl.Recorder()
			_, err := cl.Produce(ctx, topic, p4Records, nil)
			Expect(err).NotTo(HaveOccurred())

			// Every OffsetCommit answer is held a random 0..commitDelayMax
			// on the consumers' side of the connection (consume.ResponseDelay
			// explains why not on the broker's side).
			delay := consume.DelayResponses(kmsg.OffsetCommit, func() time.Duration { return rand.N(commitDelayMax) })
			DeferCleanup(delay.Heal)

			By(fmt.Sprintf("starting %d consumers, each in its own group, and consuming %d records with each", commitConsumers, p4Records))
			type subjectConsumer struct {
				c        harness.Consumer
				probe    harness.ConsumerProbe
				clientID string
			}
			var cs []subjectConsumer
			for i := range commitConsumers {
				groupID, clientID := suite.UniqueName(fmt.Sprintf("p4-%d", i)), suite.UniqueName(fmt.Sprintf("p4-client-%d", i))
				cfg := suite.ConsumerConfig(cl, groupID, clientID)
				cfg.Dial = delay.Dial
				c := suite.NewConsumer(subject, cfg)
				probe := suite.SkipWithoutProbe(c, "the decision trace and the P4 return probe")
				Expect(c.Subscribe(topic)).To(Succeed())
				cs = append(cs, subjectConsumer{c, probe, clientID})
			}
			for _, sc := range cs {
				wctx, cancel := context.WithTimeout(ctx, harness.WaitTimeout)
				_, _, err := consume.PollUntil(wctx, sc.c, p4Records)
				cancel()
				Expect(err).NotTo(HaveOccurred(), "consuming before the stress\n%s", harness.Diagnose(sc.c))
			}

			lateBound := cl.HeartbeatInterval() / lateFraction
			By(fmt.Sprintf("calling CommitSync %d times (%d per consumer, consumers in parallel)", commitCalls, commitCalls/commitConsumers))
			returnsBefore := make([][2]uint64, len(cs))
			for i, sc := range cs {
				returnsBefore[i][0], returnsBefore[i][1] = sc.probe.CommitReturns()
			}
			from := rec.Mark()
			stalls := measure.StartStallMonitor()
			defer stalls.Stop()
			start := time.Now()
			runs := make([]commitRun, len(cs))
			var wg sync.WaitGroup
			for i, sc := range cs {
				wg.Go(func() {
					defer GinkgoRecover()
					runs[i] = stressCommitSync(ctx, sc.c, sc.probe, sc.clientID, commitCalls/commitConsumers, lateBound)
				})
			}
			wg.Wait()
			took := time.Since(start)
			stalled := stalls.Stop()
			to := rec.Mark()
			delayed := delay.Hits()
			delay.Heal()

			var total commitRun
			var lat []time.Duration
			var activity []time.Time
			var early, returns uint64
			for i, r := range runs {
				total.calls += r.calls
				total.errors += r.errors
				total.earlyTrace += r.earlyTrace
				total.unmeasured += r.unmeasured
				total.slow = append(total.slow, r.slow...)
				lat = append(lat, r.latenesses...)
				activity = append(activity, r.returns...)
				if total.firstErr == nil {
					total.firstErr = r.firstErr
				}
				if total.earlyExample == "" {
					total.earlyExample = r.earlyExample
				}
				ret, e := cs[i].probe.CommitReturns()
				returns += ret - returnsBefore[i][0]
				early += e - returnsBefore[i][1]
			}
			slices.Sort(lat)
			// A gap of the monitor while some CommitSync returned is the
			// monitor starved by the process's own goroutines, not a stall.
			confirmed := measure.Confirmed(stalled, activity)
			late, explained, lateExample := judgeLate(total.slow, confirmed, lateBound)
			window := harness.Window{From: from, To: to}
			commits := 0
			for _, sc := range cs {
				commits += window.Count(rec, kmsg.OffsetCommit, sc.clientID)
			}

			suite.Figure("commit_sync_calls", float64(total.calls), "calls", fmt.Sprintf("== %d", commitCalls))
			suite.Figure("offset_commits_sent", float64(commits), "requests", fmt.Sprintf("== %d (one per call)", commitCalls))
			suite.Figure("delayed_answers", float64(delayed), "responses", fmt.Sprintf("== %d", commitCalls))
			suite.Figure("stress_duration", float64(took.Milliseconds()), "ms", "")
			suite.Figure("commit_sync_per_second", float64(total.calls)/took.Seconds(), "calls/s", "")
			suite.Figure("early_returns_probe", float64(early), "calls", "== 0")
			suite.Figure("early_returns_trace", float64(total.earlyTrace), "calls", "== 0")
			suite.Figure("late_returns", float64(late), "calls", fmt.Sprintf("== 0 (blocked >= %d ms after the completion step, stalls not counted; heartbeat interval / %d)", lateBound.Milliseconds(), lateFraction))
			suite.Figure("slow_returns_during_stalls", float64(explained), "calls", fmt.Sprintf("returned >= %d ms after the completion step, but less than %d ms of it outside stalls of this process", lateBound.Milliseconds(), lateBound.Milliseconds()))
			suite.Figure("process_stalls", float64(len(confirmed)), "stalls", fmt.Sprintf("the stall monitor ran >= %d ms late and no CommitSync returned meanwhile", measure.StallMin.Milliseconds()))
			suite.Figure("monitor_gaps_not_stalls", float64(len(stalled)-len(confirmed)), "gaps", "the monitor ran late while a CommitSync returned: not counted as stalls")
			suite.Figure("process_stall_longest", float64(measure.LongestStall(confirmed).Microseconds())/1000, "ms", "")
			suite.Figure("return_after_completion_step_p50", float64(percentile(lat, 0.50).Microseconds())/1000, "ms", "")
			suite.Figure("return_after_completion_step_p99", float64(percentile(lat, 0.99).Microseconds())/1000, "ms", "")
			suite.Figure("return_after_completion_step_max", float64(percentile(lat, 1).Microseconds())/1000, "ms", "stalls counted")
			suite.Figure("unmeasured_calls", float64(total.unmeasured), "calls", "== 0")

			Expect(total.errors).To(BeZero(), "CommitSync calls that failed; first: %v", total.firstErr)
			Expect(total.calls).To(Equal(commitCalls), "CommitSync calls made")
			Expect(returns).To(Equal(uint64(commitCalls)), "CommitSync returns the consumer's probe counted")
			Expect(commits).To(Equal(commitCalls), "OffsetCommit requests the brokers saw in the window: each CommitSync must send one")
			Expect(delayed).To(Equal(commitCalls), "OffsetCommit answers delayed")
			Expect(early).To(BeZero(), "CommitSync calls that returned before the decision containing their completion was published (consumer probe; P4)")
			Expect(total.earlyTrace).To(BeZero(), "CommitSync calls that returned before the decision containing their completion was in the trace (P4); e.g. %s", total.earlyExample)
			Expect(total.unmeasured).To(BeZero(), "calls whose steps had left the trace: the late / early check did not see them")
			Expect(late).To(BeZero(), "CommitSync calls still blocked >= %s after the step that published their completion, stalls of this process not counted; e.g. %s", lateBound, lateExample)
		})

	It("runs every one of 10,000 effects after a decision whose version is at least the version the effect was queued at",
		suite.Spec("publication.effects-after-decision", []string{"P4"}, subject.Name(), target.Name()),
		SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			eng := newSyntheticEngine(suite.EngineOf(subject))
			res := runEffectChecks(ctx, eng, effectChecks)
			suite.Figure("effects_run", float64(res.run), "effects", fmt.Sprintf(">= %d", effectChecks))
			suite.Figure("effects_before_their_decision", float64(res.violations), "effects", "== 0")
			suite.Figure("engine_steps", float64(eng.Stats().Steps), "steps", "")
			Expect(res.run).To(BeNumerically(">=", effectChecks), "effects run")
			Expect(res.violations).To(BeZero(), "effects that ran while the published decision's version was below the version they were queued at (invariant 4); e.g. %s", res.example)
		})
})

// stressCommitSync calls CommitSync n times on c and classifies each return
// against the decision trace; a call returning lateBound or more after its
// completion step is kept for judgeLate.
func stressCommitSync(ctx context.Context, c harness.Consumer, probe harness.ConsumerProbe, clientID string, n int, lateBound time.Duration) commitRun {
	r := commitRun{clientID: clientID}
	for range n {
		if ctx.Err() != nil {
			break
		}
		startStep := probe.Decision().Step
		err := c.CommitSync(ctx)
		returned := time.Now()
		r.calls++
		r.returns = append(r.returns, returned)
		if err != nil {
			r.errors++
			if r.firstErr == nil {
				r.firstErr = err
			}
			continue
		}
		tr := probe.Trace()
		d, covered := completionDecision(tr, startStep)
		switch {
		case d != nil:
			late := returned.Sub(d.At)
			r.latenesses = append(r.latenesses, late)
			if late >= lateBound {
				r.slow = append(r.slow, slowReturn{step: d.At, returned: returned,
					example: fmt.Sprintf("%s returned %s after the start of step %d:\n%s", clientID, late, d.Step, d.Diagnose())})
			}
		case covered:
			r.earlyTrace++
			if r.earlyExample == "" {
				r.earlyExample = fmt.Sprintf("%s returned while the latest traced decision was step %d:\n%s", clientID, tr[len(tr)-1].Step, tr[len(tr)-1].Diagnose())
			}
		default:
			r.unmeasured++
		}
	}
	return r
}

// judgeLate counts the slow returns still lateBound or more after their
// completion step once the stalls of this process inside that interval are
// taken out (late), and those the stalls explain (explained), with an
// example of a late one.
func judgeLate(slow []slowReturn, stalls []measure.Stall, lateBound time.Duration) (late, explained int, example string) {
	for _, s := range slow {
		unstalled := measure.Unstalled(stalls, s.step, s.returned)
		if unstalled < lateBound {
			explained++
			continue
		}
		if example == "" {
			example = fmt.Sprintf("%s (%s of it not stalled)", s.example, unstalled)
		}
		late++
	}
	return late, explained, example
}

// completionDecision finds, in tr, the decision containing the completion of
// a commit made by a call that started when the published step was
// startStep: after startStep the commit manager's result first leaves Idle
// (the commit is pending or in flight) and then returns to Idle (no commit
// pending: the completion was applied in that step). covered reports
// whether tr reaches back to startStep, i.e. whether a missing decision
// means "not published yet" rather than "no longer retained".
func completionDecision(tr []*reactor.Decision, startStep uint64) (d *reactor.Decision, covered bool) {
	if len(tr) == 0 {
		return nil, false
	}
	covered = tr[0].Step <= startStep+1
	pending := false
	for _, dec := range tr {
		if dec.Step <= startStep {
			continue
		}
		r, ok := dec.Result("commit")
		if !ok {
			continue
		}
		if r.Kind != reactor.KindIdle {
			pending = true
			continue
		}
		if pending {
			return dec, covered
		}
	}
	return nil, covered
}

func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q * float64(len(sorted)-1))
	return sorted[i]
}

// The engine spec: a synthetic manager set on the subject's engine.

// synthView is the view the synthetic managers get: nothing.
type synthView = ours.NoView

// synthManager is a manager with random results: it may queue an effect
// when polled, and when it has a request to send, its completion queues an
// effect too. It is polled and completed on the engine goroutine only.
type synthManager struct {
	name    string
	rnd     *rand.Rand
	check   func(tx *reactor.Tx, what string)
	pending int // requests wanted
	flight  bool
}

func (m *synthManager) Name() string { return m.name }

func (m *synthManager) Poll(tx *reactor.Tx, _ synthView) reactor.Result {
	if m.rnd.IntN(4) == 0 {
		m.check(tx, m.name+" poll")
	}
	switch {
	case m.flight:
		return reactor.Await(reactor.InputResponse, "request in flight")
	case m.pending > 0:
		m.pending--
		m.flight = true
		return reactor.Ready("work", &reactor.Request{Payload: m.name, OnComplete: func(tx *reactor.Tx, _ any, _ error) {
			m.flight = false
			m.check(tx, m.name+" completion")
		}})
	}
	return reactor.Idle("nothing to do")
}

// synthTransport completes each request on its own goroutine, after a
// random pause of up to 50 µs or at once.
type synthTransport struct{ wg sync.WaitGroup }

func (t *synthTransport) Send(_ *reactor.Request, done func(any, error)) {
	t.wg.Go(func() {
		if rand.IntN(2) == 0 {
			time.Sleep(rand.N(50 * time.Microsecond)) // the "network": not a synchronisation
		}
		done(nil, nil)
	})
}

type effectCheck struct {
	eng        ours.Engine
	mu         sync.Mutex // guards the fields below: effects run on the engine goroutine, the spec reads them
	run        int
	violations int
	example    string
}

// queue queues an effect on tx that checks the published version when it
// runs; done, if not nil, is closed after the check.
func (e *effectCheck) queue(tx *reactor.Tx, what string, done chan struct{}) {
	queued := tx.Version
	tx.Effect(func() {
		published := e.eng.Current().Decision.Version
		e.mu.Lock()
		e.run++
		if published < queued {
			if e.violations == 0 {
				e.example = fmt.Sprintf("%s effect queued at version %d ran with version %d published", what, queued, published)
			}
			e.violations++
		}
		e.mu.Unlock()
		if done != nil {
			close(done)
		}
	})
}

func (e *effectCheck) result() effectResult {
	e.mu.Lock()
	defer e.mu.Unlock()
	return effectResult{run: e.run, violations: e.violations, example: e.example}
}

var synthManagers = []string{"alpha", "beta", "gamma"}

// newSyntheticEngine builds the subject's engine over synthetic managers.
// The managers' effect checks are wired by runEffectChecks.
func newSyntheticEngine(es ours.EngineSubject) *synthRig {
	rig := &synthRig{tr: &synthTransport{}}
	rnd := rand.New(rand.NewPCG(1, 2))
	var ms []reactor.Manager[synthView]
	for _, name := range synthManagers {
		m := &synthManager{name: name, rnd: rand.New(rand.NewPCG(rnd.Uint64(), rnd.Uint64())), check: func(tx *reactor.Tx, what string) { rig.check.queue(tx, what, nil) }}
		rig.ms = append(rig.ms, m)
		ms = append(ms, m)
	}
	rig.Engine = newEngine(es, ms, rig.tr, 0)
	return rig
}

// newEngine builds the subject's engine over synthetic managers, with inbox
// capacity inbox (0: the default).
func newEngine(es ours.EngineSubject, ms []reactor.Manager[synthView], tr reactor.Transport, inbox int) ours.Engine {
	GinkgoHelper()
	eng, err := es.NewEngine(reactor.Config[synthView]{Managers: ms, View: func(time.Time) synthView { return synthView{} }, Transport: tr, InboxCapacity: inbox})
	Expect(err).NotTo(HaveOccurred())
	return eng
}

type synthRig struct {
	ours.Engine
	tr    *synthTransport
	ms    []*synthManager
	check *effectCheck
}

type effectResult struct {
	run, violations int
	example         string
}

// runEffectChecks starts eng and submits application events, each of which
// changes the synthetic managers' state (asks for requests) and queues an
// effect, one at a time, until at least n effects ran (events', polls' and
// completions'); then it stops the engine.
func runEffectChecks(ctx context.Context, eng *synthRig, n int) effectResult {
	eng.check = &effectCheck{eng: eng}
	eng.Start()
	defer func() {
		eng.Stop()
		eng.tr.wg.Wait()
	}()
	rnd := rand.New(rand.NewPCG(3, 4))
	for eng.check.result().run < n && ctx.Err() == nil {
		m := eng.ms[rnd.IntN(len(eng.ms))]
		more := rnd.IntN(3)
		done := make(chan struct{})
		err := eng.Submit(ctx, "event", func(tx *reactor.Tx) {
			m.pending += more
			eng.check.queue(tx, "event", done)
		})
		Expect(err).NotTo(HaveOccurred())
		select {
		case <-done:
		case <-ctx.Done():
		}
	}
	return eng.check.result()
}
