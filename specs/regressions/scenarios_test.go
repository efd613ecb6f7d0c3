package regressions

// Every file in specs/scenarios is a regression written as data: a cluster,
// a consumer configuration, a timeline of client actions and faults, and the
// bounds the run must stay inside (package harness/scenario). This table
// runs each file once on the selected subject and target; `kreactor run`
// runs the same files from the command line.

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/scenario"
)

// scenarioDir holds the scenario files, relative to this package.
const scenarioDir = "../scenarios"

// scenarios are loaded when the spec tree is built; a file that does not
// load fails the suite with its file, line and key (see the It below).
var scenarios, scenarioLoadErr = scenario.LoadDir(scenarioDir)

var _ = Describe("Scenario files", func() {
	if scenarioLoadErr != nil {
		It("load", harness.Spec("scenario.load", []string{"KAFKA-20253"}, subject.Name(), target.Name()), func() {
			Fail(scenarioLoadErr.Error())
		})
		return
	}
	for _, sc := range scenarios {
		It(sc.Title, harness.Spec(sc.ID, sc.Covers, subject.Name(), target.Name()), SpecTimeout(harness.SpecTimeout), func(ctx SpecContext) {
			// The file's signal and liveness keys, and the keys that
			// failed, go to the report: the negative controls must fail
			// for the right reason (issue 9).
			if len(sc.Signals) > 0 {
				harness.Signals(sc.Signals...)
			}
			if len(sc.Liveness) > 0 {
				harness.Liveness(sc.Liveness...)
			}
			out, err := scenario.Run(ctx, sc, subject, target)
			Expect(err).NotTo(HaveOccurred(), "running %s", sc.File)
			harness.FailedKeys(out.FailedKeys)
			for _, f := range out.Figures {
				if f.NotApplicable {
					harness.NotApplicable(f.Name, f.Detail)
					continue
				}
				harness.Figure(f.Name, f.Value, f.Unit, f.Bound)
				if f.Detail != "" {
					harness.Note(f.Name+".detail", f.Detail)
				}
			}
			// The first failure leads: it is the line the report shows.
			Expect(out.Failures).To(BeEmpty(), "%s\n(%s on %s/%s)\n\ndiagnosis:\n%s",
				strings.Join(out.Failures, "\n"), sc.File, out.Subject, out.Target, out.Diagnose)
		})
	}
})
