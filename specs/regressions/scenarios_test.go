package regressions

// Every file in specs/scenarios is a case written as data: a cluster, its
// consumers, a timeline of client actions and faults, and the bounds the run
// must stay inside (package harness/scenario). This table runs each file once
// on the selected subject and target; `kreactor run` runs the same files
// from the command line and `kreactor check` validates them.

import (
	"cmp"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/scenario"
	"github.com/kreactor/kreactor/harness/suite"
)

// scenarioDir holds the scenario files, relative to this package;
// KREACTOR_SCENARIO_DIR runs another directory's files instead (a reviewer's
// draft cases, or a directory with a bad file to see it fail alone).
var scenarioDir = cmp.Or(os.Getenv("KREACTOR_SCENARIO_DIR"), "../scenarios")

// scenarioFilesItem is the catalogue item every file's loading covers.
const scenarioFilesItem = "SCENARIO-FILES"

// scenarios are loaded when the spec tree is built, each file on its own: a
// file that does not load fails its own spec (with its file, line and key)
// and every other file still runs.
var scenarios, scenarioDirErr = scenario.LoadDir(scenarioDir)

var _ = Describe("Scenario files", func() {
	It("every scenario file loads", suite.Spec("scenario.files-load", []string{scenarioFilesItem}, subject.Name(), target.Name()), func() {
		Expect(scenarioDirErr).NotTo(HaveOccurred())
		var bad []string
		for _, l := range scenarios {
			if l.Err != nil {
				bad = append(bad, l.Err.Error())
			}
		}
		suite.Figure("files", float64(len(scenarios)), "files", "")
		Expect(bad).To(BeEmpty(), "scenario files that do not load")
	})
	for _, l := range scenarios {
		if l.Err != nil {
			It("loads "+l.File, suite.Spec(badFileID(l.File), []string{scenarioFilesItem}, subject.Name(), target.Name()), func() {
				Fail(l.Err.Error())
			})
			continue
		}
		sc := l.Scenario
		timeout := max(harness.SpecTimeout, sc.Bound()+scenario.RunSlack)
		var alone []any
		if sc.JudgesCPU() {
			alone = suite.Alone(suite.JudgesCPU)
		}
		It(sc.Title, suite.Spec(sc.ID, sc.Covers, subject.Name(), target.Name()), alone, SpecTimeout(timeout), func(ctx SpecContext) {
			// The file's signal and liveness keys, and the keys that
			// failed, go to the report: the negative controls must fail
			// for the right reason.
			if len(sc.Signals) > 0 {
				suite.Signals(sc.Signals...)
			}
			if len(sc.Liveness) > 0 {
				suite.Liveness(sc.Liveness...)
			}
			if fl := sc.Floors(); len(fl) > 0 {
				suite.Evidence(fl...)
			}
			out, err := scenario.Run(ctx, sc, subject, target)
			Expect(err).NotTo(HaveOccurred(), "running %s", sc.File)
			if out.NotApplicable != "" {
				Skip(harness.NotApplicableText + ": " + out.NotApplicable)
			}
			suite.FailedKeys(out.FailedKeys)
			for _, f := range out.Figures {
				if f.NotApplicable {
					suite.NotApplicable(f.Name, f.Detail)
					continue
				}
				suite.Figure(f.Name, f.Value, f.Unit, f.Bound)
				if f.Detail != "" {
					suite.Note(f.Name+".detail", f.Detail)
				}
			}
			// The first failure leads: it is the line the report shows.
			Expect(out.Failures).To(BeEmpty(), "%s\n(%s on %s/%s)\n\ndiagnosis:\n%s",
				strings.Join(out.Failures, "\n"), sc.File, out.Subject, out.Target, out.Diagnose)
		})
	}
})

// notIDChars are what a file name may hold that a spec id may not.
var notIDChars = regexp.MustCompile(`[^a-z0-9]+`)

// badFileID is the spec id of a file that does not load: from its name,
// since its own id may be what is wrong.
func badFileID(file string) string {
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	name := strings.Trim(notIDChars.ReplaceAllString(strings.ToLower(base), "-"), "-")
	if name == "" {
		name = "unnamed"
	}
	return "scenario.bad-file." + name
}
