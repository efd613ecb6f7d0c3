package harness

import (
	"fmt"
	"math"
	"regexp"

	"github.com/onsi/ginkgo/v2"

	"github.com/kreactor/kreactor/reports"
)

// specID is what a spec id may look like: lower-case words and digits
// joined by '-' or '.', so it is a valid Ginkgo label value and reads well
// in reports ("kafka-20253-coordinator-lost", "result-kinds.commit-await").
var specID = regexp.MustCompile(`^[a-z0-9]+([.-][a-z0-9]+)*$`)

// coverID is what a catalogue item id may look like ("P2", "KAFKA-20253",
// "E2E-1").
var coverID = regexp.MustCompile(`^[A-Za-z0-9]+(-[A-Za-z0-9]+)*$`)

// CheckSpecID returns an error naming the rule when id is not a valid spec
// id (what Spec would panic on), for inputs checked before a spec tree is
// built (scenario files).
func CheckSpecID(id string) error {
	if !specID.MatchString(id) {
		return fmt.Errorf("a spec id must be lower-case words and digits joined by '-' or '.' (%s)", specID)
	}
	return nil
}

// CheckCoverID returns an error naming the rule when item is not a valid
// catalogue item id for a `covers:` label.
func CheckCoverID(item string) error {
	if !coverID.MatchString(item) {
		return fmt.Errorf("a covered item id must be words of letters and digits joined by '-' (%s)", coverID)
	}
	return nil
}

// Spec returns the labels the conformance report reads (package reports):
// `id:<id>`, one `covers:<item>` per catalogue item, `subject:<subject>` and
// `target:<target>`. It panics, naming the rule, if id or an item is not a
// valid label value or covers is empty: a spec that covers nothing proves
// nothing in the report.
func Spec(id string, covers []string, subject, target string) ginkgo.Labels {
	if !specID.MatchString(id) {
		panic(fmt.Sprintf("harness.Spec: id %q must match %s", id, specID))
	}
	if len(covers) == 0 {
		panic(fmt.Sprintf("harness.Spec(%q): covers names no catalogue item", id))
	}
	labels := ginkgo.Labels{reports.LabelID + id}
	for _, c := range covers {
		if !coverID.MatchString(c) {
			panic(fmt.Sprintf("harness.Spec(%q): covered item %q must match %s", id, c, coverID))
		}
		labels = append(labels, reports.LabelCovers+c)
	}
	for _, kv := range [][2]string{{reports.LabelSubject, subject}, {reports.LabelTarget, target}} {
		if !specID.MatchString(kv[1]) {
			panic(fmt.Sprintf("harness.Spec(%q): %s%q must match %s", id, kv[0], kv[1], specID))
		}
		labels = append(labels, kv[0]+kv[1])
	}
	return labels
}

// Figure attaches a measured number to the running spec as a report entry
// whose value is a reports.Figure: the report shows it next to the verdict.
// unit may be empty for a pure count; bound states the limit the spec checks
// ("<= 9"), or is empty for a figure that is only informative. A non-finite
// value is recorded as 0 with the original value named in the bound (JSON has
// no NaN). Values are rounded to three decimals: figures are for reading.
func Figure(name string, value float64, unit, bound string) {
	addFigure(name, value, unit, bound, 2)
}

// addFigure is Figure reporting the caller offset frames up.
func addFigure(name string, value float64, unit, bound string, offset int) {
	if math.IsNaN(value) || math.IsInf(value, 0) {
		bound = fmt.Sprintf("%s (measured %v)", bound, value)
		value = 0
	}
	value = math.Round(value*1000) / 1000
	ginkgo.AddReportEntry(name, reports.Figure{Value: value, Unit: unit, Bound: bound}, ginkgo.Offset(offset), ginkgo.ReportEntryVisibilityFailureOrVerbose)
}

// Note attaches a line of text to the running spec as a report entry (the
// report keeps it as a text figure), e.g. the rendered result a table entry
// checked.
func Note(name, text string) {
	ginkgo.AddReportEntry(name, text, ginkgo.Offset(1), ginkgo.ReportEntryVisibilityFailureOrVerbose)
}
