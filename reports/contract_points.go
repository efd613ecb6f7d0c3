package reports

import (
	"slices"

	"github.com/kreactor/kreactor/catalogue"
)

// PointRow is one contract point (a timeout, deadline or timer, declared
// in catalogue.ContractPoints) with its verdict in every column: the worst
// status of the specs the point names that ran there.
type PointRow struct {
	Point catalogue.ContractPoint
	// Cells are one per Report.Columns, same order: StatusUncovered when
	// the point names no spec, StatusNotRun when none of its specs ran in
	// the column.
	Cells []Status
}

// ContractPointTable joins catalogue.ContractPoints to rep's spec results.
func ContractPointTable(rep Report) []PointRow {
	out := make([]PointRow, 0, len(catalogue.ContractPoints))
	for _, p := range catalogue.ContractPoints {
		pr := PointRow{Point: p, Cells: make([]Status, len(rep.Columns))}
		for i, col := range rep.Columns {
			pr.Cells[i] = pointStatus(rep, p, col)
		}
		out = append(out, pr)
	}
	return out
}

func pointStatus(rep Report, p catalogue.ContractPoint, col Column) Status {
	if len(p.Specs) == 0 {
		return StatusUncovered
	}
	var rows []Row
	for _, id := range p.Specs {
		s, ok := rep.Spec(id)
		if !ok {
			continue
		}
		if i := slices.IndexFunc(s.Cells, func(c SpecCell) bool { return c.Column == col }); i >= 0 {
			rows = append(rows, s.Cells[i].Runs...)
		}
	}
	if len(rows) == 0 {
		return StatusNotRun
	}
	return worst(rows)
}
