package reports

import (
	"bufio"
	"fmt"
	"io"
	"slices"
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

// WriteMarkdown renders the short conformance report: provenance line, a link to the HTML
// report (figures, plots, reproduce commands), headline verdicts on the reference subject
// (the control subject's expected failures are not mixed in), the negative control, the
// summary of catalogue items by (subject, target) with each item's MUST statement, one line
// per spec with its verdict per column, provenance per run file, and problems. Output
// depends only on rep.
func WriteMarkdown(w io.Writer, rep Report) error {
	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	code, _, _, race, versions := provenanceSummary(mergedFiles(rep))
	reference, control := "reactor", ""
	if rep.Expect != nil {
		reference, control = rep.Expect.Reference, rep.Expect.Control
	}

	p("# kreactor conformance report\n\n")
	var vs []string
	for _, kv := range versions {
		vs = append(vs, kv.K+" "+kv.V)
	}
	p("%s.", strings.Join(append([]string{"Code `" + code + "`", "race detector " + race}, vs...), "; "))
	if !rep.Date.IsZero() {
		p(" Run finished %s.", rep.Date.UTC().Format(time.RFC3339))
	}
	p("\n\nFigures, plots, spec descriptions and the command that reruns each spec: [conformance.html](conformance.html). "+
		"KIP: [KIP-1371](%s); Jira: [%s](%s%s).\n\n", KIPURL, UmbrellaJira, JiraURL, UmbrellaJira)

	p("## Verdict on the reference subject `%s`\n\n", reference)
	lines := headline(rep, reference)
	if len(lines) == 0 {
		p("- No spec ran on `%s`.\n", reference)
	}
	for _, l := range lines {
		p("- **%s**: %s.\n", l.Column.Name(), l.Text)
	}
	if ex := rep.Expect; ex != nil {
		if ex.Filter != "" {
			p("- Label filter `%s`: only the specs it selected ran, and only they are checked.\n", ex.Filter)
		}
		failing, total := controlCounts(ex)
		p("- Negative control `%s` (a model of today's execution): %d of %d regression spec runs fail, as they must; these failures are not counted above.\n", control, failing, total)
		for _, n := range ex.Nulls {
			f, t := nullCounts(ex, n)
			p("- Null control `%s` (a consumer that never sends): %d of %d regression spec runs fail, as they must.\n", n, f, t)
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
		p("## Negative control\n\n")
		p("Every item must pass on `%s`; every spec covering a regression must fail on `%s`, the model of today's design, on one of its declared signals (a spec that passes there, or fails for another reason, cannot tell the two apart).", ex.Reference, ex.Control)
		for _, n := range ex.Nulls {
			p(" It must also fail on the null control `%s` (a consumer that never sends) on one of its liveness keys.", n)
		}
		p("\n\n")
		p("| Regression | %s | %s | reason |", ex.Reference, ex.Control)
		for _, n := range ex.Nulls {
			p(" %s (null control) | reason |", n)
		}
		for _, e := range ex.Evidence {
			p(" reproduces on %s? |", e.Name())
		}
		p(" %s specs |\n", ex.Control)
		sep(b, 5+2*len(ex.Nulls)+len(ex.Evidence))
		for _, rc := range ex.Regressions {
			specs := strings.Join(rc.ControlSpecs, ", ")
			if len(rc.Unexposed) > 0 {
				specs += "; passed there: " + strings.Join(rc.Unexposed, ", ")
			}
			id := rc.Item
			if u := JiraLink(id); u != "" {
				id = "[" + id + "](" + u + ")"
			}
			cells := []string{id, string(rc.Reference), string(rc.Control) + " (expected)", reasons(rc.Outcomes)}
			for _, nc := range rc.Nulls {
				cells = append(cells, string(nc.Status)+" (expected)", reasons(nc.Outcomes))
			}
			for _, col := range ex.Evidence {
				cells = append(cells, evidenceCell(rc, col))
			}
			row(b, append(cells, or(specs))...)
		}
		p("\n")
		if len(ex.Evidence) > 0 {
			p("The real clients are evidence, not models: no expectation requires them to pass or fail; a harness error in their runs breaks the check. ")
			p("*reproduces*: a spec failed on one of its signals (for a client without our loop counters: its own CPU against a calm window, and select-total for Java); *does not reproduce*: a signal was measured and held; *n/a*: no signal measured.\n\n")
		}
		for _, rc := range ex.Regressions {
			switch {
			case len(rc.Disagrees) > 0 && rc.BaselineModels != "":
				p("- %s: `%s` fails and %s does not reproduce: `%s` models %s\n", rc.Item, ex.Control, strings.Join(rc.Disagrees, ", "), ex.Control, rc.BaselineModels)
			case len(rc.Disagrees) > 0:
				p("- %s: `%s` fails and %s does not reproduce; the catalogue does not say which released behaviour `%s` models\n", rc.Item, ex.Control, strings.Join(rc.Disagrees, ", "), ex.Control)
			}
		}
		p("\n")
	} else {
		p("\n")
	}

	p("## Summary\n\n")
	p("Each cell is the worst verdict of the specs covering the item for that subject and target " +
		"(`skipped`: a spec covering it skipped there, e.g. a structural check that runs once on the reference subject; " +
		"`not run`: covered elsewhere but not here; `excluded`: the catalogue excludes the target; " +
		"`uncovered`: no spec covers the item).")
	if control != "" {
		p(" On the control subject `%s`, failing regressions are the expected outcome.", control)
	}
	p("\n\n")
	header := []string{"Item", "Kind", "Shape"}
	for _, c := range rep.Columns {
		name := c.Name()
		if c.Subject == control {
			name += " (control)"
		} else if rep.Expect != nil && slices.Contains(rep.Expect.Nulls, c.Subject) {
			name += " (null control)"
		}
		header = append(header, name)
	}
	header = append(header, "MUST")
	row(b, header...)
	sep(b, len(header))
	for _, it := range rep.Items {
		id := it.Item.ID
		if u := JiraLink(id); u != "" {
			id = "[" + id + "](" + u + ")"
		}
		cells := []string{id, string(it.Item.Kind), string(it.Item.Shape)}
		for _, c := range it.Cells {
			cells = append(cells, string(c.Status))
		}
		cells = append(cells, it.Item.Title)
		row(b, cells...)
	}
	for _, u := range rep.Unknown {
		cells := []string{u.ID, "unknown", ""}
		for range rep.Columns {
			cells = append(cells, "")
		}
		cells = append(cells, "not in catalogue")
		row(b, cells...)
	}

	p("\n## Specs\n\n")
	p("One line per spec; its figures, bounds, plots and reproduce command are in the HTML report (link on the id).\n\n")
	header = []string{"Spec", "Items"}
	for _, c := range rep.Columns {
		header = append(header, c.Name())
	}
	header = append(header, "Failure")
	row(b, header...)
	sep(b, len(header))
	for _, s := range rep.Specs {
		cells := []string{"[" + s.ID + "](conformance.html#spec-" + s.ID + ")", strings.Join(s.Covers, ", ")}
		failure := ""
		for _, col := range rep.Columns {
			i := slices.IndexFunc(s.Cells, func(c SpecCell) bool { return c.Column == col })
			if i < 0 {
				cells = append(cells, "")
				continue
			}
			c := s.Cells[i]
			v := string(c.Status)
			if len(c.Runs) > 1 {
				v += fmt.Sprintf(" (%d/%d pass)", c.Passed(), len(c.Runs))
			}
			cells = append(cells, v)
			if failure == "" && col.Subject != control {
				for _, r := range c.Runs {
					if r.Verdict.Failed() || r.Verdict == VerdictSkipped {
						failure = col.Name() + ": " + r.Message
						break
					}
				}
			}
		}
		cells = append(cells, failure)
		row(b, cells...)
	}

	writeEvidenceSections(b, rep)
	writeContractPoints(b, rep)

	p("\n## Provenance\n\n")
	row(b, "Run file", "Subject", "Target", "Run", "Commit", "Dirty", "-race", "Go", "franz-go", "kfake", "Kafka image", "kafka-clients", "Cores", "Start", "End", "Load")
	sep(b, 16)
	for _, f := range rep.Files {
		cells := []string{f.Source}
		if pr := f.Provenance; pr != nil {
			dirty := "no"
			if pr.Dirty {
				dirty = "yes " + pr.DiffHash
			}
			race := "no"
			if pr.Race {
				race = "yes"
			}
			cells = append(cells, pr.Subject, pr.Target, fmt.Sprintf("%d of %d", pr.Run, pr.Runs), pr.ShortCommit(), dirty, race, pr.Go,
				or(pr.Modules["franz-go"]), or(pr.Modules["kfake"]), or(pr.KafkaImage), or(pr.KafkaClients), fmt.Sprint(pr.Cores))
		} else {
			cells = append(cells, "?", "?", "?", "unknown", "?", "?", "?", "?", "?", "-", "-", "?")
		}
		cells = append(cells, timeOr(f.Start), timeOr(f.End), or(f.Load.Summary()))
		if f.Excluded != "" {
			cells[0] += " (NOT MERGED: " + f.Excluded + ")"
		}
		row(b, cells...)
	}

	if len(rep.Unknown) > 0 || len(rep.Uncatalogued) > 0 || len(rep.Warnings) > 0 {
		p("\n## Problems\n\n")
		for _, u := range rep.Unknown {
			var specs []string
			for _, r := range u.Rows {
				specs = append(specs, fmt.Sprintf("`%s` (%s / %s)", r.ID, or(r.Subject), or(r.Target)))
			}
			p("- item `%s` is not in the catalogue; covered by %s\n", u.ID, strings.Join(specs, ", "))
		}
		for _, r := range rep.Uncatalogued {
			p("- spec `%s` (%s / %s) at %s covers no item\n", r.ID, or(r.Subject), or(r.Target), r.SpecLocation)
		}
		for _, w := range rep.Warnings {
			p("- %s\n", cell(w))
		}
	}
	return b.Flush()
}

func timeOr(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
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

// evidenceCell is one regression's result on one evidence column, with the
// detail ("reproduces (kafka-21031: failed on cpu.slow)").
func evidenceCell(rc RegressionCheck, col Column) string {
	for _, e := range rc.Evidence {
		if e.Column == col {
			return fmt.Sprintf("%s (%s)", e.Result, cell(e.Detail))
		}
	}
	return "not run"
}
