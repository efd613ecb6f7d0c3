package reports

import (
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

// WriteMarkdown renders the short conformance report (text/report.md.tmpl): provenance
// line, a link to the HTML report (figures, plots, reproduce commands), headline verdicts on
// the reference subject (the control subject's expected failures are not mixed in), the
// negative control, the summary of catalogue items by (subject, target) with each item's
// MUST statement, one line per spec with its verdict per column, the real clients'
// agreement and release matrix, the contract points, provenance per run file, and
// problems. Output depends only on rep.
func WriteMarkdown(w io.Writer, rep Report) error {
	return writeText(w, "report.md.tmpl", newMarkdownView(rep))
}

// markdownView is what report.md.tmpl renders: every cell escaped (cell).
type markdownView struct {
	Provenance         string
	Date               string // RFC 3339; "" unknown
	Reference, Control string
	Headline           []headlineLine
	Ex                 *Expectations
	Failing, Total     int // the control's regression spec runs
	Nulls              []controlCount
	ControlTable       table
	Summary, Specs     table
	Agreement          string // AgreementMarkdown; "" when no subject ran on both targets
	Releases           *ReleaseMatrix
	Findings           string
	Points, Files      table
	Problems           []string // the Problems section's lines
}

func newMarkdownView(rep Report) markdownView {
	v := markdownView{Reference: "reactor", Ex: rep.Expect, Releases: rep.Releases}
	v.Provenance = provenanceParts(rep, func(c string) string { return "Code `" + c + "`" }, func(s string) string { return s })
	if !rep.Date.IsZero() {
		v.Date = rep.Date.UTC().Format(time.RFC3339)
	}
	if ex := rep.Expect; ex != nil {
		v.Reference, v.Control = ex.Reference, ex.Control
		v.Failing, v.Total = controlCounts(ex)
		v.Nulls = nullControls(ex)
		v.ControlTable = markdownControlTable(ex)
	}
	v.Headline = headline(rep, v.Reference)
	v.Summary = markdownSummary(rep, v.Control)
	v.Specs = markdownSpecs(rep, v.Control)
	if ts := BuildAgreement(rep); len(ts) > 0 {
		v.Agreement = AgreementMarkdown(ts)
	}
	if rep.Releases != nil {
		v.Findings = FindingsMarkdown(rep.Releases.Findings())
	}
	v.Points = markdownPoints(rep)
	v.Files = markdownFiles(rep)
	v.Problems = markdownProblems(rep)
	return v
}

// markdownControlTable is the negative control: one row per regression.
func markdownControlTable(ex *Expectations) table {
	header := []string{"Regression", ex.Reference, ex.Control, "reason"}
	for _, n := range ex.Nulls {
		header = append(header, n+" (null control)", "reason")
	}
	for _, e := range ex.Evidence {
		header = append(header, "reproduces on "+e.Name()+"?")
	}
	t := table{Header: append(header, ex.Control+" specs")}
	for _, rc := range ex.Regressions {
		specs := strings.Join(rc.ControlSpecs, ", ")
		if len(rc.Unexposed) > 0 {
			specs += "; passed there: " + strings.Join(rc.Unexposed, ", ")
		}
		cells := []string{markdownItem(rc.Item), string(rc.Reference), string(rc.Control) + " (expected)", reasons(rc.Outcomes)}
		for _, nc := range rc.Nulls {
			cells = append(cells, string(nc.Status)+" (expected)", reasons(nc.Outcomes))
		}
		for _, col := range ex.Evidence {
			cells = append(cells, evidenceCell(rc, col))
		}
		t.Rows = append(t.Rows, escapeCells(append(cells, or(specs))))
	}
	return t
}

// markdownItem is a catalogue item id, linked to its Jira when it is one.
func markdownItem(id string) string {
	if u := JiraLink(id); u != "" {
		return "[" + id + "](" + u + ")"
	}
	return id
}

// markdownSummary is the item x (subject, target) table.
func markdownSummary(rep Report, control string) table {
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
	var rows [][]string
	for _, it := range rep.Items {
		cells := []string{markdownItem(it.Item.ID), string(it.Item.Kind), string(it.Item.Shape)}
		for _, c := range it.Cells {
			cells = append(cells, string(c.Status))
		}
		rows = append(rows, append(cells, it.Item.Title))
	}
	for _, u := range rep.Unknown {
		cells := []string{u.ID, "unknown", ""}
		for range rep.Columns {
			cells = append(cells, "")
		}
		rows = append(rows, append(cells, "not in catalogue"))
	}
	return newTable(append(header, "MUST"), rows...)
}

// markdownSpecs is one row per spec: its verdict per column and the first
// failure off the controls (their expected failures, with the figure that
// failed, are in the negative control table).
func markdownSpecs(rep Report, control string) table {
	header := []string{"Spec", "Items"}
	for _, c := range rep.Columns {
		header = append(header, c.Name())
	}
	var rows [][]string
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
			if failure == "" && col.Subject != control && (rep.Expect == nil || !slices.Contains(rep.Expect.Nulls, col.Subject)) {
				failure = firstFailure(col, c.Runs)
			}
		}
		rows = append(rows, append(cells, failure))
	}
	return newTable(append(header, "Failure"), rows...)
}

// firstFailure is "column: message" of the first failed or skipped run, or "".
func firstFailure(col Column, runs []Row) string {
	for _, r := range runs {
		if r.Verdict.Failed() || r.Verdict == VerdictSkipped {
			return col.Name() + ": " + r.Message
		}
	}
	return ""
}

// markdownPoints is the contract-point table: Java contract point -> specs
// covering it -> verdict per column.
func markdownPoints(rep Report) table {
	header := []string{"Point", "Consumer", "Setting", "Java's contract", "Specs"}
	for _, c := range rep.Columns {
		header = append(header, c.Name())
	}
	var rows [][]string
	for _, pr := range ContractPointTable(rep) {
		specs := make([]string, len(pr.Point.Specs))
		for i, s := range pr.Point.Specs {
			specs[i] = "`" + s + "`"
		}
		cells := []string{pr.Point.ID, pr.Point.Consumer, pr.Point.Setting, pr.Point.Java, or(strings.Join(specs, ", "))}
		for _, s := range pr.Cells {
			cells = append(cells, string(s))
		}
		rows = append(rows, cells)
	}
	return newTable(header, rows...)
}

// markdownFiles is the provenance table: one row per run file.
func markdownFiles(rep Report) table {
	header := []string{"Run file", "Subject", "Target", "Run", "Commit", "Dirty", "-race", "Go", "franz-go", "kfake", "Kafka image", "kafka-clients", "Cores", "Start", "End", "Load"}
	var rows [][]string
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
		rows = append(rows, cells)
	}
	return newTable(header, rows...)
}

// markdownProblems are the Problems section's lines: unknown items,
// uncatalogued specs and warnings.
func markdownProblems(rep Report) []string {
	var out []string
	for _, u := range rep.Unknown {
		var specs []string
		for _, r := range u.Rows {
			specs = append(specs, fmt.Sprintf("`%s` (%s / %s)", r.ID, or(r.Subject), or(r.Target)))
		}
		out = append(out, fmt.Sprintf("item `%s` is not in the catalogue; covered by %s", u.ID, strings.Join(specs, ", ")))
	}
	for _, r := range rep.Uncatalogued {
		out = append(out, fmt.Sprintf("spec `%s` (%s / %s) at %s covers no item", r.ID, or(r.Subject), or(r.Target), r.SpecLocation))
	}
	for _, w := range rep.Warnings {
		out = append(out, cell(w))
	}
	return out
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
