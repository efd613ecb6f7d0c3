package suite

import (
	"fmt"
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/subjects"
	"github.com/kreactor/kreactor/harness/targets"
)

// Run is a suite's bootstrap, its Test function's one call:
//
//	func TestE2E(t *testing.T) { suite.Run(t, "kreactor end-to-end scenarios") }
//	var target, subject = suite.Selected()
//
// It registers the suite's setup and teardown and runs its specs under
// title. Before any spec it records the run's provenance (RecordProvenance)
// and the goroutines running, and defers the machine's load at the end.
// After every spec it terminates what targets keep across specs
// (targets.CloseShared) and fails the suite when a goroutine a spec started
// (a cluster, a consumer, a connection) or a java driver process is still
// running (LeakedGoroutines).
func Run(t *testing.T, title string) {
	gomega.RegisterFailHandler(ginkgo.Fail)
	ginkgo.BeforeSuite(Setup)
	ginkgo.ReportBeforeEach(holdMachine)
	ginkgo.ReportAfterEach(afterSpec)
	ginkgo.AfterSuite(func() {
		releaseMachine()
		gomega.Expect(targets.CloseShared()).To(gomega.Succeed(), "terminate the kafka target's pooled clusters")
		gomega.Expect(LeakedGoroutines()).To(gomega.Succeed(), "goroutines still running after the suite")
	})
	ginkgo.RunSpecs(t, title)
}

// Selected returns the target named by $KREACTOR_TARGET and the subject
// named by $KREACTOR_SUBJECT (packages harness/targets and
// harness/subjects), for a suite's package variables. It panics with the
// reason when either is unknown. Both come wrapped (Recorded,
// RecordedSubject) so the clusters and consumers specs make are recorded on
// each spec's timeline for the report's plots, and the target is remembered
// for the run's provenance.
func Selected() (harness.Target, harness.Subject) {
	t, err := targets.Selected()
	if err != nil {
		panic(err)
	}
	s, err := subjects.Selected()
	if err != nil {
		panic(err)
	}
	return Recorded(t), RecordedSubject(s)
}

// OnReferenceOnly skips the running spec on any subject but the reference
// one (subjects.Reference). It is for specs that check the code, or drive
// the managers on a Core of their own: they say nothing about a subject, so
// one run is enough, and every other subject reports them skipped with that
// reason.
func OnReferenceOnly(subject harness.Subject, what string) {
	if subject.Name() != subjects.Reference {
		ginkgo.Skip(fmt.Sprintf("checks %s, not subject %s: one run (subject %s) is enough", what, subject.Name(), subjects.Reference))
	}
}
