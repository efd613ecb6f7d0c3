package properties

// P6, "diagnosable from its decision trace": every decision a consumer
// publishes, in each of several states (stable; group coordinator
// unavailable; every partition paused), renders with Decision.Diagnose into
// a header naming the step and version and then one line per manager, and
// the line of every manager that is not Ready names what it waits for: the
// awaited inputs of an Await (and its deadline, if any), the time of a
// RetryAt relative to the step, and the reason. The diagnosis of each state
// must also show that state's cause: the coordinator awaited or backed off
// while it is unavailable, the fetch manager awaiting the application while
// everything is paused.

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/consume"
	"github.com/kreactor/kreactor/harness/suite"
	"github.com/kreactor/kreactor/reactor"
)

const (
	// diagnosisPhase is how long the consumer is polled in each state.
	diagnosisPhase = time.Second
	// diagnosisRecords are consumed before the phases.
	diagnosisRecords = 90
)

// diagnosisProblems checks d.Diagnose() against d and returns what is
// missing or wrong.
func diagnosisProblems(d *reactor.Decision) []string {
	var problems []string
	text := d.Diagnose()
	lines := strings.Split(text, "\n")
	bad := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf("step %d: ", d.Step)+fmt.Sprintf(format, args...)+"\n"+text)
	}
	if header := fmt.Sprintf("step %d version %d", d.Step, d.Version); !strings.HasPrefix(lines[0], header) {
		bad("header %q does not start with %q", lines[0], header)
	}
	if len(lines) != 1+len(d.Results) {
		bad("%d lines for %d managers: want a header and one line per manager", len(lines), len(d.Results))
		return problems
	}
	seen := map[string]bool{}
	for i, r := range d.Results {
		line := lines[i+1]
		if seen[r.Manager] {
			bad("manager %s appears twice", r.Manager)
		}
		seen[r.Manager] = true
		if !strings.HasPrefix(line, "  "+r.Manager+" ") {
			bad("line %d %q does not name manager %s", i+1, line, r.Manager)
			continue
		}
		rel := func(t time.Time) string { return "+" + t.Sub(d.At).Round(time.Millisecond).String() }
		switch r.Kind {
		case reactor.KindAwait:
			if !r.Inputs.Valid() {
				bad("%s awaits no known input (%s)", r.Manager, r.Inputs)
			}
			if !strings.Contains(line, "awaits "+r.Inputs.String()) {
				bad("%s's line %q does not name its inputs %s", r.Manager, line, r.Inputs)
			}
			if !r.At.IsZero() && !strings.Contains(line, "until "+rel(r.At)) {
				bad("%s's line %q does not name its deadline %s", r.Manager, line, rel(r.At))
			}
		case reactor.KindRetryAt:
			if !strings.Contains(line, "retries at "+rel(r.At)) {
				bad("%s's line %q does not name its time %s", r.Manager, line, rel(r.At))
			}
		}
		if r.Kind != reactor.KindReady && r.Kind != reactor.KindIdle {
			if r.Reason == "" || !strings.HasSuffix(line, ": "+r.Reason) {
				bad("%s's line %q gives no reason", r.Manager, line)
			}
		}
	}
	return problems
}

// anyResult reports whether some decision in tr has a result for which
// match holds.
func anyResult(tr []*reactor.Decision, match func(reactor.ManagerResult) bool) bool {
	for _, d := range tr {
		for _, r := range d.Results {
			if match(r) {
				return true
			}
		}
	}
	return false
}

var _ = Describe("A diagnosable decision trace", func() {
	It("names, for every manager that is not Ready in every traced decision, the inputs it awaits or the time it retries at, in each consumer state",
		suite.Spec("diagnosable.trace", []string{"P6"}, subject.Name(), target.Name()),
		SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			const topic = "audit"
			cl := suite.StartCluster(ctx, target, harness.TargetConfig{Brokers: 3, Topics: map[string]int32{topic: 3}})
			groupID, clientID := suite.UniqueName("p6-diag"), suite.UniqueName("p6-diag-client")
			_, err := cl.Produce(ctx, topic, diagnosisRecords, nil)
			Expect(err).NotTo(HaveOccurred())
			c := suite.NewConsumer(subject, suite.ConsumerConfig(cl, groupID, clientID))
			probe := suite.SkipWithoutProbe(c, "the decision trace")
			Expect(c.Subscribe(topic)).To(Succeed())
			wctx, cancel := context.WithTimeout(ctx, harness.WaitTimeout)
			defer cancel()
			_, _, err = consume.PollUntil(wctx, c, diagnosisRecords)
			Expect(err).NotTo(HaveOccurred(), "consuming before the phases\n%s", harness.Diagnose(c))

			checked := 0
			var lastStep uint64 // each phase checks the decisions made since the previous one
			check := func(phase string, cause string, hasCause func(reactor.ManagerResult) bool) {
				GinkgoHelper()
				var tr []*reactor.Decision
				for _, d := range probe.Trace() {
					if d.Step > lastStep {
						tr = append(tr, d)
					}
				}
				if len(tr) > 0 {
					lastStep = tr[len(tr)-1].Step
				}
				var problems []string
				for _, d := range tr {
					problems = append(problems, diagnosisProblems(d)...)
				}
				checked += len(tr)
				suite.Figure("decisions_checked_"+phase, float64(len(tr)), "decisions", "")
				suite.Figure("diagnosis_problems_"+phase, float64(len(problems)), "", "== 0")
				Expect(tr).NotTo(BeEmpty(), "decisions traced while %s", phase)
				Expect(len(problems)).To(BeZero(), "decisions while %s whose diagnosis does not name what a manager waits for (P6); the first:\n%s", phase, strings.Join(problems[:min(len(problems), 3)], "\n"))
				Expect(anyResult(tr, hasCause)).To(BeTrue(), "no decision while %s shows %s\nlatest:\n%s", phase, cause, harness.Diagnose(c))
			}

			By("stable: polling with nothing to fetch")
			_, _, err = consume.PollFor(ctx, c, diagnosisPhase)
			Expect(err).NotTo(HaveOccurred())
			check("stable", "membership retrying at its heartbeat interval", func(r reactor.ManagerResult) bool {
				return r.Manager == "membership" && r.Kind == reactor.KindRetryAt
			})

			By("coordinator unavailable")
			fault, err := cl.CoordinatorUnavailable(ctx, groupID)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(fault.Heal)
			_, _, err = consume.PollFor(ctx, c, diagnosisPhase)
			Expect(err).NotTo(HaveOccurred())
			check("coordinator_unavailable", "a manager awaiting the coordinator or FindCoordinator backing off", func(r reactor.ManagerResult) bool {
				return (r.Kind == reactor.KindAwait && r.Inputs.Has(reactor.InputCoordinator)) ||
					(r.Manager == "coordinator" && r.Kind == reactor.KindRetryAt)
			})
			fault.Heal()
			Eventually(ctx, func() reactor.Kind {
				pctx, pcancel := context.WithTimeout(ctx, harness.PollSlice)
				defer pcancel()
				_, _ = c.Poll(pctx)
				r, _ := probe.Decision().Result("membership")
				return r.Kind
			}).WithTimeout(harness.WaitTimeout).Should(Equal(reactor.KindRetryAt), "membership back on its heartbeat interval after the heal\n%s", harness.Diagnose(c))

			By("every assigned partition paused")
			assigned := c.Assignment()
			Expect(assigned).NotTo(BeEmpty(), "assignment before pausing")
			Expect(c.Pause(assigned...)).To(Succeed())
			_, _, err = consume.PollFor(ctx, c, diagnosisPhase)
			Expect(err).NotTo(HaveOccurred())
			check("paused", "the fetch manager awaiting the application (partition paused)", func(r reactor.ManagerResult) bool {
				return r.Manager == "fetch" && r.Kind == reactor.KindAwait && r.Inputs.Has(reactor.InputApplication) && strings.Contains(r.Reason, "paused")
			})
			Expect(c.Resume(assigned...)).To(Succeed())
			suite.Figure("decisions_checked", float64(checked), "decisions", "")
		})
})
