package suite

import (
	"fmt"
	"math"

	"github.com/onsi/ginkgo/v2"

	"github.com/kreactor/kreactor/reports"
)

// Spec returns the labels the conformance report reads (package reports):
// `id:<id>`, one `covers:<item>` per catalogue item, `subject:<subject>` and
// `target:<target>`. It panics, naming the rule, if id or an item is not a
// valid label value or covers is empty: a spec that covers nothing proves
// nothing in the report.
func Spec(id string, covers []string, subject, target string) ginkgo.Labels {
	if err := reports.CheckSpecID(id); err != nil {
		panic(fmt.Sprintf("suite.Spec: id %q: %v", id, err))
	}
	if len(covers) == 0 {
		panic(fmt.Sprintf("suite.Spec(%q): covers names no catalogue item", id))
	}
	labels := ginkgo.Labels{reports.LabelID + id}
	for _, c := range covers {
		if err := reports.CheckCoverID(c); err != nil {
			panic(fmt.Sprintf("suite.Spec(%q): covered item %q: %v", id, c, err))
		}
		labels = append(labels, reports.LabelCovers+c)
	}
	for _, kv := range [][2]string{{reports.LabelSubject, subject}, {reports.LabelTarget, target}} {
		if err := reports.CheckSpecID(kv[1]); err != nil {
			panic(fmt.Sprintf("suite.Spec(%q): %s%q: %v", id, kv[0], kv[1], err))
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
