package reports

import (
	"fmt"
	"slices"

	"github.com/kreactor/kreactor/specs/catalogue"
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
}

// RegressionCheck is one regression item's verdicts on both subjects.
type RegressionCheck struct {
	Item                    string
	Reference, Control      Status
	ControlSpecs, Unexposed []string // control specs, and those that passed there
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
	for _, it := range r.Items {
		for _, cell := range it.Cells {
			if cell.Subject != reference {
				continue
			}
			switch cell.Status {
			case Status(VerdictPass), StatusExcluded:
			default:
				ex.Problems = append(ex.Problems, fmt.Sprintf("%s on %s/%s: %s, want pass", it.Item.ID, cell.Subject, cell.Target, cell.Status))
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
				ctlRows = append(ctlRows, row)
				rc.ControlSpecs = append(rc.ControlSpecs, row.ID)
				if !row.Verdict.Failed() {
					rc.Unexposed = append(rc.Unexposed, row.ID)
					ex.Problems = append(ex.Problems, fmt.Sprintf("%s: spec %s %s on the control subject %q on %s: it cannot tell today's design from the reactor", it.Item.ID, row.ID, row.Verdict, control, row.Target))
				}
			}
		}
		if len(refRows) > 0 {
			rc.Reference = worst(refRows)
		}
		if len(ctlRows) > 0 {
			rc.Control = worst(ctlRows)
		} else if hasControl {
			ex.Problems = append(ex.Problems, fmt.Sprintf("%s: no spec ran on the control subject %q", it.Item.ID, control))
		}
		ex.Regressions = append(ex.Regressions, rc)
	}
	return ex
}
