package reports

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
)

// WriteJira renders the summary and the negative control in Jira wiki markup, ready to paste
// as a comment on KAFKA-20995: provenance line, headline verdicts on the reference subject,
// the negative control table (with Jira links), and the item x (subject, target) summary.
// Every piece of text from the run is escaped (jiraText), so spec text, messages and figure
// strings cannot open a macro, link, table cell or text effect. The full report
// (conformance.html) is meant to be attached to the same comment.
func WriteJira(w io.Writer, rep Report) error {
	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	v, _, _, race, versions := provenanceSummary(mergedFiles(rep))
	reference := "reactor"
	if rep.Expect != nil {
		reference = rep.Expect.Reference
	}

	p("h2. kreactor conformance report: KIP-1371 consumer reactor\n\n")
	var vs []string
	for _, kv := range versions {
		vs = append(vs, jiraText(kv.K+" "+kv.V))
	}
	p("%s.", strings.Join(append([]string{"Code " + jiraText(v), "race detector " + race}, vs...), "; "))
	if !rep.Date.IsZero() {
		p(" Finished %s.", rep.Date.UTC().Format("2006-01-02 15:04 UTC"))
	}
	p(" [KIP-1371|%s]\n\n", KIPURL)

	p("h3. Verdict on the reference subject %s\n\n", jiraText(reference))
	lines := headline(rep, reference)
	if len(lines) == 0 {
		p("* (x) no spec ran on %s\n", jiraText(reference))
	}
	for _, l := range lines {
		icon := "(/)"
		if !l.OK {
			icon = "(x)"
		}
		p("* %s *%s*: %s.\n", icon, jiraText(l.Column.Name()), jiraText(l.Text))
	}
	if ex := rep.Expect; ex != nil {
		failing, total := controlCounts(ex)
		p("* Negative control %s (a model of today's execution): %d of %d regression spec runs fail, as they must; these failures are not counted above.\n", jiraText(ex.Control), failing, total)
		for _, n := range ex.Nulls {
			f, t := nullCounts(ex, n)
			p("* Null control %s (a consumer that never sends): %d of %d regression spec runs fail, as they must.\n", jiraText(n), f, t)
		}
		if len(ex.Problems) == 0 {
			p("\nAll expectations hold.\n")
		} else {
			p("\n*%d expectation(s) broken:*\n", len(ex.Problems))
			for _, pr := range ex.Problems {
				p("# %s\n", jiraText(pr))
			}
		}
		p("\nh3. Negative control\n\n")
		p("||Regression||MUST||%s||%s||reason||", jiraText(ex.Reference), jiraText(ex.Control))
		for _, n := range ex.Nulls {
			p("%s (null control)||reason||", jiraText(n))
		}
		for _, e := range ex.Evidence {
			p("reproduces on %s?||", jiraText(e.Name()))
		}
		p("%s specs||\n", jiraText(ex.Control))
		titles := map[string]string{}
		for _, it := range rep.Items {
			titles[it.Item.ID] = it.Item.Title
		}
		for _, rc := range ex.Regressions {
			id := jiraText(rc.Item)
			if u := JiraLink(rc.Item); u != "" {
				id = fmt.Sprintf("[%s|%s]", rc.Item, u)
			}
			specs := jiraText(strings.Join(rc.ControlSpecs, ", "))
			if len(rc.Unexposed) > 0 {
				specs += "; *passed there:* " + jiraText(strings.Join(rc.Unexposed, ", "))
			}
			p("|%s|%s|%s|%s|%s|", id, jiraCell(titles[rc.Item]), jiraStatus(rc.Reference, false), jiraStatus(rc.Control, true), jiraText(reasons(rc.Outcomes)))
			for _, nc := range rc.Nulls {
				p("%s|%s|", jiraStatus(nc.Status, true), jiraText(reasons(nc.Outcomes)))
			}
			for _, col := range ex.Evidence {
				p("%s|", jiraText(evidenceCell(rc, col)))
			}
			p("%s|\n", orJira(specs))
		}
		for _, rc := range ex.Regressions {
			if len(rc.Disagrees) > 0 {
				p("* %s: %s fails, %s does not reproduce; %s models: %s\n", jiraText(rc.Item), jiraText(ex.Control), jiraText(strings.Join(rc.Disagrees, ", ")), jiraText(ex.Control), jiraText(or(rc.BaselineModels)))
			}
		}
	}

	p("\nh3. Summary by subject and target\n\n")
	p("||Item||Kind||Shape||")
	for _, c := range rep.Columns {
		name := c.Name()
		if rep.Expect != nil && c.Subject == rep.Expect.Control {
			name += " (control)"
		} else if rep.Expect != nil && slices.Contains(rep.Expect.Nulls, c.Subject) {
			name += " (null control)"
		}
		p("%s||", jiraText(name))
	}
	p("\n")
	for _, it := range rep.Items {
		id := jiraText(it.Item.ID)
		if u := JiraLink(it.Item.ID); u != "" {
			id = fmt.Sprintf("[%s|%s]", it.Item.ID, u)
		}
		p("|%s|%s|%s|", id, jiraText(string(it.Item.Kind)), jiraText(string(it.Item.Shape)))
		for _, c := range it.Cells {
			control := rep.Expect != nil && (c.Subject == rep.Expect.Control || slices.Contains(rep.Expect.Nulls, c.Subject)) && it.Item.Kind == "regression"
			p("%s|", jiraStatus(c.Status, control))
		}
		p("\n")
	}
	p("\nFigures, plots (request rates, loop steps, call durations), spec descriptions and the command that reruns each spec: see the attached conformance.html.\n")
	return b.Flush()
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
