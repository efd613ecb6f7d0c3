package reports

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
)

// WriteJira renders the summary and the negative control in Jira wiki markup
// (text/report.jira.tmpl), ready to paste as a comment on KAFKA-20995: provenance line,
// headline verdicts on the reference subject, the negative control table (with Jira links),
// and the item x (subject, target) summary. Every piece of text from the run is escaped
// (jiraText), so spec text, messages and figure strings cannot open a macro, link, table cell
// or text effect. The full report (conformance.html) is meant to be attached to the same
// comment.
func WriteJira(w io.Writer, rep Report) error {
	return writeText(w, "report.jira.tmpl", newJiraView(rep))
}

// jiraView is what report.jira.tmpl renders: every piece of text from the
// run already escaped (jiraText).
type jiraView struct {
	Provenance     string
	Date           string // "2006-01-02 15:04 UTC"; "" unknown
	Reference      string
	Headline       []jiraLine
	Ex             *Expectations
	Control        string
	Failing, Total int
	Nulls          []controlCount
	Problems       []string
	ControlTable   table
	Disagreements  []string
	Summary        table
}

// jiraLine is a headline line: its status icon, column and text.
type jiraLine struct{ Icon, Column, Text string }

func newJiraView(rep Report) jiraView {
	v := jiraView{Reference: "reactor", Ex: rep.Expect}
	v.Provenance = provenanceParts(rep, func(c string) string { return "Code " + jiraText(c) }, jiraText)
	if !rep.Date.IsZero() {
		v.Date = rep.Date.UTC().Format("2006-01-02 15:04 UTC")
	}
	if ex := rep.Expect; ex != nil {
		v.Reference, v.Control = ex.Reference, jiraText(ex.Control)
		v.Failing, v.Total = controlCounts(ex)
		for _, n := range nullControls(ex) {
			v.Nulls = append(v.Nulls, controlCount{jiraText(n.Name), n.Failing, n.Total})
		}
		for _, pr := range ex.Problems {
			v.Problems = append(v.Problems, jiraText(pr))
		}
		v.ControlTable, v.Disagreements = jiraControl(rep, ex)
	}
	for _, l := range headline(rep, v.Reference) {
		icon := "(/)"
		if !l.OK {
			icon = "(x)"
		}
		v.Headline = append(v.Headline, jiraLine{icon, jiraText(l.Column.Name()), jiraText(l.Text)})
	}
	v.Reference = jiraText(v.Reference)
	v.Summary = jiraSummary(rep)
	return v
}

// jiraItem is a catalogue item id, linked to its Jira when it is one.
func jiraItem(id string) string {
	if u := JiraLink(id); u != "" {
		return fmt.Sprintf("[%s|%s]", id, u)
	}
	return jiraText(id)
}

// jiraControl is the negative control table (one row per regression, with
// its MUST statement) and the lines about regressions the real clients do
// not reproduce.
func jiraControl(rep Report, ex *Expectations) (table, []string) {
	header := []string{"Regression", "MUST", jiraText(ex.Reference), jiraText(ex.Control), "reason"}
	for _, n := range ex.Nulls {
		header = append(header, jiraText(n)+" (null control)", "reason")
	}
	for _, e := range ex.Evidence {
		header = append(header, "reproduces on "+jiraText(e.Name())+"?")
	}
	t := table{Header: append(header, jiraText(ex.Control)+" specs")}
	titles := map[string]string{}
	for _, it := range rep.Items {
		titles[it.Item.ID] = it.Item.Title
	}
	var lines []string
	for _, rc := range ex.Regressions {
		specs := jiraText(strings.Join(rc.ControlSpecs, ", "))
		if len(rc.Unexposed) > 0 {
			specs += "; *passed there:* " + jiraText(strings.Join(rc.Unexposed, ", "))
		}
		cells := []string{jiraItem(rc.Item), jiraCell(titles[rc.Item]), jiraStatus(rc.Reference, false), jiraStatus(rc.Control, true), jiraText(reasons(rc.Outcomes))}
		for _, nc := range rc.Nulls {
			cells = append(cells, jiraStatus(nc.Status, true), jiraText(reasons(nc.Outcomes)))
		}
		for _, col := range ex.Evidence {
			cells = append(cells, jiraText(evidenceCell(rc, col)))
		}
		t.Rows = append(t.Rows, append(cells, orJira(specs)))
		if len(rc.Disagrees) > 0 {
			lines = append(lines, fmt.Sprintf("%s: %s fails, %s does not reproduce; %s models: %s", jiraText(rc.Item), jiraText(ex.Control),
				jiraText(strings.Join(rc.Disagrees, ", ")), jiraText(ex.Control), jiraText(or(rc.BaselineModels))))
		}
	}
	return t, lines
}

// jiraSummary is the item x (subject, target) table; a control's failing
// regression is expected.
func jiraSummary(rep Report) table {
	isControl := func(subject string) bool {
		return rep.Expect != nil && (subject == rep.Expect.Control || slices.Contains(rep.Expect.Nulls, subject))
	}
	t := table{Header: []string{"Item", "Kind", "Shape"}}
	for _, c := range rep.Columns {
		name := c.Name()
		if rep.Expect != nil && c.Subject == rep.Expect.Control {
			name += " (control)"
		} else if isControl(c.Subject) {
			name += " (null control)"
		}
		t.Header = append(t.Header, jiraText(name))
	}
	for _, it := range rep.Items {
		cells := []string{jiraItem(it.Item.ID), jiraText(string(it.Item.Kind)), jiraText(string(it.Item.Shape))}
		for _, c := range it.Cells {
			cells = append(cells, jiraStatus(c.Status, isControl(c.Subject) && it.Item.Kind == "regression"))
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

func mergedFiles(rep Report) []RunFile {
	var out []RunFile
	for _, f := range rep.Files {
		if f.Excluded == "" {
			out = append(out, f)
		}
	}
	return out
}

// nullCounts counts the regression spec runs on the null control n, and
// those that failed.
func nullCounts(ex *Expectations, n string) (failing, total int) {
	for _, rc := range ex.Regressions {
		for _, nc := range rc.Nulls {
			if nc.Subject != n {
				continue
			}
			for _, o := range nc.Outcomes {
				total++
				if o.Verdict.Failed() {
					failing++
				}
			}
		}
	}
	return failing, total
}

func controlCounts(ex *Expectations) (failing, total int) {
	for _, rc := range ex.Regressions {
		for _, o := range rc.Outcomes {
			total++
			if o.Verdict.Failed() {
				failing++
			}
		}
	}
	return failing, total
}

// jiraStatus renders a status with Jira's status icons; a control failure is expected.
func jiraStatus(s Status, expectedFailure bool) string {
	switch {
	case s == Status(VerdictPass):
		return "(/) pass"
	case Verdict(s).Failed() && expectedFailure:
		return "(!) " + jiraText(string(s)) + " (expected)"
	case Verdict(s).Failed():
		return "(x) " + jiraText(string(s))
	}
	return jiraText(string(s))
}

func orJira(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// jiraCell is jiraText for a table cell: never empty (an empty cell merges in Jira).
func jiraCell(s string) string { return orJira(jiraText(s)) }

// jiraText makes s plain text in Jira wiki markup: one line (newlines become spaces, since a
// newline ends a table row), `\` and `&` as HTML entities, and every character that opens
// markup (| { } [ ] ! # and text effects * _ + ^ ~ - ?) escaped with a backslash. Effect
// characters between two letters or digits ("kafka-20253") cannot start an effect and are
// left alone so ids stay readable.
func jiraText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	rs := []rune(s)
	var b strings.Builder
	alnum := func(i int) bool {
		return i >= 0 && i < len(rs) && (unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i]))
	}
	for i, r := range rs {
		switch r {
		case '\\':
			b.WriteString("&#92;")
		case '&':
			b.WriteString("&amp;")
		case '|', '{', '}', '[', ']', '!', '#':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '*', '_', '+', '^', '~', '-', '?':
			if alnum(i-1) && alnum(i+1) {
				b.WriteRune(r)
			} else {
				b.WriteByte('\\')
				b.WriteRune(r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
