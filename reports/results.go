package reports

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// SpecResult is one spec id with its results per (subject, target) column: what the HTML's
// per-spec section shows. Build makes one per spec id, in Report.Rows order.
type SpecResult struct {
	ID     string
	Text   string
	Covers []string
	// SpecLocation is file:line of the It, relative to the module root when known.
	SpecLocation string
	Suite        string
	SuiteDir     string
	// Cells are the columns the spec ran in, in Report.Columns order.
	Cells []SpecCell
}

// SpecCell is one spec in one column: every repeat's row and the figures' spread.
type SpecCell struct {
	Column
	// Status is the worst verdict over the repeats.
	Status Status
	// Runs are the repeats' rows, by run index.
	Runs []Row
	// Figures are the spec's figures over the repeats, in the order the spec attached them.
	Figures []FigureStats
	// Race is true when the runs were built with -race (from their files' provenance).
	Race bool
}

// Passed counts the repeats that passed.
func (c SpecCell) Passed() int {
	n := 0
	for _, r := range c.Runs {
		if r.Verdict == VerdictPass {
			n++
		}
	}
	return n
}

// FigureStats is one figure over the repeats of one spec in one column.
type FigureStats struct {
	Name string
	Unit string
	// Bound is the bound the first repeat stated; Bounds lists every distinct bound when
	// they differ between repeats (a bound computed from the run, e.g. the backoff window).
	Bound  string
	Bounds []string
	// Values are the numeric values, one per repeat that attached the figure, by run.
	Values           []float64
	Min, Median, Max float64
	// IsText marks a text entry; Texts are its distinct texts.
	IsText bool
	Texts  []string
}

// Spread renders the figure: the value for one repeat, "median (min-max, n runs)" for
// several; text entries joined by " / ".
func (f FigureStats) Spread() string {
	if f.IsText {
		return strings.Join(f.Texts, " / ")
	}
	// Figures carry at most three decimals (suite.Figure rounds them); a median of two
	// must not print float noise.
	r := func(v float64) string { return formatValue(math.Round(v*1000) / 1000) }
	if len(f.Values) == 1 || f.Min == f.Max {
		return r(f.Median)
	}
	return fmt.Sprintf("%s (%s–%s, %d runs)", r(f.Median), r(f.Min), r(f.Max), len(f.Values))
}

// median of a sorted, non-empty slice.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// figureStats folds the repeats' figures by name, in first-seen order.
func figureStats(runs []Row) []FigureStats {
	var out []FigureStats
	idx := map[string]int{}
	for _, r := range runs {
		for _, f := range r.Figures {
			i, ok := idx[f.Name]
			if !ok {
				i = len(out)
				idx[f.Name] = i
				out = append(out, FigureStats{Name: f.Name, IsText: f.IsText, Unit: f.Figure.Unit, Bound: f.Figure.Bound})
			}
			fs := &out[i]
			if f.IsText {
				if !slices.Contains(fs.Texts, f.Text) {
					fs.Texts = append(fs.Texts, f.Text)
				}
				continue
			}
			fs.Values = append(fs.Values, f.Figure.Value)
			if f.Figure.Bound != fs.Bound || len(fs.Bounds) > 0 {
				if len(fs.Bounds) == 0 {
					fs.Bounds = []string{fs.Bound}
				}
				if !slices.Contains(fs.Bounds, f.Figure.Bound) {
					fs.Bounds = append(fs.Bounds, f.Figure.Bound)
				}
			}
		}
	}
	for i := range out {
		if v := slices.Sorted(slices.Values(out[i].Values)); len(v) > 0 {
			out[i].Min, out[i].Max, out[i].Median = v[0], v[len(v)-1], median(v)
		}
		if len(out[i].Bounds) == 1 {
			out[i].Bounds = nil
		}
	}
	return out
}

// buildSpecs groups rows (already in report order) by spec id and column.
func buildSpecs(rows []Row, cols []Column, race map[string]bool) []SpecResult {
	var out []SpecResult
	idx := map[string]int{}
	for _, r := range rows {
		i, ok := idx[r.ID]
		if !ok {
			i = len(out)
			idx[r.ID] = i
			out = append(out, SpecResult{ID: r.ID, Text: r.Text, Covers: r.Covers, SpecLocation: r.SpecLocation, Suite: r.Suite, SuiteDir: r.SuiteDir})
		}
		s := &out[i]
		if s.SuiteDir == "" {
			s.SuiteDir = r.SuiteDir
		}
		col := r.column()
		j := slices.IndexFunc(s.Cells, func(c SpecCell) bool { return c.Column == col })
		if j < 0 {
			s.Cells = append(s.Cells, SpecCell{Column: col})
			j = len(s.Cells) - 1
		}
		s.Cells[j].Runs = append(s.Cells[j].Runs, r)
		s.Cells[j].Race = s.Cells[j].Race || race[r.Source]
	}
	pos := func(c Column) int { return slices.Index(cols, c) }
	for i := range out {
		slices.SortFunc(out[i].Cells, func(a, b SpecCell) int { return cmp.Compare(pos(a.Column), pos(b.Column)) })
		for j := range out[i].Cells {
			c := &out[i].Cells[j]
			slices.SortStableFunc(c.Runs, func(a, b Row) int { return cmp.Compare(a.Run, b.Run) })
			c.Status = worst(c.Runs)
			c.Figures = figureStats(c.Runs)
		}
	}
	return out
}

// Reproduce is the command that reruns this spec alone on column c (from the module root).
func (s SpecResult) Reproduce(c SpecCell) string {
	dir := "-r ./specs"
	if s.SuiteDir != "" && s.SuiteDir != "." {
		dir = "./" + strings.TrimPrefix(s.SuiteDir, "./")
	}
	race := ""
	if c.Race {
		race = "--race "
	}
	return fmt.Sprintf("KREACTOR_SUBJECT=%s KREACTOR_TARGET=%s go tool ginkgo %s--label-filter='%s%s' %s",
		or(c.Subject), or(c.Target), race, LabelID, s.ID, dir)
}

// Spec returns the spec result with the given id.
func (r Report) Spec(id string) (SpecResult, bool) {
	for _, s := range r.Specs {
		if s.ID == id {
			return s, true
		}
	}
	return SpecResult{}, false
}
