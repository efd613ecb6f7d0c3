package reports

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/kreactor/kreactor/catalogue"
)

//go:embed html/report.tmpl html/report.css
var htmlFiles embed.FS

// WriteHTML renders the report as one self-contained HTML file: no script, no external
// stylesheet, font or image; every plot is inline SVG (package charts). Sections: headline
// verdicts on the reference subject, negative control, summary by (subject, target), the
// catalogue with MUST statements and links, one section per spec (description, verdict and
// reproduce command per column, figures with their bounds and spread over repeats, plots),
// the glossary of figures, the sections later tools fill when present (mutation kill
// matrix, kafka-clients release matrix, perf, error classification), provenance per run
// file, and problems. All text is escaped by html/template; the SVG comes from the charts
// package, whose backend escapes its text. Output depends only on rep.
func WriteHTML(w io.Writer, rep Report) error {
	v, err := newHTMLView(rep)
	if err != nil {
		return err
	}
	t, err := template.New("report.tmpl").Funcs(htmlFuncs).ParseFS(htmlFiles, "html/report.tmpl")
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, v); err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

var htmlFuncs = template.FuncMap{
	"linkify": func(s string) template.HTML { return template.HTML(linkifyHTML(s)) },
	"jira":    JiraLink,
	"kip":     func() string { return KIPURL },
	"statusClass": func(s Status) string {
		return "st-" + strings.ReplaceAll(string(s), " ", "-")
	},
	"date": func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format("2006-01-02 15:04:05 UTC")
	},
	"dur": func(a, b time.Time) string {
		if a.IsZero() || b.IsZero() {
			return "-"
		}
		return b.Sub(a).Round(time.Second).String()
	},
	"duration": formatDuration,
	"join":     strings.Join,
	"dash":     or,
	"yesno": func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	},
	"anchor":       func(s string) string { return slug(s) },
	"matrixLegend": func() string { return MatrixLegend },
	"pct":          func(v float64) float64 { return v * 100 },
	"add":          func(a, b int) int { return a + b },
	"evidenceClass": func(r Reproduction) string {
		if r == NotMeasured {
			return "na"
		}
		return strings.ReplaceAll(string(r), " ", "-")
	},
}

// htmlView is what the template reads.
type htmlView struct {
	Rep       Report
	CSS       template.CSS
	Reference string
	Control   string
	// Nulls are the null controls (Expectations.Nulls); Controls holds
	// the control and every null control, for the summary's marks.
	Nulls      []string
	Controls   []string
	Headline   []headlineLine
	Code       string
	CodeShort  string
	Dirty      bool
	Race       string
	Versions   []kv
	Columns    []htmlColumn
	Items      []htmlItem
	Specs      []htmlSpec
	Glossary   []Term
	PlotCount  int
	Releases   *ReleaseMatrix
	Findings   []Finding
	Agreement  []AgreementTable
	Merged     []RunFile
	Excluded   []RunFile
	Generated  string
	ControlSum string
}

type kv struct{ K, V string }

type headlineLine struct {
	Column Column
	Text   string
	OK     bool
}

type htmlColumn struct {
	Column
	Name      string
	IsControl bool
}

type htmlItem struct {
	ItemReport
	Jira   string
	Cells  []htmlCell
	Specs  []string
	IsKIP  bool
	RefSt  Status
	Expect bool // a regression, so control failures are expected
}

type htmlCell struct {
	Status   Status
	Class    string
	Label    string
	Expected bool
}

type htmlSpec struct {
	SpecResult
	Anchor  string
	Cells   []htmlSpecCell
	Figures []htmlFigureRow
	Plots   []htmlPlot
	Faults  []htmlFault
	Items   []catalogue.Item
}

type htmlSpecCell struct {
	SpecCell
	Name      string
	Class     string
	Label     string
	Reproduce string
	Message   string
	Location  string
	Duration  string
}

type htmlFigureRow struct {
	Name  string
	Term  *Term
	Unit  string
	Cells []htmlFigureCell
}

type htmlFigureCell struct {
	Value  string
	Bound  string
	Absent bool
}

type htmlPlot struct {
	Plot
	SVG template.HTML
}

type htmlFault struct {
	Column   string
	Kind     string
	Detail   string
	From, To string
}

func newHTMLView(rep Report) (htmlView, error) {
	css, err := htmlFiles.ReadFile("html/report.css")
	if err != nil {
		return htmlView{}, err
	}
	v := htmlView{Rep: rep, CSS: template.CSS(css), Glossary: Glossary, Reference: "reactor"}
	if rep.Expect != nil {
		v.Reference, v.Control, v.Nulls = rep.Expect.Reference, rep.Expect.Control, rep.Expect.Nulls
		v.Controls = append([]string{v.Control}, v.Nulls...)
	}
	for _, f := range rep.Files {
		if f.Excluded != "" {
			v.Excluded = append(v.Excluded, f)
		} else {
			v.Merged = append(v.Merged, f)
		}
	}
	v.Code, v.CodeShort, v.Dirty, v.Race, v.Versions = provenanceSummary(v.Merged)
	if !rep.Date.IsZero() {
		v.Generated = rep.Date.UTC().Format("2006-01-02 15:04 UTC")
	}
	for _, c := range rep.Columns {
		v.Columns = append(v.Columns, htmlColumn{Column: c, Name: c.Name(), IsControl: slices.Contains(v.Controls, c.Subject)})
	}
	v.Headline = headline(rep, v.Reference)
	if ex := rep.Expect; ex != nil {
		failing, total := 0, 0
		for _, rc := range ex.Regressions {
			for _, o := range rc.Outcomes {
				total++
				if o.Verdict.Failed() {
					failing++
				}
			}
		}
		v.ControlSum = fmt.Sprintf("%d of %d regression spec runs fail on %s, as they must", failing, total, ex.Control)
		for _, n := range ex.Nulls {
			f, t := nullCounts(ex, n)
			v.ControlSum += fmt.Sprintf("; %d of %d fail on the null control %s", f, t, n)
		}
	}
	for _, it := range rep.Items {
		hi := htmlItem{ItemReport: it, Jira: JiraLink(it.Item.ID), IsKIP: strings.Contains(it.Item.Source, "KIP-1371"),
			RefSt: referenceStatus(it, v.Reference), Expect: it.Item.Kind == catalogue.KindRegression}
		for _, c := range it.Cells {
			hi.Cells = append(hi.Cells, cellView(c.Status, slices.Contains(v.Controls, c.Subject), hi.Expect))
		}
		for _, r := range it.Rows {
			if !slices.Contains(hi.Specs, r.ID) {
				hi.Specs = append(hi.Specs, r.ID)
			}
		}
		v.Items = append(v.Items, hi)
	}
	cat := map[string]catalogue.Item{}
	for _, it := range rep.Items {
		cat[it.Item.ID] = it.Item
	}
	for _, s := range rep.Specs {
		hs, err := specView(rep, s, v.Controls, cat)
		if err != nil {
			return htmlView{}, err
		}
		v.PlotCount += len(hs.Plots)
		v.Specs = append(v.Specs, hs)
	}
	v.Releases = newReleaseMatrix(rep)
	if v.Releases != nil {
		v.Findings = v.Releases.Findings()
	}
	v.Agreement = BuildAgreement(rep)
	return v, nil
}

// cellView labels a status; on the control subject a failing regression is the expected
// outcome and is drawn as such.
func cellView(st Status, control, regression bool) htmlCell {
	c := htmlCell{Status: st, Class: "st-" + strings.ReplaceAll(string(st), " ", "-"), Label: string(st)}
	if control && Verdict(st).Failed() {
		c.Expected = regression
		if regression {
			c.Class += " expected"
			c.Label += " (expected)"
		} else {
			c.Class += " unchecked"
			c.Label += " (not checked)"
		}
	}
	return c
}

// specView is one spec of the HTML report: the items it covers, its cell
// per column, its figures, plots and faults.
func specView(rep Report, s SpecResult, controls []string, cat map[string]catalogue.Item) (htmlSpec, error) {
	hs := htmlSpec{SpecResult: s, Anchor: "spec-" + s.ID}
	regression := false
	for _, c := range s.Covers {
		if it, ok := cat[c]; ok {
			hs.Items = append(hs.Items, it)
			regression = regression || it.Kind == catalogue.KindRegression
		} else {
			hs.Items = append(hs.Items, catalogue.Item{ID: c, Title: "not in the catalogue"})
		}
	}
	for _, c := range s.Cells {
		hs.Cells = append(hs.Cells, specCellView(s, c, slices.Contains(controls, c.Subject), regression))
	}
	hs.Figures = figureRows(s)
	for _, p := range rep.Plots(s) {
		svg, err := p.SVG()
		if err != nil {
			return htmlSpec{}, fmt.Errorf("spec %s: plot %s: %w", s.ID, p.Kind, err)
		}
		hs.Plots = append(hs.Plots, htmlPlot{Plot: p, SVG: template.HTML(svg)}) // #nosec: charts escapes its text
	}
	hs.Faults = faultRows(s)
	return hs, nil
}

// specCellView is spec s's cell c: its verdict (control says c's subject
// is a control, regression that s covers a regression item), the first
// failure message, and the median duration over its runs.
func specCellView(s SpecResult, c SpecCell, control, regression bool) htmlSpecCell {
	cv := cellView(c.Status, control, regression)
	hc := htmlSpecCell{SpecCell: c, Name: c.Column.Name(), Class: cv.Class, Label: cv.Label, Reproduce: s.Reproduce(c)}
	if len(c.Runs) > 1 {
		hc.Label = fmt.Sprintf("%s (%d of %d runs pass)", cv.Label, c.Passed(), len(c.Runs))
	}
	var durs []time.Duration
	for _, r := range c.Runs {
		durs = append(durs, r.Duration)
		if hc.Message == "" && r.Message != "" {
			hc.Message, hc.Location = r.Message, r.Location
			if len(c.Runs) > 1 {
				hc.Message = fmt.Sprintf("run %d: %s", r.Run, r.Message)
			}
		}
	}
	slices.Sort(durs)
	if len(durs) > 0 {
		hc.Duration = formatDuration(durs[len(durs)/2])
		if len(durs) > 1 {
			hc.Duration += fmt.Sprintf(" (median of %d)", len(durs))
		}
	}
	return hc
}

// figureRows are spec s's figures: one row per name over all columns, in
// first-seen order.
func figureRows(s SpecResult) []htmlFigureRow {
	var names []string
	units := map[string]string{}
	for _, c := range s.Cells {
		for _, f := range c.Figures {
			if !slices.Contains(names, f.Name) {
				names = append(names, f.Name)
			}
			if units[f.Name] == "" {
				units[f.Name] = f.Unit
			}
		}
	}
	var rows []htmlFigureRow
	for _, n := range names {
		row := htmlFigureRow{Name: n, Unit: units[n]}
		if t, ok := TermFor(n); ok {
			row.Term = &t
		}
		for _, c := range s.Cells {
			i := slices.IndexFunc(c.Figures, func(f FigureStats) bool { return f.Name == n })
			if i < 0 {
				row.Cells = append(row.Cells, htmlFigureCell{Absent: true, Value: "–"})
				continue
			}
			f := c.Figures[i]
			fc := htmlFigureCell{Value: f.Spread(), Bound: f.Bound}
			if f.Unit != row.Unit && f.Unit != "" {
				fc.Value += " " + f.Unit
			}
			if len(f.Bounds) > 1 {
				fc.Bound = strings.Join(f.Bounds, " | ")
			}
			row.Cells = append(row.Cells, fc)
		}
		rows = append(rows, row)
	}
	return rows
}

// faultRows are the faults (and taps) of each column's first run with a
// series of spec s.
func faultRows(s SpecResult) []htmlFault {
	var out []htmlFault
	for _, c := range s.Cells {
		for _, r := range c.Runs {
			if r.Series == nil {
				continue
			}
			for _, f := range r.Series.Faults {
				to := "end of spec"
				if f.ToMS >= 0 {
					to = fmt.Sprintf("%.2f s", float64(f.ToMS)/1000)
				}
				kind := f.Kind
				if !f.IsFault() {
					kind += " (tap, not shaded)"
				}
				out = append(out, htmlFault{Column: c.Column.Name(), Kind: kind, Detail: f.Detail, From: fmt.Sprintf("%.2f s", float64(f.FromMS)/1000), To: to})
			}
			break
		}
	}
	return out
}

// headline states the reference subject's verdict per target.
func headline(rep Report, reference string) []headlineLine {
	var out []headlineLine
	for _, col := range rep.Columns {
		if col.Subject != reference {
			continue
		}
		counts := map[Status]int{}
		for _, it := range rep.Items {
			for _, c := range it.Cells {
				if c.Column == col {
					counts[c.Status]++
				}
			}
		}
		pass := counts[Status(VerdictPass)]
		var rest []string
		for _, st := range statusOrder {
			if st != Status(VerdictPass) && counts[st] > 0 {
				rest = append(rest, fmt.Sprintf("%d %s", counts[st], st))
			}
		}
		for _, st := range []Status{StatusExcluded, StatusNotRun} {
			if counts[st] > 0 {
				rest = append(rest, fmt.Sprintf("%d %s", counts[st], st))
			}
		}
		text := fmt.Sprintf("%d of %d catalogue items pass", pass, len(rep.Items))
		if len(rest) > 0 {
			text += "; " + strings.Join(rest, ", ")
		}
		ok := pass+counts[StatusExcluded] == len(rep.Items)
		out = append(out, headlineLine{Column: col, Text: text, OK: ok})
	}
	return out
}

// provenanceSummary reduces the merged files' provenance to the header line.
func provenanceSummary(files []RunFile) (code, short string, dirty bool, race string, versions []kv) {
	var races []bool
	seen := map[string]bool{}
	add := func(k, v string) {
		if v == "" || seen[k+"="+v] {
			return
		}
		seen[k+"="+v] = true
		versions = append(versions, kv{k, v})
	}
	for _, f := range files {
		p := f.Provenance
		if p == nil {
			continue
		}
		code, short, dirty = p.Code(), p.ShortCommit(), p.Dirty
		if !slices.Contains(races, p.Race) {
			races = append(races, p.Race)
		}
		add("Go", p.Go)
		for _, m := range []string{"franz-go", "kfake", "kmsg", "ginkgo", "gomega"} {
			add(m, p.Modules[m])
		}
		add("Kafka image", p.KafkaImage)
		add("kafka-clients", p.KafkaClients)
		add("cores", fmt.Sprintf("%d (GOMAXPROCS %d)", p.Cores, p.GOMAXPROCS))
	}
	if code == "" {
		code, short = "unknown (no run file recorded provenance)", "unknown"
	}
	switch {
	case len(races) == 0:
		race = "unknown"
	case len(races) == 2:
		race = "mixed (some runs with -race)"
	case races[0]:
		race = "on"
	default:
		race = "off"
	}
	return code, short, dirty, race, versions
}

// newReleaseMatrix returns the report's release matrix: the one loaded from `make
// java-matrix` (Report.Releases), else one built from the columns of the first subject run
// in two or more releases; nil when there is none.
func newReleaseMatrix(rep Report) *ReleaseMatrix {
	if rep.Releases != nil {
		return rep.Releases
	}
	variants := map[Column]int{}
	var order []Column
	for _, c := range rep.Columns {
		if c.Variant == "" {
			continue
		}
		k := Column{Subject: c.Subject, Target: c.Target}
		if variants[k] == 0 {
			order = append(order, k)
		}
		variants[k]++
	}
	for _, k := range order {
		if variants[k] < 2 {
			continue
		}
		if m, err := BuildReleaseMatrix(rep, k.Subject, k.Target); err == nil {
			return m
		}
	}
	return nil
}
