package suite

import (
	"fmt"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2"

	"github.com/kreactor/kreactor/harness/measure"
	"github.com/kreactor/kreactor/reports"
)

// Signals declares the running spec's signal: the expectation keys (figure
// names) that express the covered Jira's symptom. The report's check
// requires the negative control (the baseline) to fail a regression spec
// on one of them; a failure on anything else (another key, a timeout, a
// panic, a setup error) does not count.
func Signals(keys ...string) {
	ginkgo.AddReportEntry(reports.EntrySignals, slices.Clone(keys), ginkgo.Offset(1), ginkgo.ReportEntryVisibilityNever)
}

// Liveness declares the running spec's liveness keys: the expectations that
// express progress (records delivered, a commit completing, an error
// surfaced). The report's check requires the null control (a consumer that
// never sends) to fail every regression spec on one of them.
func Liveness(keys ...string) {
	ginkgo.AddReportEntry(reports.EntryLiveness, slices.Clone(keys), ginkgo.Offset(1), ginkgo.ReportEntryVisibilityNever)
}

// Evidence declares the running spec's evidence floor: the figures a run
// must have measured, each at least its minimum (commits judged, heartbeats
// seen, the window's length in ms), for its verdict to count. A run below
// it is inconclusive in the report (reports.FloorShortfall): never a pass
// and never "does not reproduce". It fails the spec, naming the floor, when
// a floor is malformed (reports.ValidateFloors).
func Evidence(floors ...reports.Floor) {
	ginkgo.GinkgoHelper()
	if err := reports.ValidateFloors(floors); err != nil {
		ginkgo.Fail(err.Error())
	}
	ginkgo.AddReportEntry(reports.EntryEvidence, slices.Clone(floors), ginkgo.ReportEntryVisibilityNever)
}

// FailedKeys records which expectation keys failed in the running spec
// (reports.EntryFailedKeys); the last call wins.
func FailedKeys(keys []string) {
	ginkgo.AddReportEntry(reports.EntryFailedKeys, slices.Clone(keys), ginkgo.Offset(1), ginkgo.ReportEntryVisibilityNever)
}

// Checks evaluates a spec's expectations by key: each check that fails is
// recorded with its key and message and the spec goes on, so one run shows
// every key that failed, not only the first (the report needs all of them
// to tell the Jira's symptom from other failures). Require fails the spec at
// once (for a step without which the rest means nothing); Done fails it with
// every message when any check failed. Both attach the failed keys first.
// The zero value is ready to use; one spec goroutine uses it.
type Checks struct {
	failed []string
	msgs   []string
}

// That checks one expectation: ok, or a failure of key with the message.
// It returns ok.
func (c *Checks) That(key string, ok bool, format string, args ...any) bool {
	if !ok {
		if !slices.Contains(c.failed, key) {
			c.failed = append(c.failed, key)
		}
		c.msgs = append(c.msgs, key+": "+fmt.Sprintf(format, args...))
		FailedKeys(c.failed)
	}
	return ok
}

// Require is That, and fails the spec now when !ok.
func (c *Checks) Require(key string, ok bool, format string, args ...any) {
	if !c.That(key, ok, format, args...) {
		ginkgo.Fail(strings.Join(c.msgs, "\n\n"), 1)
	}
}

// Done fails the spec with every recorded message when a check failed.
func (c *Checks) Done() {
	if len(c.failed) > 0 {
		ginkgo.Fail(strings.Join(c.msgs, "\n\n"), 1)
	}
}

// Failed returns the keys that failed so far.
func (c *Checks) Failed() []string { return slices.Clone(c.failed) }

// BoundedFigure attaches name = observed with the upper bound max (and the
// why of the bound in the text), plus its headroom as name+".headroom"
// (none for a bound of 0: nothing is allowed, there is no room to speak of).
func BoundedFigure(name string, observed float64, unit string, max float64, why string) {
	bound := fmt.Sprintf("<= %s", measure.FormatNumber(max))
	if why != "" {
		bound += " (" + why + ")"
	}
	addFigure(name, observed, unit, bound, 2)
	if max > 0 {
		addFigure(name+".headroom", measure.Headroom(observed, max), "x", "", 2)
	}
}

// AttachCPU adds the CPU verdict's figures under key (v.Figures) to the
// running spec and returns the keys that failed (key and/or
// key+measure.CPUSuffixSelects).
func AttachCPU(v measure.CPUVerdict, key string) []string {
	var failed []string
	for _, f := range v.Figures(key) {
		addFigure(f.Name, f.Value, f.Unit, f.Bound, 2)
		if !f.Pass {
			failed = append(failed, f.Name)
		}
	}
	return failed
}
