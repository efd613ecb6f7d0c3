package reports

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
)

// verdictOrder is the order totals are listed in.
var verdictOrder = []Verdict{
	VerdictPass, VerdictFail, VerdictPanicked, VerdictTimedout, VerdictInterrupted,
	VerdictAborted, VerdictPending, VerdictSkipped,
}

var statusOrder = []Status{
	Status(VerdictPass), Status(VerdictFail), Status(VerdictPanicked), Status(VerdictTimedout),
	Status(VerdictInterrupted), Status(VerdictAborted), Status(VerdictPending),
	Status(VerdictSkipped), StatusUncovered,
}

// WriteMarkdown renders the conformance report for KIP reviewers: a header (date, suites,
// totals), a summary matrix of catalogue items by (subject, target), one table row per spec
// with its figures and failure, the catalogue with the specs covering each item, and problems
// (unknown items, specs covering nothing, warnings). Output depends only on rep.
func WriteMarkdown(w io.Writer, rep Report) error {
	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }

	p("# kreactor conformance report\n\n")
	if !rep.Date.IsZero() {
		p("Run finished %s.\n\n", rep.Date.UTC().Format(time.RFC3339))
	}
	p("**Specs:** %d (%s).  \n", rep.Totals.Specs, verdictCounts(rep.Totals.ByVerdict))
	counts := rep.ItemCounts()
	var parts []string
	for _, s := range statusOrder {
		if n := counts[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	p("**Catalogue items:** %d (%s).", len(rep.Items), strings.Join(parts, ", "))
	if ex := rep.Expect; ex != nil {
		counts := map[Status]int{}
		for _, it := range rep.Items {
			counts[referenceStatus(it, ex.Reference)]++
		}
		var parts []string
		for _, st := range statusOrder {
			if n := counts[st]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, st))
			}
		}
		p(" On the reference subject `%s`: %s.", ex.Reference, strings.Join(parts, ", "))
	}
	p("\n\n")
	if len(rep.Suites) > 0 {
		p("Suites:\n\n")
		for _, s := range rep.Suites {
			state := "succeeded"
			if !s.Succeeded {
				state = "failed"
			}
			src := ""
			if s.Source != "" {
				src = fmt.Sprintf(" from `%s`", s.Source)
			}
			p("- %s (`%s`)%s: %s\n", s.Description, s.Path, src, state)
		}
		p("\n")
	}

	if ex := rep.Expect; ex != nil {
		p("## Negative control\n\n")
		p("Every item must pass on `%s`; every spec covering a regression must fail on `%s`, the model of today's design (a spec that passes there cannot tell the two apart).\n\n", ex.Reference, ex.Control)
		p("| Regression | %s | %s | %s specs |\n", ex.Reference, ex.Control, ex.Control)
		sep(b, 4)
		for _, rc := range ex.Regressions {
			specs := strings.Join(rc.ControlSpecs, ", ")
			if len(rc.Unexposed) > 0 {
				specs += "; passed there: " + strings.Join(rc.Unexposed, ", ")
			}
			row(b, rc.Item, string(rc.Reference), string(rc.Control), or(specs))
		}
		p("\n")
		if len(ex.Problems) == 0 {
			p("All expectations hold.\n\n")
		} else {
			p("**%d expectation(s) broken:**\n\n", len(ex.Problems))
			for _, pr := range ex.Problems {
				p("- %s\n", cell(pr))
			}
			p("\n")
		}
	}

	p("## Summary\n\n")
	p("Each cell is the worst verdict of the specs covering the item for that subject and target " +
		"(`skipped`: a spec covering it skipped there, e.g. a structural check that runs once on the reference subject; " +
		"`not run`: covered elsewhere but not here; `excluded`: the catalogue excludes the target; " +
		"`uncovered`: no spec covers the item).")
	statusHeader := "Status"
	if ex := rep.Expect; ex != nil {
		statusHeader = "Status on " + ex.Reference
		p(" The status column is the reference subject's; the control subject's failures are expected for regressions (see Negative control).")
	}
	p("\n\n")
	header := []string{"Item", "Kind", "Shape", statusHeader}
	for _, c := range rep.Columns {
		header = append(header, or(c.Subject)+" / "+or(c.Target))
	}
	row(b, header...)
	sep(b, len(header))
	for _, it := range rep.Items {
		st := it.Status
		if rep.Expect != nil {
			st = referenceStatus(it, rep.Expect.Reference)
		}
		cells := []string{it.Item.ID, string(it.Item.Kind), string(it.Item.Shape), string(st)}
		for _, c := range it.Cells {
			cells = append(cells, string(c.Status))
		}
		row(b, cells...)
	}
	for _, u := range rep.Unknown {
		cells := []string{u.ID, "unknown", "", "not in catalogue"}
		for range rep.Columns {
			cells = append(cells, "")
		}
		row(b, cells...)
	}
	p("\n## Specs\n\n")
	row(b, "Spec", "Items", "Subject", "Target", "Verdict", "Duration", "Figures", "Message")
	sep(b, 8)
	for _, r := range rep.Rows {
		var figs []string
		for _, f := range r.Figures {
			figs = append(figs, f.String())
		}
		failure := ""
		if r.Verdict.Failed() {
			failure = r.Message
			if r.Location != "" {
				failure += " (at " + r.Location + ")"
			}
		} else if r.Message != "" {
			failure = r.Message
		}
		row(b, r.ID, strings.Join(r.Covers, ", "), or(r.Subject), or(r.Target), string(r.Verdict),
			formatDuration(r.Duration), strings.Join(figs, "; "), failure)
	}

	p("\n## Catalogue\n\n")
	for _, it := range rep.Items {
		p("### %s (%s, %s): %s\n\n", it.Item.ID, it.Item.Kind, it.Item.Shape, it.Status)
		p("%s\n\n", it.Item.Title)
		p("Source: %s.\n", it.Item.Source)
		for _, e := range it.Item.TargetsExcluded {
			p("Excluded on `%s`: %s.\n", e.Target, e.Reason)
		}
		p("\n")
		if len(it.Rows) == 0 {
			p("_uncovered: no spec covers this item._\n\n")
			continue
		}
		for _, r := range it.Rows {
			p("- `%s` on %s / %s: %s\n", r.ID, or(r.Subject), or(r.Target), r.Verdict)
		}
		p("\n")
	}

	if len(rep.Unknown) > 0 || len(rep.Uncatalogued) > 0 || len(rep.Warnings) > 0 {
		p("## Problems\n\n")
		if len(rep.Unknown) > 0 {
			p("### Items not in the catalogue\n\n")
			for _, u := range rep.Unknown {
				var specs []string
				for _, r := range u.Rows {
					specs = append(specs, fmt.Sprintf("`%s` (%s / %s)", r.ID, or(r.Subject), or(r.Target)))
				}
				p("- `%s`, covered by %s\n", u.ID, strings.Join(specs, ", "))
			}
			p("\n")
		}
		if len(rep.Uncatalogued) > 0 {
			p("### Specs covering no item\n\n")
			for _, r := range rep.Uncatalogued {
				p("- `%s` (%s / %s) at %s\n", r.ID, or(r.Subject), or(r.Target), r.SpecLocation)
			}
			p("\n")
		}
		if len(rep.Warnings) > 0 {
			p("### Warnings\n\n")
			for _, w := range rep.Warnings {
				p("- %s\n", oneLine(w))
			}
			p("\n")
		}
	}
	return b.Flush()
}

func verdictCounts(m map[Verdict]int) string {
	var parts []string
	for _, v := range verdictOrder {
		if n := m[v]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, v))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func or(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func row(w io.Writer, cells ...string) {
	for i, c := range cells {
		cells[i] = cell(c)
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
}

func sep(w io.Writer, n int) {
	fmt.Fprintf(w, "|%s\n", strings.Repeat(" --- |", n))
}

// cell makes s safe inside a Markdown table cell: one line, `|` escaped.
func cell(s string) string {
	return strings.ReplaceAll(oneLine(s), "|", `\|`)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// formatDuration keeps the table readable: "-" for a spec that did not run, "<1ms" for
// sub-millisecond specs, milliseconds below a second and hundredths of a second above.
func formatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "-"
	case d < time.Millisecond:
		return "<1ms"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(10 * time.Millisecond).String()
}

// referenceStatus is an item's worst verdict over the reference subject's
// columns (or, with no verdict there, the first column's status).
func referenceStatus(it ItemReport, reference string) Status {
	var worstV Verdict
	found := false
	other := StatusUncovered
	for _, c := range it.Cells {
		if c.Subject != reference {
			continue
		}
		v := Verdict(c.Status)
		if _, ok := rank[v]; ok {
			if !found || rank[v] > rank[worstV] {
				worstV, found = v, true
			}
			continue
		}
		other = c.Status
	}
	if found {
		return Status(worstV)
	}
	return other
}
