package reports

// Evidence: the real clients (the java subject: kafka-clients;
// kgo: franz-go) are not models. The check never requires them to pass or
// fail a regression; it reports, per regression, whether the shape
// reproduces on them (their spec fails on one of its declared signals), and
// fails only on harness errors in their runs (a driver that crashed or
// hung: nothing was learned about the client).

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
)

// Reproduction says whether a regression's shape showed on an evidence
// subject.
type Reproduction string

// Reproductions, from one row or a group of rows.
const (
	// Reproduces: a spec failed on one of its declared signals (the
	// Jira's symptom: loop steps, the consumer's CPU against its calm
	// window, select-total, a request rate, a duration).
	Reproduces Reproduction = "reproduces"
	// DoesNotReproduce: a signal was measured and held (the spec may have
	// failed on another key, e.g. liveness: see the detail).
	DoesNotReproduce Reproduction = "does not reproduce"
	// NotMeasured: no declared signal was measured (every one needs a
	// probe the subject lacks, the spec was skipped, or it stopped before
	// its window).
	NotMeasured Reproduction = "n/a"
	// HarnessFailure: the run hit a harness error (EntryHarnessError) or
	// panicked: it says nothing about the client.
	HarnessFailure Reproduction = "harness error"
	// Inconclusive: for one run, a signal held but the run is below its
	// evidence floor (FloorShortfall: e.g. no commit was judged); for a
	// cell of several runs, the reproduction rate's interval decides
	// neither way (Decide).
	Inconclusive Reproduction = "inconclusive"
)

// ReproductionOf classifies one row of an evidence subject, and says why
// (the failed keys, the reason it is n/a).
func ReproductionOf(r Row) (Reproduction, string) {
	if len(r.HarnessErrors) > 0 {
		return HarnessFailure, r.HarnessErrors[0]
	}
	if r.Verdict == VerdictPanicked {
		return HarnessFailure, "panicked: " + r.Message
	}
	if r.Verdict == VerdictFail {
		var hit []string
		for _, k := range r.FailedKeys {
			if slices.Contains(r.Signals, k) {
				hit = append(hit, k)
			}
		}
		if len(hit) > 0 {
			return Reproduces, "failed on " + strings.Join(hit, ", ")
		}
	}
	if short := FloorShortfall(r); short != "" {
		return Inconclusive, short
	}
	var measured []string
	for _, f := range r.Figures {
		if !f.IsText && slices.Contains(r.Signals, f.Name) && !slices.Contains(measured, f.Name) {
			measured = append(measured, f.Name)
		}
	}
	switch {
	case notRun(r.Verdict):
		return NotMeasured, or(r.Message)
	case len(measured) == 0 && r.Verdict.Failed():
		return NotMeasured, fmt.Sprintf("%s before any signal was measured (failed: %s)", r.Verdict, or(strings.Join(r.FailedKeys, ", ")))
	case len(measured) == 0:
		return NotMeasured, "no declared signal measured (" + or(strings.Join(r.Signals, ", ")) + ")"
	case r.Verdict.Failed():
		return DoesNotReproduce, fmt.Sprintf("%s held; %s on %s", strings.Join(measured, ", "), r.Verdict, or(strings.Join(r.FailedKeys, ", ")))
	}
	return DoesNotReproduce, strings.Join(measured, ", ") + " held"
}

// reproductionRank orders a group's rows: one reproducing spec makes the
// regression reproduce; a harness error hides nothing else but is shown.
var reproductionRank = map[Reproduction]int{HarnessFailure: 0, Reproduces: 1, DoesNotReproduce: 2, Inconclusive: 3, NotMeasured: 4}

// ReproductionOfRun is the verdict of one run of a group of specs (the
// rows of one regression in one column and one run): the best-ranked
// row's, with the specs behind it.
func ReproductionOfRun(rows []Row) (Reproduction, string) {
	if len(rows) == 0 {
		return NotMeasured, "not run"
	}
	best, detail := NotMeasured, ""
	var specs []string
	for _, r := range rows {
		rp, d := ReproductionOf(r)
		switch {
		case reproductionRank[rp] < reproductionRank[best] || detail == "":
			best, detail, specs = rp, d, []string{r.ID}
		case rp == best && !slices.Contains(specs, r.ID):
			specs = append(specs, r.ID)
		}
	}
	return best, strings.Join(specs, ", ") + ": " + detail
}

// EvidenceCheck is one regression on one evidence column (subject and
// release), over every run of it (RunTally, Decide).
type EvidenceCheck struct {
	Column
	Result Reproduction `json:"result"`
	Detail string       `json:"detail"`
	RunTally
}

// evidenceFor classifies every evidence column's rows of one item.
func evidenceFor(it ItemReport, cols []Column) []EvidenceCheck {
	var out []EvidenceCheck
	for _, col := range cols {
		var rows []Row
		for _, r := range it.Rows {
			if r.column() == col {
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			continue
		}
		out = append(out, evidenceOfRuns(col, rows))
	}
	return out
}

// harnessProblems lists rows of any subject whose run hit a harness error.
func harnessProblems(rows []Row) []string {
	var out []string
	for _, r := range rows {
		for _, e := range r.HarnessErrors {
			out = append(out, fmt.Sprintf("spec %s on %s/%s%s hit a harness error (nothing was learned about the subject): %s", r.ID, r.Subject, r.Target, runSuffix(r.Run), firstLine(e)))
		}
	}
	return out
}

// ReleaseMatrixVersion is the version of the release matrix file layout.
const ReleaseMatrixVersion = 2

// ReleaseMatrix is regression x release of one real client (`make
// java-matrix`): whether each regression's shape reproduces on each
// release, from the regression suite and scenario files run once per
// release. The report renders it as its release matrix section.
type ReleaseMatrix struct {
	Version  int      `json:"version"`
	Subject  string   `json:"subject"`
	Target   string   `json:"target"`
	Releases []string `json:"releases"`
	// Rows are the catalogue's regressions in catalogue order.
	Rows []ReleaseRow `json:"rows"`
	// Seconds is how long the runs took, when the tool that ran them
	// knows (make java-matrix); 0 otherwise.
	Seconds float64 `json:"seconds,omitempty"`
	// Command reruns it.
	Command string `json:"command,omitempty"`
	// Runs is the most runs any cell has (make java-matrix RUNS=N).
	Runs int `json:"runs,omitempty"`
	// NotRun are the regressions no spec of which ran (every one skipped
	// or left out by a label filter such as MATRIX_FOCUS) on any release:
	// not rows.
	NotRun []string `json:"not_run,omitempty"`
}

// ReleaseRow is one regression across the releases (Cells in Releases
// order).
type ReleaseRow struct {
	Item  string          `json:"item"`
	Cells []EvidenceCheck `json:"cells"`
	// SuiteDir is the suite the regression's specs live in
	// ("specs/regressions"), for the command that reruns one; empty when
	// unknown.
	SuiteDir string `json:"suite_dir,omitempty"`
}

// BuildReleaseMatrix builds the matrix of subject on target from a report
// whose columns are that subject in several releases (Column.Variant).
// Errors: no column of the subject on the target.
func BuildReleaseMatrix(rep Report, subject, target string) (*ReleaseMatrix, error) {
	m := &ReleaseMatrix{Version: ReleaseMatrixVersion, Subject: subject, Target: target}
	var cols []Column
	for _, c := range rep.Columns {
		if c.Subject == subject && c.Target == target {
			cols = append(cols, c)
			m.Releases = append(m.Releases, or(c.Variant))
		}
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("reports: no run of subject %q on target %q among the columns", subject, target)
	}
	for _, it := range rep.Items {
		if it.Item.Kind != "regression" {
			continue
		}
		row := ReleaseRow{Item: it.Item.ID}
		for _, r := range it.Rows {
			if r.Subject == subject && r.Target == target && r.SuiteDir != "" {
				row.SuiteDir = r.SuiteDir
				break
			}
		}
		for _, col := range cols {
			cell := EvidenceCheck{Column: col, Result: NotMeasured, Detail: "not run"}
			if ev := evidenceFor(it, []Column{col}); len(ev) == 1 {
				cell = ev[0]
			}
			cell.UnderLoad = runsUnderLoad(rep.Files, it.Rows, col)
			row.Cells = append(row.Cells, cell)
			m.Runs = max(m.Runs, cell.Runs)
		}
		ran := slices.ContainsFunc(it.Rows, func(r Row) bool {
			return r.Subject == subject && r.Target == target && !notRun(r.Verdict)
		})
		if !ran {
			m.NotRun = append(m.NotRun, row.Item)
			continue
		}
		m.Rows = append(m.Rows, row)
	}
	return m, nil
}

// Problems lists the matrix's harness errors (every other outcome is
// evidence).
func (m *ReleaseMatrix) Problems() []string {
	var out []string
	for _, r := range m.Rows {
		for i, c := range r.Cells {
			if c.Result == HarnessFailure {
				out = append(out, fmt.Sprintf("%s on %s %s: %s", r.Item, m.Subject, m.Releases[i], c.Detail))
			}
		}
	}
	return out
}

// Markdown renders the matrix as a Markdown table with a legend: each cell
// is its decision with the reproduction rate over the runs that decided
// and its 95% Wilson interval.
func (m *ReleaseMatrix) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Release matrix: `%s` on `%s`, %s. %s\n\n", m.Subject, m.Target, runsText(m.Runs), MatrixLegend)
	b.WriteString("| Regression |")
	for _, r := range m.Releases {
		fmt.Fprintf(&b, " %s |", r)
	}
	b.WriteString("\n|---|")
	b.WriteString(strings.Repeat("---|", len(m.Releases)))
	b.WriteString("\n")
	for _, r := range m.Rows {
		fmt.Fprintf(&b, "| %s |", r.Item)
		for _, c := range r.Cells {
			fmt.Fprintf(&b, " %s |", c.CellText())
		}
		b.WriteString("\n")
	}
	if len(m.NotRun) > 0 {
		fmt.Fprintf(&b, "\nNot run (no spec selected): %s.\n", strings.Join(m.NotRun, ", "))
	}
	if m.Seconds > 0 {
		fmt.Fprintf(&b, "\nRun time: %.0f s.", m.Seconds)
	}
	if m.Command != "" {
		fmt.Fprintf(&b, " Command: `%s`.", m.Command)
	}
	b.WriteString("\n")
	return b.String()
}

// MatrixLegend explains a release matrix cell and the decision rule.
var MatrixLegend = fmt.Sprintf("A cell: the decision, then k/n = runs that reproduced (a spec of the regression failed on one of its declared signals) of the runs that decided (reproduced, or measured a signal that held, at or above the spec's evidence floor), with the 95%% Wilson interval of the rate. Reproduces when the interval's low end is >= %.0f%%, does not reproduce when its high end is <= %.0f%%, inconclusive otherwise (also when no run decided: every run below its evidence floor); n/a: no signal measured (a probe the client lacks); harness error: a run says nothing about the client.", ReproducesLow*100, NotReproducesHigh*100)

// CellText renders a cell: "reproduces 5/5 (57-100%)", "n/a", or the
// decision with the rate and the inconclusive runs.
func (e EvidenceCheck) CellText() string {
	if e.Result == NotMeasured || e.Result == HarnessFailure || e.Runs == 0 {
		return string(e.Result)
	}
	s := fmt.Sprintf("%s %d/%d (%.0f-%.0f%%)", e.Result, e.Reproduced, e.Decided(), e.Low*100, e.High*100)
	if e.Undecided > 0 {
		s += fmt.Sprintf(" +%d inconclusive", e.Undecided)
	}
	if e.UnderLoad > 0 {
		s += fmt.Sprintf(", %d under load", e.UnderLoad)
	}
	return s
}

func runsText(n int) string {
	switch n {
	case 0:
		return "runs per cell unknown"
	case 1:
		return "1 run per cell"
	}
	return fmt.Sprintf("%d runs per cell", n)
}

// LoadReleaseMatrix reads a release matrix file. Errors name the file and
// the bad field.
func LoadReleaseMatrix(path string) (*ReleaseMatrix, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m ReleaseMatrix
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if m.Version != ReleaseMatrixVersion {
		return nil, fmt.Errorf("%s: release matrix version %d, this report reads %d", path, m.Version, ReleaseMatrixVersion)
	}
	for _, r := range m.Rows {
		if len(r.Cells) != len(m.Releases) {
			return nil, fmt.Errorf("%s: row %s has %d cells for %d releases", path, r.Item, len(r.Cells), len(m.Releases))
		}
	}
	return &m, nil
}

// runsUnderLoad counts the distinct runs of col among rows whose run file
// was taken under load.
func runsUnderLoad(files []RunFile, rows []Row, col Column) int {
	loaded := map[string]bool{}
	for _, f := range files {
		if under, _ := f.Load.UnderLoad(); under {
			loaded[f.Source] = true
		}
	}
	runs := map[int]bool{}
	for _, r := range rows {
		if r.column() == col && loaded[r.Source] {
			runs[r.Run] = true
		}
	}
	return len(runs)
}
