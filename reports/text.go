package reports

import (
	"bufio"
	"embed"
	"fmt"
	"io"
	"strings"
	"text/template"
)

// The Markdown and Jira reports are text/templates (text/report.md.tmpl,
// text/report.jira.tmpl) over a view built here, as the HTML report is an
// html/template over htmlView: the templates hold the prose and the layout,
// the views the cells, each already escaped for its markup (cell for
// Markdown, jiraText for Jira).

//go:embed text/report.md.tmpl text/report.jira.tmpl
var textFiles embed.FS

var textTemplates = template.Must(template.New("text").Funcs(textFuncs).ParseFS(textFiles, "text/*.tmpl"))

var textFuncs = template.FuncMap{
	"kip":      func() string { return KIPURL },
	"umbrella": func() string { return UmbrellaJira },
	"jiraURL":  func() string { return JiraURL },
	"join":     strings.Join,
	"cell":     cell,
	"jira":     jiraText,
	// row is a Markdown table row of cells already escaped.
	"row": func(cells []string) string { return "| " + strings.Join(cells, " | ") + " |\n" },
	"sep": func(n int) string { return "|" + strings.Repeat(" --- |", n) + "\n" },
}

// table is a Markdown table: its header and rows, every cell escaped.
type table struct {
	Header []string
	Rows   [][]string
}

// newTable escapes header and rows with cell.
func newTable(header []string, rows ...[]string) table {
	t := table{Header: escapeCells(header)}
	for _, r := range rows {
		t.Rows = append(t.Rows, escapeCells(r))
	}
	return t
}

func escapeCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = cell(c)
	}
	return out
}

// controlCount is a control subject's failing and total regression spec runs.
type controlCount struct {
	Name           string
	Failing, Total int
}

// nullControls counts the runs of every null control of ex.
func nullControls(ex *Expectations) []controlCount {
	var out []controlCount
	for _, n := range ex.Nulls {
		f, t := nullCounts(ex, n)
		out = append(out, controlCount{n, f, t})
	}
	return out
}

// provenanceParts is the header line's parts: the code, the race detector
// and the module versions, each passed through esc.
func provenanceParts(rep Report, code func(string) string, esc func(string) string) string {
	v, _, _, race, versions := provenanceSummary(mergedFiles(rep))
	parts := []string{code(v), "race detector " + race}
	for _, kv := range versions {
		parts = append(parts, esc(kv.K+" "+kv.V))
	}
	return strings.Join(parts, "; ")
}

func writeText(w io.Writer, name string, view any) error {
	b := bufio.NewWriter(w)
	if err := textTemplates.ExecuteTemplate(b, name, view); err != nil {
		return fmt.Errorf("reports: %s: %w", name, err)
	}
	return b.Flush()
}
