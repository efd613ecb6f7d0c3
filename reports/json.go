package reports

import (
	"encoding/json"
	"io"
	"time"

	"github.com/kreactor/kreactor/catalogue"
)

// summaryVersion is bumped on incompatible changes to the summary.json layout.
const summaryVersion = 2

type jsonSummary struct {
	Version  int            `json:"version"`
	Date     *time.Time     `json:"date,omitempty"`
	Suites   []Suite        `json:"suites"`
	Totals   jsonTotals     `json:"totals"`
	Columns  []Column       `json:"columns"`
	Items    []jsonItem     `json:"items"`
	Unknown  []jsonUnknown  `json:"unknown_items"`
	Rows     []jsonRow      `json:"rows"`
	Warnings []string       `json:"warnings"`
	ItemSums map[Status]int `json:"item_statuses"`
	Expect   *Expectations  `json:"expectations,omitempty"`
	// Files are the run files with their provenance (merged and not merged).
	Files []RunFile `json:"files"`
	// Plots is the number of plots the HTML report draws (the browser check compares it
	// with the SVGs it finds).
	Plots int `json:"plots"`
}

type jsonTotals struct {
	Specs     int             `json:"specs"`
	ByVerdict map[Verdict]int `json:"by_verdict"`
}

type jsonItem struct {
	catalogue.Item
	Status Status   `json:"status"`
	Cells  []Cell   `json:"cells"`
	Specs  []string `json:"specs"`
}

type jsonUnknown struct {
	ID    string   `json:"id"`
	Specs []string `json:"specs"`
}

type jsonRow struct {
	Row
	DurationSeconds float64 `json:"duration_seconds"`
}

// WriteJSON writes summary.json (version 2: suite paths relative, run files with provenance,
// the plot count): format version, date, suites, totals (specs and counts by
// verdict), columns, per-item status overall and per (subject, target) cell with the spec ids,
// unknown items, every row with its figures, warnings, and counts of items by status. Row
// order is Report.Rows order; maps are written with sorted keys.
func WriteJSON(w io.Writer, rep Report) error {
	s := jsonSummary{
		Version:  summaryVersion,
		Suites:   nonNil(rep.Suites),
		Totals:   jsonTotals{Specs: rep.Totals.Specs, ByVerdict: rep.Totals.ByVerdict},
		Columns:  nonNil(rep.Columns),
		Items:    []jsonItem{},
		Unknown:  []jsonUnknown{},
		Rows:     []jsonRow{},
		Warnings: nonNil(rep.Warnings),
		ItemSums: rep.ItemCounts(),
		Expect:   rep.Expect,
		Files:    nonNil(rep.Files),
		Plots:    rep.PlotCount(),
	}
	if s.Totals.ByVerdict == nil {
		s.Totals.ByVerdict = map[Verdict]int{}
	}
	if !rep.Date.IsZero() {
		d := rep.Date.UTC()
		s.Date = &d
	}
	for _, it := range rep.Items {
		ji := jsonItem{Item: it.Item, Status: it.Status, Cells: nonNil(it.Cells), Specs: []string{}}
		for _, r := range it.Rows {
			ji.Specs = appendUnique(ji.Specs, r.ID)
		}
		s.Items = append(s.Items, ji)
	}
	for _, u := range rep.Unknown {
		ju := jsonUnknown{ID: u.ID, Specs: []string{}}
		for _, r := range u.Rows {
			ju.Specs = appendUnique(ju.Specs, r.ID)
		}
		s.Unknown = append(s.Unknown, ju)
	}
	for _, r := range rep.Rows {
		if r.Covers == nil {
			r.Covers = []string{}
		}
		if r.Figures == nil {
			r.Figures = []NamedFigure{}
		}
		s.Rows = append(s.Rows, jsonRow{Row: r, DurationSeconds: r.Duration.Seconds()})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // bounds such as "<= 1 req/s" stay readable
	return enc.Encode(s)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
