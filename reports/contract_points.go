package reports

import (
	"fmt"
	"io"
	"slices"
	"strings"

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

// writeContractPoints renders the contract-point table: Java contract
// point -> specs covering it -> verdict per column.
func writeContractPoints(w io.Writer, rep Report) {
	fmt.Fprintf(w, "\n## Timeouts, deadlines and timers: Java's contract points\n\n")
	fmt.Fprintf(w, "Each point is declared once (catalogue.ContractPoints) with the specs that check it; a cell is the worst verdict of those specs in that column.\n\n")
	header := []string{"Point", "Consumer", "Setting", "Java's contract", "Specs"}
	for _, c := range rep.Columns {
		header = append(header, c.Name())
	}
	row(w, header...)
	sep(w, len(header))
	for _, pr := range ContractPointTable(rep) {
		specs := make([]string, len(pr.Point.Specs))
		for i, s := range pr.Point.Specs {
			specs[i] = "`" + s + "`"
		}
		cells := []string{pr.Point.ID, pr.Point.Consumer, pr.Point.Setting, pr.Point.Java, or(strings.Join(specs, ", "))}
		for _, s := range pr.Cells {
			cells = append(cells, string(s))
		}
		row(w, cells...)
	}
}
