package reports

// Agreement: a subject's verdict on the fake broker (kfake) next to its
// verdict on real Kafka, spec by spec. The fake broker is a model; where a
// real client's verdict differs between the two, either the model differs
// from Kafka (a fidelity gap to fix) or the spec depends on timing the two
// brokers give differently. Each disagreement lists what failed on each
// side: the evidence for its cause.

import (
	"fmt"
	"slices"
	"strings"
)

// The targets an agreement table compares.
const (
	FakeTarget = "kfake"
	RealTarget = "kafka"
)

// AgreementTable is one subject (in one release, Variant) on both targets.
type AgreementTable struct {
	Subject string `json:"subject"`
	Variant string `json:"variant,omitempty"`
	Rows    []AgreementRow
	// Agree and Disagree count the rows run on both targets; OneSide
	// those run on one only (a spec filtered out or skipped on the other
	// is not a disagreement).
	Agree, Disagree, OneSide int
}

// AgreementRow is one spec on both targets.
type AgreementRow struct {
	Spec   string   `json:"spec"`
	Covers []string `json:"covers"`
	// Fake and Real are the spec's verdicts ("pass", "fail (1/5 pass)",
	// "" when it did not run there).
	Fake, Real string
	// Compared is true when the spec ran (not skipped) on both targets;
	// Agrees when it did and their statuses are equal.
	Compared, Agrees bool
	// Cause is, for a disagreement, what failed on each side (keys and
	// first message), e.g. "kfake: fail on delivered: 0 of 300 records".
	Cause string
}

// BuildAgreement returns one table per subject (and variant) that ran on
// both FakeTarget and RealTarget, in column order, real clients first
// (the subjects that are neither reference nor control models are listed
// by Report.Columns' own order).
func BuildAgreement(rep Report) []AgreementTable {
	type sv struct{ s, v string }
	var keys []sv
	has := map[Column]bool{}
	for _, c := range rep.Columns {
		has[c] = true
	}
	for _, c := range rep.Columns {
		k := sv{c.Subject, c.Variant}
		if c.Target == FakeTarget && has[Column{Subject: c.Subject, Target: RealTarget, Variant: c.Variant}] && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	var out []AgreementTable
	for _, k := range keys {
		t := AgreementTable{Subject: k.s, Variant: k.v}
		fake, real := Column{Subject: k.s, Target: FakeTarget, Variant: k.v}, Column{Subject: k.s, Target: RealTarget, Variant: k.v}
		for _, s := range rep.Specs {
			fc, fok := cellOf(s, fake)
			rc, rok := cellOf(s, real)
			if !fok && !rok {
				continue
			}
			row := AgreementRow{Spec: s.ID, Covers: s.Covers}
			if fok {
				row.Fake = cellVerdict(fc)
			}
			if rok {
				row.Real = cellVerdict(rc)
			}
			switch {
			case !fok || !rok || notRun(Verdict(fc.Status)) || notRun(Verdict(rc.Status)):
				t.OneSide++
			case fc.Status == rc.Status:
				row.Compared, row.Agrees = true, true
				t.Agree++
			default:
				row.Compared = true
				t.Disagree++
				row.Cause = fmt.Sprintf("%s: %s; %s: %s", FakeTarget, failureOf(fc), RealTarget, failureOf(rc))
			}
			t.Rows = append(t.Rows, row)
		}
		out = append(out, t)
	}
	return out
}

// Name renders "java (4.4.0)".
func (t AgreementTable) Name() string {
	if t.Variant != "" {
		return t.Subject + " (" + t.Variant + ")"
	}
	return t.Subject
}

func cellOf(s SpecResult, col Column) (SpecCell, bool) {
	i := slices.IndexFunc(s.Cells, func(c SpecCell) bool { return c.Column == col })
	if i < 0 {
		return SpecCell{}, false
	}
	return s.Cells[i], true
}

func cellVerdict(c SpecCell) string {
	v := string(c.Status)
	if len(c.Runs) > 1 {
		v += fmt.Sprintf(" (%d/%d pass)", c.Passed(), len(c.Runs))
	}
	return v
}

// failureOf renders what failed in a cell's runs: the failed keys and the
// first message, or "passed" / the skip reason.
func failureOf(c SpecCell) string {
	for _, r := range c.Runs {
		if r.Verdict.Failed() || r.Verdict == VerdictSkipped {
			s := string(r.Verdict)
			if len(r.FailedKeys) > 0 {
				s += " on " + strings.Join(r.FailedKeys, ", ")
			}
			if r.Message != "" {
				s += ": " + truncate(r.Message, 240)
			}
			return s
		}
	}
	return "passed"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// AgreementMarkdown renders the tables: counts, then every spec with both
// verdicts, disagreements first.
func AgreementMarkdown(ts []AgreementTable) string {
	var b strings.Builder
	for _, t := range ts {
		fmt.Fprintf(&b, "### %s: %s vs %s\n\n%d of %d specs run on both targets agree, %d disagree; %d ran on one target only.\n\n",
			t.Name(), FakeTarget, RealTarget, t.Agree, t.Agree+t.Disagree, t.Disagree, t.OneSide)
		b.WriteString("| Spec | Covers | " + FakeTarget + " | " + RealTarget + " | Agree | What differs |\n|---|---|---|---|---|---|\n")
		rows := slices.Clone(t.Rows)
		slices.SortStableFunc(rows, func(a, b AgreementRow) int { return agreementRank(a) - agreementRank(b) })
		for _, r := range rows {
			agree := "yes"
			switch {
			case !r.Compared:
				agree = "one side"
			case !r.Agrees:
				agree = "**no**"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", r.Spec, strings.Join(r.Covers, ", "), or(r.Fake), or(r.Real), agree, cell(r.Cause))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func agreementRank(r AgreementRow) int {
	switch {
	case r.Cause != "":
		return 0
	case r.Agrees:
		return 2
	}
	return 1
}
