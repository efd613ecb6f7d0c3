package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kreactor/kreactor/catalogue"
)

// Expectations are the verdicts the suite exists to show (docs/design.md,
// "baseline"): every catalogue item passes on the reference subject
// (the reactor) on every target it ran on; every spec covering a regression
// fails on the control subject (the baseline, a model of today's design),
// and fails there on one of the spec's declared signals (the Jira's
// symptom), since a spec that passes there, or fails for another reason,
// cannot tell the shapes apart; and every such spec fails on each null
// control (a consumer that never sends), on one of its liveness keys, since
// a spec that a consumer making no progress passes proves nothing.
type Expectations struct {
	Reference, Control string
	// Nulls are the null controls, in the order given (-check R,C,N...).
	Nulls []string
	// Problems lists every broken expectation, one line each; empty means
	// all hold.
	Problems []string
	// Regressions is, per regression item, the reference and control
	// verdicts side by side.
	Regressions []RegressionCheck
	// Filter is the runs' --label-filter, when one was given: specs it did
	// not select (skipped, or items nothing covered) are not checked.
	Filter string
	// Evidence are the columns of the other subjects that ran (the real
	// clients: java, kgo): never required to pass or fail, shown per
	// regression (RegressionCheck.Evidence); only a harness error in their
	// runs is a problem.
	Evidence []Column
}

// RegressionCheck is one regression item's verdicts on every subject the
// check names.
type RegressionCheck struct {
	Item                    string
	Reference, Control      Status
	ControlSpecs, Unexposed []string // control specs, and those that passed there
	// Signals are the expectation keys the control specs declared as the
	// Jira's symptom (EntrySignals).
	Signals []string
	// Outcomes are the control rows (every target and repeat) and why each failed.
	Outcomes []ControlOutcome
	// Nulls are the null controls' verdicts, in Expectations.Nulls order.
	Nulls []NullCheck
	// Evidence is, per evidence column (Expectations.Evidence order, those
	// that ran the item), whether the regression reproduces there.
	Evidence []EvidenceCheck
	// BaselineModels is the catalogue's note on which released behaviour
	// the control models for this regression (catalogue.Item.Baseline).
	BaselineModels string
	// Disagrees names the evidence columns on which the shape does not
	// reproduce while the control fails: the control models a behaviour
	// that release does not have (BaselineModels says which one it does).
	Disagrees []string
}

// NullCheck is one regression item on one null control.
type NullCheck struct {
	Subject string
	Status  Status
	// Liveness are the liveness keys its specs declared (EntryLiveness).
	Liveness []string
	Outcomes []ControlOutcome
}

// Reason says why a control row failed, relative to its regression's
// signals (the control) or liveness keys (a null control).
type Reason string

// Reasons.
const (
	// ReasonSignal: it failed on one of the declared signal keys: the
	// Jira's symptom.
	ReasonSignal Reason = "signal"
	// ReasonLiveness: a null control failed on one of the declared
	// liveness keys: no progress.
	ReasonLiveness Reason = "liveness"
	// ReasonOther: it failed, but not on a declared key (another key, a
	// timeout, a panic, a setup error): it does not count.
	ReasonOther Reason = "other"
	// ReasonUndeclared: it failed and the spec declares no keys to judge
	// the failure by: it does not count either.
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
	// Evidence is the figure of the first failed key the reason names
	// ("steps.idle=247749 steps (<= 20 steps)"), or that key alone when
	// the run recorded no figure of it; "" unless the reason is a signal
	// or liveness failure.
	Evidence string `json:"evidence,omitempty"`
}

// outcomeOf is one control row's outcome, its reason classified against
// the keys its failure must touch (the spec's signals, or its liveness
// keys for a null control), naming a failure on one of them on.
func outcomeOf(r Row, keys []string, on Reason) ControlOutcome {
	o := ControlOutcome{Spec: r.ID, Target: r.Target, Run: r.Run, Verdict: r.Verdict, FailedKeys: r.FailedKeys, Reason: ReasonOther}
	switch {
	case !r.Verdict.Failed():
		o.Reason = ReasonPassed
	case len(keys) == 0:
		o.Reason = ReasonUndeclared
	case r.Verdict == VerdictFail && slices.ContainsFunc(r.FailedKeys, func(k string) bool { return slices.Contains(keys, k) }):
		o.Reason = on
		o.Evidence = failedFigure(r, keys)
	}
	return o
}

// failedFigure renders the figure of r's first failed key that is one of
// keys, or the key itself when r has no figure of that name.
func failedFigure(r Row, keys []string) string {
	for _, k := range r.FailedKeys {
		if !slices.Contains(keys, k) {
			continue
		}
		if i := slices.IndexFunc(r.Figures, func(f NamedFigure) bool { return f.Name == k }); i >= 0 {
			return r.Figures[i].String()
		}
		return k
	}
	return ""
}

// Check evaluates the expectations for the reference subject, the control
// subject and any null controls. Targets are those of the columns present;
// a control subject absent from the run is a problem (nothing was shown to
// fail).
func (r Report) Check(reference, control string, nulls ...string) Expectations {
	ex := Expectations{Reference: reference, Control: control, Nulls: slices.Clone(nulls)}
	present := r.checkColumns(&ex)
	ex.Problems = append(ex.Problems, harnessProblems(r.Rows)...)
	ex.Problems = append(ex.Problems, belowFloor(r.Rows, reference)...)
	for _, it := range r.Items {
		for _, cell := range it.Cells {
			if cell.Subject != reference || ex.unselected(cell.Status) {
				continue
			}
			switch cell.Status {
			case Status(VerdictPass), StatusExcluded:
			default:
				ex.Problems = append(ex.Problems, fmt.Sprintf("%s on %s: %s, want pass", it.Item.ID, strings.ReplaceAll(cell.Name(), " / ", "/"), cell.Status))
			}
		}
		if it.Item.Kind == catalogue.KindRegression {
			ex.Regressions = append(ex.Regressions, ex.regression(it, present))
		}
	}
	return ex
}

// checkColumns sets ex's label filter and evidence columns, notes a
// reference or control subject that ran nothing, and returns the subjects
// that ran.
func (r Report) checkColumns(ex *Expectations) map[string]bool {
	var targets []string
	present := map[string]bool{}
	for _, c := range r.Columns {
		if c.Subject == ex.Reference && !slices.Contains(targets, c.Target) {
			targets = append(targets, c.Target)
		}
		present[c.Subject] = true
	}
	if len(targets) == 0 {
		ex.Problems = append(ex.Problems, fmt.Sprintf("no spec ran on the reference subject %q", ex.Reference))
	}
	for _, s := range append([]string{ex.Control}, ex.Nulls...) {
		if !present[s] {
			ex.Problems = append(ex.Problems, fmt.Sprintf("no spec ran on the control subject %q", s))
		}
	}
	var filters []string
	for _, s := range r.Suites {
		if s.LabelFilter != "" && !slices.Contains(filters, s.LabelFilter) {
			filters = append(filters, s.LabelFilter)
		}
	}
	ex.Filter = strings.Join(filters, " / ")
	for _, c := range r.Columns {
		if c.Subject != ex.Reference && c.Subject != ex.Control && !slices.Contains(ex.Nulls, c.Subject) {
			ex.Evidence = append(ex.Evidence, c)
		}
	}
	return present
}

// unselected reports whether a status only says the label filter left the
// spec out.
func (ex *Expectations) unselected(st Status) bool {
	return ex.Filter != "" && (st == StatusUncovered || st == StatusNotRun || notRun(Verdict(st)))
}

// regression checks one regression item on the reference, the control and
// the null controls, adding the problems it finds to ex.
func (ex *Expectations) regression(it ItemReport, present map[string]bool) RegressionCheck {
	rc := RegressionCheck{Item: it.Item.ID, Reference: StatusUncovered, Control: StatusUncovered,
		BaselineModels: it.Item.Baseline, Evidence: evidenceFor(it, ex.Evidence)}
	var refRows, ctlRows []Row
	nullRows := make([][]Row, len(ex.Nulls))
	for _, n := range ex.Nulls {
		rc.Nulls = append(rc.Nulls, NullCheck{Subject: n, Status: StatusUncovered})
	}
	for _, row := range it.Rows {
		if row.Subject == ex.Reference {
			refRows = append(refRows, row)
			continue
		}
		ni := slices.Index(ex.Nulls, row.Subject)
		if row.Subject != ex.Control && ni < 0 || ex.unselected(Status(row.Verdict)) {
			continue
		}
		if ni >= 0 {
			nullRows[ni] = append(nullRows[ni], row)
			ex.nullRow(it.Item.ID, &rc.Nulls[ni], row)
			continue
		}
		ctlRows = append(ctlRows, row)
		ex.controlRow(it.Item.ID, &rc, row)
	}
	if len(refRows) > 0 {
		rc.Reference = worst(refRows)
	}
	if len(ctlRows) > 0 {
		rc.Control = worst(ctlRows)
	} else if present[ex.Control] && ex.Filter == "" {
		ex.Problems = append(ex.Problems, fmt.Sprintf("%s: no spec ran on the control subject %q", it.Item.ID, ex.Control))
	}
	for i, rows := range nullRows {
		if len(rows) > 0 {
			rc.Nulls[i].Status = worst(rows)
		} else if present[ex.Nulls[i]] && ex.Filter == "" {
			ex.Problems = append(ex.Problems, fmt.Sprintf("%s: no spec ran on the null control %q", it.Item.ID, ex.Nulls[i]))
		}
	}
	if Verdict(rc.Control).Failed() {
		for _, e := range rc.Evidence {
			if e.Result == DoesNotReproduce {
				rc.Disagrees = append(rc.Disagrees, e.Column.Name())
			}
		}
	}
	return rc
}

// nullRow adds a null control's run of a regression spec: it must fail on
// a liveness key.
func (ex *Expectations) nullRow(item string, nc *NullCheck, row Row) {
	nc.Liveness = appendUnique(nc.Liveness, row.Liveness...)
	o := outcomeOf(row, row.Liveness, ReasonLiveness)
	nc.Outcomes = append(nc.Outcomes, o)
	switch o.Reason {
	case ReasonPassed:
		ex.Problems = append(ex.Problems, fmt.Sprintf("%s: spec %s %s on the null control %q on %s%s: a consumer that never sends passes it", item, row.ID, row.Verdict, row.Subject, row.Target, runSuffix(row.Run)))
	case ReasonOther, ReasonUndeclared:
		ex.Problems = append(ex.Problems, fmt.Sprintf("%s: spec %s %s on the null control %q on %s%s, but not on a liveness key (%s; failed: %s): it does not show the spec needs progress", item, row.ID, row.Verdict, row.Subject, row.Target, runSuffix(row.Run), or(strings.Join(row.Liveness, ", ")), or(strings.Join(row.FailedKeys, ", "))))
	}
}

// controlRow adds the control subject's run of a regression spec: it must
// fail on one of its declared signals.
func (ex *Expectations) controlRow(item string, rc *RegressionCheck, row Row) {
	rc.ControlSpecs = appendUnique(rc.ControlSpecs, row.ID)
	rc.Signals = appendUnique(rc.Signals, row.Signals...)
	o := outcomeOf(row, row.Signals, ReasonSignal)
	rc.Outcomes = append(rc.Outcomes, o)
	switch o.Reason {
	case ReasonPassed:
		rc.Unexposed = appendUnique(rc.Unexposed, row.ID)
		ex.Problems = append(ex.Problems, fmt.Sprintf("%s: spec %s %s on the control subject %q on %s%s: it cannot tell today's design from the reactor", item, row.ID, row.Verdict, ex.Control, row.Target, runSuffix(row.Run)))
	case ReasonOther:
		ex.Problems = append(ex.Problems, fmt.Sprintf("%s: spec %s %s on the control subject %q on %s%s, but not on its signal (%s; failed: %s): not the Jira's reason", item, row.ID, row.Verdict, ex.Control, row.Target, runSuffix(row.Run), strings.Join(row.Signals, ", "), or(strings.Join(row.FailedKeys, ", "))))
	case ReasonUndeclared:
		ex.Problems = append(ex.Problems, fmt.Sprintf("%s: spec %s %s on the control subject %q on %s%s, but declares no signal (suite.Signals, a scenario's signals:): any failure would count", item, row.ID, row.Verdict, ex.Control, row.Target, runSuffix(row.Run)))
	}
}

// reasons renders the outcomes' reasons, each once, in order, then the
// first outcome's failed figure ("signal, e.g. kafka-20426-idle:
// steps.idle=247749 steps (<= 20 steps)").
func reasons(os []ControlOutcome) string {
	var out []string
	for _, o := range os {
		if !slices.Contains(out, string(o.Reason)) {
			out = append(out, string(o.Reason))
		}
	}
	if i := slices.IndexFunc(os, func(o ControlOutcome) bool { return o.Evidence != "" }); i >= 0 {
		out = append(out, "e.g. "+os[i].Spec+": "+os[i].Evidence)
	}
	if len(out) == 0 {
		return "–"
	}
	return strings.Join(out, ", ")
}

// appendUnique appends to s each of vs not in it yet.
func appendUnique(s []string, vs ...string) []string {
	for _, v := range vs {
		if !slices.Contains(s, v) {
			s = append(s, v)
		}
	}
	return s
}

// runSuffix is " (run N)" for a repeat other than the first.
func runSuffix(run int) string {
	if run > 1 {
		return fmt.Sprintf(" (run %d)", run)
	}
	return ""
}
