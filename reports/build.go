package reports

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/kreactor/kreactor/catalogue"
)

// Status is what the report says about an item, or an item in one (subject, target) column:
// a Verdict, or one of the statuses below.
type Status string

// Statuses that are not verdicts.
const (
	// StatusUncovered: no spec covers the item at all (skipped or pending specs on a target
	// the item excludes do not count).
	StatusUncovered Status = "uncovered"
	// StatusExcluded: the catalogue excludes the item on this target and no spec ran it
	// there (specs skipped or pending there are expected).
	StatusExcluded Status = "excluded"
	// StatusNotRun: the item is covered elsewhere but not in this (subject, target) column.
	StatusNotRun Status = "not run"
)

// rank orders verdicts from best to worst; a group of rows shows its worst verdict, so one
// failing spec marks the item failing and one skipped spec keeps it from showing "pass".
var rank = map[Verdict]int{
	VerdictPass: 0, VerdictSkipped: 1, VerdictPending: 2, VerdictFail: 3, VerdictAborted: 4,
	VerdictInterrupted: 5, VerdictTimedout: 6, VerdictPanicked: 7,
}

func worst(rows []Row) Status {
	if len(rows) == 0 {
		return StatusUncovered
	}
	w := rows[0].Verdict
	for _, r := range rows[1:] {
		if rank[r.Verdict] > rank[w] {
			w = r.Verdict
		}
	}
	return Status(w)
}

// Column is one (subject, target) pair seen in the rows; Variant tells releases of one
// subject apart (the java subject's kafka-clients version), so a release matrix is columns
// of one subject.
type Column struct {
	Subject string `json:"subject"`
	Target  string `json:"target"`
	Variant string `json:"variant,omitempty"`
}

// Name renders "subject / target" or "subject (variant) / target" ("java (4.4.0) / kfake").
func (c Column) Name() string {
	s := or(c.Subject)
	if c.Variant != "" {
		s += " (" + c.Variant + ")"
	}
	return s + " / " + or(c.Target)
}

func (r Row) column() Column { return Column{Subject: r.Subject, Target: r.Target, Variant: r.Variant} }

// Cell is an item's status in one column, with the ids of the specs behind it.
type Cell struct {
	Column
	Status Status   `json:"status"`
	Specs  []string `json:"specs"`
}

// ItemReport is one catalogue item with every row covering it.
type ItemReport struct {
	Item   catalogue.Item
	Status Status
	Cells  []Cell // one per Report.Columns, same order
	Rows   []Row
}

// UnknownItem is an item named by a covers: label that the catalogue does not have.
type UnknownItem struct {
	ID   string
	Rows []Row
}

// Totals counts rows by verdict.
type Totals struct {
	Specs     int
	ByVerdict map[Verdict]int
}

// Report is the catalogue joined with spec results. Build makes it; the writers render it.
type Report struct {
	// Date is when the run finished (latest suite end, or latest spec end); zero if unknown.
	Date   time.Time
	Suites []Suite
	Totals Totals
	// Columns are the (subject, target) pairs seen: reactor, baseline, java, kgo, then other
	// subjects by name; kfake before other targets.
	Columns []Column
	// Items follow catalogue order.
	Items []ItemReport
	// Unknown lists items covered by specs but missing from the catalogue, sorted by id.
	Unknown []UnknownItem
	// Uncatalogued lists rows with no covers: label.
	Uncatalogued []Row
	// Rows is every row, sorted by the first catalogue position it covers, then id, subject,
	// target (and source, to break ties between inputs).
	Rows     []Row
	Warnings []string
	// Expect, when set (Report.Check), is shown as the negative-control
	// section: reference vs control verdicts per regression.
	Expect *Expectations
	// Files are the run files read, merged or excluded (RunFile.Excluded), by subject,
	// target and repeat.
	Files []RunFile
	// Specs are the rows grouped by spec id and column, with figure spreads over repeats.
	Specs []SpecResult

	// Sections filled by later tools; each renders only when set.

	// Mutants is the mutation kill matrix (`make mutants`), read with LoadKillMatrix.
	Mutants *KillMatrix
	// Perf is the side-by-side benchmark, read with LoadPerf.
	Perf *PerfTable
	// Releases is the release matrix (`make java-matrix`), read
	// with LoadReleaseMatrix; without it the HTML builds one from the
	// columns of a subject run in several releases.
	Releases *ReleaseMatrix
	// ErrorClasses is the error-classification table (API x error -> class); cmd/kreactor
	// fills it from its errorClassification hook.
	ErrorClasses []ErrorClass
}

// Build joins rows to the catalogue. It never fails: unknown items and rows covering nothing
// are reported in Unknown / Uncatalogued and as warnings.
func Build(cat catalogue.Catalogue, rows []Row) Report {
	rep := Report{Totals: Totals{ByVerdict: map[Verdict]int{}}}
	rows = slices.Clone(rows)
	pos := func(r Row) int {
		best := len(cat.Items) + 1 // rows covering nothing sort last
		for _, c := range r.Covers {
			p := cat.Position(c)
			if p < 0 {
				p = len(cat.Items) // unknown items after catalogued ones
			}
			best = min(best, p)
		}
		return best
	}
	slices.SortStableFunc(rows, func(a, b Row) int {
		return cmp.Or(
			cmp.Compare(pos(a), pos(b)),
			cmp.Compare(a.ID, b.ID),
			cmp.Compare(a.Subject, b.Subject),
			cmp.Compare(a.Target, b.Target),
			cmp.Compare(a.Variant, b.Variant),
			cmp.Compare(a.Run, b.Run),
			cmp.Compare(a.Source, b.Source),
		)
	})
	rep.Rows = rows

	cols := map[Column]bool{}
	byItem := map[string][]Row{}
	unknown := map[string][]Row{}
	for _, r := range rows {
		rep.Totals.Specs++
		rep.Totals.ByVerdict[r.Verdict]++
		cols[r.column()] = true
		if end := r.Start.Add(r.Duration); !r.Start.IsZero() && end.After(rep.Date) {
			rep.Date = end
		}
		if len(r.Covers) == 0 {
			rep.Uncatalogued = append(rep.Uncatalogued, r)
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("spec %q (%s) covers no catalogue item", r.ID, where(r)))
		}
		for _, c := range r.Covers {
			if _, ok := cat.Lookup(c); ok {
				byItem[c] = append(byItem[c], r)
			} else {
				unknown[c] = append(unknown[c], r)
			}
		}
	}
	for c := range cols {
		rep.Columns = append(rep.Columns, c)
	}
	slices.SortFunc(rep.Columns, func(a, b Column) int {
		return cmp.Or(cmp.Compare(subjectRank(a.Subject), subjectRank(b.Subject)), cmp.Compare(a.Subject, b.Subject),
			cmp.Compare(a.Variant, b.Variant), cmp.Compare(targetRank(a.Target), targetRank(b.Target)), cmp.Compare(a.Target, b.Target))
	})

	for _, it := range cat.Items {
		rep.Items = append(rep.Items, rep.itemReport(it, byItem[it.ID]))
	}

	for id, rs := range unknown {
		rep.Unknown = append(rep.Unknown, UnknownItem{ID: id, Rows: rs})
		for _, r := range rs {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("spec %q (%s) covers %q, which is not in the catalogue", r.ID, where(r), id))
		}
	}
	slices.SortFunc(rep.Unknown, func(a, b UnknownItem) int { return cmp.Compare(a.ID, b.ID) })
	slices.Sort(rep.Warnings)
	rep.Specs = buildSpecs(rep.Rows, rep.Columns, nil)
	return rep
}

// itemReport is one catalogue item's status and its cell per column, from
// the rows covering it; a spec that ran on a target the item excludes is a
// warning on rep.
func (rep *Report) itemReport(it catalogue.Item, rows []Row) ItemReport {
	ir := ItemReport{Item: it, Rows: rows}
	// Skipped or pending rows on a target the item excludes are the expected outcome of
	// the exclusion: they show as "excluded" and do not count towards the item's status.
	var counted []Row
	for _, r := range ir.Rows {
		if _, excluded := it.Excluded(r.Target); !(excluded && notRun(r.Verdict)) {
			counted = append(counted, r)
		}
	}
	ir.Status = worst(counted)
	for _, col := range rep.Columns {
		cell := Cell{Column: col, Specs: []string{}}
		var in []Row
		for _, r := range ir.Rows {
			if r.column() == col {
				in = append(in, r)
				cell.Specs = appendUnique(cell.Specs, r.ID)
			}
		}
		_, excluded := it.Excluded(col.Target)
		switch {
		case excluded && !slices.ContainsFunc(in, func(r Row) bool { return !notRun(r.Verdict) }):
			cell.Status = StatusExcluded
		case len(in) > 0:
			cell.Status = worst(in)
			if excluded {
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("item %s is excluded on target %q but spec %q ran there", it.ID, col.Target, in[0].ID))
			}
		case len(counted) == 0:
			cell.Status = StatusUncovered
		default:
			cell.Status = StatusNotRun
		}
		ir.Cells = append(ir.Cells, cell)
	}
	return ir
}

// subjectRank orders columns: the reference subject first, the control next, the real
// clients after, unknown subjects last (by name).
func subjectRank(s string) int {
	if i := slices.Index(subjectOrder, s); i >= 0 {
		return i
	}
	return len(subjectOrder)
}

// targetRank puts the in-process kfake target before real Kafka.
func targetRank(t string) int {
	if t == "kfake" {
		return 0
	}
	return 1
}

func notRun(v Verdict) bool { return v == VerdictSkipped || v == VerdictPending }

// BuildRun is Build plus the run's suites and warnings; Date becomes the latest suite end when
// that is later.
func BuildRun(cat catalogue.Catalogue, run Run) Report {
	rep := Build(cat, run.Rows)
	rep.Suites = slices.Clone(run.Suites)
	for _, s := range run.Suites {
		if s.End.After(rep.Date) {
			rep.Date = s.End
		}
	}
	rep.Warnings = append(slices.Clone(run.Warnings), rep.Warnings...)
	rep.Files = slices.Clone(run.Files)
	race := map[string]bool{}
	for _, f := range run.Files {
		race[f.Source] = f.Provenance != nil && f.Provenance.Race
	}
	rep.Specs = buildSpecs(rep.Rows, rep.Columns, race)
	return rep
}

// ItemCounts counts catalogue items by overall status.
func (r Report) ItemCounts() map[Status]int {
	m := map[Status]int{}
	for _, it := range r.Items {
		m[it.Status]++
	}
	return m
}
