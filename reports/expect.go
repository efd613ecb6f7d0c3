package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kreactor/kreactor/catalogue"
)

// Expectations are the verdicts the suite exists to show (DESIGN.md,
// "baseline"): every catalogue item passes on the reference subject (the
// reactor) on every target it ran on, and every spec covering a regression
// fails on the control subject (the baseline), which models today's design:
// a regression spec that passes there cannot tell the shapes apart.
type Expectations struct {
	Reference, Control string
	// Problems lists every broken expectation, one line each; empty means
	// all hold.
	Problems []string
	// Regressions is, per regression item, the reference and control
	// verdicts side by side.
	Regressions []RegressionCheck
	// Filter is the runs' --label-filter, when one was given: specs it did
	// not select (skipped, or items nothing covered) are not checked.
	Filter string
}

// RegressionCheck is one regression item's verdicts on both subjects.
type RegressionCheck struct {
	Item                    string
	Reference, Control      Status
	ControlSpecs, Unexposed []string // control specs, and those that passed there
	// Signals are the expectation keys the control specs declared as the Jira's symptom
	// (EntrySignals, issue 9); empty while no spec declares any.
	Signals []string
	// Outcomes are the control rows (every target and repeat) and why each failed.
	Outcomes []ControlOutcome
}

// Reason says why a control row failed, relative to its regression's signals.
type Reason string

// Reasons.
const (
	// ReasonSignal: it failed on one of the declared signal keys: the Jira's symptom.
	ReasonSignal Reason = "signal"
	// ReasonOther: it failed, but not on a signal key (another key, a timeout, a panic,
	// a setup error): it does not show the shape.
	ReasonOther Reason = "other"
	// ReasonUndeclared: it failed and the spec declares no signals, so any failure counts
	// (today's check, until every regression names its signal).
	ReasonUndeclared Reason = "undeclared"
	// ReasonPassed: it did not fail.
	ReasonPassed Reason = "passed"
)

// ControlOutcome is one control row of a regression.
type ControlOutcome struct {
	Spec, Target string
	Run          int
	Verdict      Verdict
	FailedKeys   []string
	Reason       Reason
}

// reasonOf classifies one control row.
func reasonOf(r Row) Reason {
	switch {
	case !r.Verdict.Failed():
		return ReasonPassed
	case len(r.Signals) == 0:
		return ReasonUndeclared
	case r.Verdict == VerdictFail && slices.ContainsFunc(r.FailedKeys, func(k string) bool { return slices.Contains(r.Signals, k) }):
		return ReasonSignal
	}
	return ReasonOther
}

// Check evaluates the expectations for reference and control subjects.
// Targets are those of the columns present; a control subject absent from
// the run is a problem (nothing was shown to fail).
func (r Report) Check(reference, control string) Expectations {
	ex := Expectations{Reference: reference, Control: control}
	var targets []string
	hasControl := false
	for _, c := range r.Columns {
		if c.Subject == reference && !slices.Contains(targets, c.Target) {
			targets = append(targets, c.Target)
		}
		hasControl = hasControl || c.Subject == control
	}
	if len(targets) == 0 {
		ex.Problems = append(ex.Problems, fmt.Sprintf("no spec ran on the reference subject %q", reference))
	}
	if !hasControl {
		ex.Problems = append(ex.Problems, fmt.Sprintf("no spec ran on the control subject %q", control))
	}
	var filters []string
	for _, s := range r.Suites {
		if s.LabelFilter != "" && !slices.Contains(filters, s.LabelFilter) {
			filters = append(filters, s.LabelFilter)
		}
	}
	ex.Filter = strings.Join(filters, " / ")
	unselected := func(st Status) bool {
		return ex.Filter != "" && (st == StatusUncovered || st == StatusNotRun || notRun(Verdict(st)))
	}
	for _, it := range r.Items {
		for _, cell := range it.Cells {
			if cell.Subject != reference || unselected(cell.Status) {
				continue
			}
			switch cell.Status {
			case Status(VerdictPass), StatusExcluded:
			default:
				ex.Problems = append(ex.Problems, fmt.Sprintf("%s on %s: %s, want pass", it.Item.ID, strings.ReplaceAll(cell.Name(), " / ", "/"), cell.Status))
			}
		}
		if it.Item.Kind != catalogue.KindRegression {
			continue
		}
		rc := RegressionCheck{Item: it.Item.ID, Reference: StatusUncovered, Control: StatusUncovered}
		var refRows, ctlRows []Row
		for _, row := range it.Rows {
			switch row.Subject {
			case reference:
				refRows = append(refRows, row)
			case control:
				if unselected(Status(row.Verdict)) {
					continue
				}
				ctlRows = append(ctlRows, row)
				if !slices.Contains(rc.ControlSpecs, row.ID) {
					rc.ControlSpecs = append(rc.ControlSpecs, row.ID)
				}
				for _, sig := range row.Signals {
					if !slices.Contains(rc.Signals, sig) {
						rc.Signals = append(rc.Signals, sig)
					}
				}
				reason := reasonOf(row)
				rc.Outcomes = append(rc.Outcomes, ControlOutcome{Spec: row.ID, Target: row.Target, Run: row.Run, Verdict: row.Verdict, FailedKeys: row.FailedKeys, Reason: reason})
				switch reason {
				case ReasonPassed:
					if !slices.Contains(rc.Unexposed, row.ID) {
						rc.Unexposed = append(rc.Unexposed, row.ID)
					}
					ex.Problems = append(ex.Problems, fmt.Sprintf("%s: spec %s %s on the control subject %q on %s%s: it cannot tell today's design from the reactor", it.Item.ID, row.ID, row.Verdict, control, row.Target, runSuffix(row.Run)))
				case ReasonOther:
					ex.Problems = append(ex.Problems, fmt.Sprintf("%s: spec %s %s on the control subject %q on %s%s, but not on its signal (%s; failed: %s): not the Jira's reason", it.Item.ID, row.ID, row.Verdict, control, row.Target, runSuffix(row.Run), strings.Join(row.Signals, ", "), or(strings.Join(row.FailedKeys, ", "))))
				}
			}
		}
		if len(refRows) > 0 {
			rc.Reference = worst(refRows)
		}
		if len(ctlRows) > 0 {
			rc.Control = worst(ctlRows)
		} else if hasControl && ex.Filter == "" {
			ex.Problems = append(ex.Problems, fmt.Sprintf("%s: no spec ran on the control subject %q", it.Item.ID, control))
		}
		ex.Regressions = append(ex.Regressions, rc)
	}
	return ex
}

// runSuffix is " (run N)" for a repeat other than the first.
func runSuffix(run int) string {
	if run > 1 {
		return fmt.Sprintf(" (run %d)", run)
	}
	return ""
}
