package reports

// Findings: where a real client's release matrix shows a shape starting (or
// stopping) at one release, the claim a Kafka committer can act on:
// "regressed in R" / "fixed in R", with the rates per release, the spec,
// the command that reproduces it and a Jira-markup block to paste. Only
// decided cells (reproduces, does not reproduce) place the change; an
// inconclusive, n/a or harness-error cell between the two sides widens it
// (the change is in R or in one of those releases) and is never read as
// either side.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// FindingKind is what a finding says.
type FindingKind string

// Finding kinds.
const (
	// Regressed: does not reproduce on every decided release before In,
	// reproduces on every decided release from In on.
	Regressed FindingKind = "regressed"
	// Fixed: reproduces on every decided release before In, does not from
	// In on.
	Fixed FindingKind = "fixed"
	// Mixed: the decided releases change side more than once (no single
	// release range); the rates are listed, no release is named.
	Mixed FindingKind = "mixed"
)

// Finding is one regression's change across a client's releases.
type Finding struct {
	Item    string      `json:"item"`
	Subject string      `json:"subject"`
	Target  string      `json:"target"`
	Kind    FindingKind `json:"kind"`
	// In is the first decided release on the new side; Last the last
	// decided release on the old side; Between the releases between them
	// (inconclusive, n/a or harness error): the change is in In or in one
	// of these. In and Last are empty for Mixed.
	In      string   `json:"in,omitempty"`
	Last    string   `json:"last,omitempty"`
	Between []string `json:"between,omitempty"`
	// Cells are the row's cells in release order, with Releases.
	Releases []string        `json:"releases"`
	Cells    []EvidenceCheck `json:"cells"`
	// Specs are the spec ids behind the cells; Command reruns the matrix
	// and SpecCommand one spec on release In (the first Specs entry).
	Specs       []string `json:"specs"`
	Command     string   `json:"command,omitempty"`
	SpecCommand string   `json:"spec_command,omitempty"`
}

// compareReleases orders release strings numerically by their dot-separated
// fields ("4.10.0" after "4.9.1"); a non-numeric field compares as text.
func compareReleases(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, errX := strconv.Atoi(as[i])
		y, errY := strconv.Atoi(bs[i])
		switch {
		case errX == nil && errY == nil && x != y:
			return x - y
		case (errX != nil || errY != nil) && as[i] != bs[i]:
			return strings.Compare(as[i], bs[i])
		}
	}
	return len(as) - len(bs)
}

// Findings lists the matrix's findings, one per regression whose decided
// cells hold both sides, in row order.
func (m *ReleaseMatrix) Findings() []Finding {
	order := make([]int, len(m.Releases))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return compareReleases(m.Releases[a], m.Releases[b]) })
	var out []Finding
	for _, row := range m.Rows {
		f := Finding{Item: row.Item, Subject: m.Subject, Target: m.Target, Command: m.Command}
		for _, i := range order {
			f.Releases = append(f.Releases, m.Releases[i])
			f.Cells = append(f.Cells, row.Cells[i])
			for _, s := range row.Cells[i].Specs {
				if !slices.Contains(f.Specs, s) {
					f.Specs = append(f.Specs, s)
				}
			}
		}
		if classify(&f) {
			f.SpecCommand = specCommand(f, row.SuiteDir)
			out = append(out, f)
		}
	}
	return out
}

// classify fills Kind, In, Last and Between from f.Cells; false when the
// decided cells do not hold both sides.
func classify(f *Finding) bool {
	type side struct {
		i    int
		repr bool
	}
	var decided []side
	for i, c := range f.Cells {
		switch c.Result {
		case Reproduces:
			decided = append(decided, side{i, true})
		case DoesNotReproduce:
			decided = append(decided, side{i, false})
		}
	}
	changes := 0
	at := -1
	for k := 1; k < len(decided); k++ {
		if decided[k].repr != decided[k-1].repr {
			changes++
			at = k
		}
	}
	switch {
	case changes == 0:
		return false
	case changes > 1:
		f.Kind = Mixed
		return true
	}
	last, first := decided[at-1].i, decided[at].i
	f.Kind = Fixed
	if decided[at].repr {
		f.Kind = Regressed
	}
	f.In, f.Last = f.Releases[first], f.Releases[last]
	f.Between = slices.Clone(f.Releases[last+1 : first])
	return true
}

func specCommand(f Finding, suiteDir string) string {
	if len(f.Specs) == 0 || f.In == "" {
		return ""
	}
	dir := "./specs/regressions"
	if suiteDir != "" && suiteDir != "." {
		dir = "./" + strings.TrimPrefix(suiteDir, "./")
	}
	env := fmt.Sprintf("KREACTOR_SUBJECT=%s KREACTOR_TARGET=%s", f.Subject, f.Target)
	if f.Subject == "java" {
		env = fmt.Sprintf("KREACTOR_SUBJECT=java KREACTOR_JAVA_CLIENTS=%s KREACTOR_TARGET=%s", f.In, f.Target)
	}
	return fmt.Sprintf("%s go tool ginkgo --label-filter='%s%s' %s", env, LabelID, f.Specs[0], dir)
}

// Headline is the one-line claim: "KAFKA-18641 regressed in kafka-clients
// 4.2.0 (java on kfake)", with the inconclusive releases that could hold
// the change.
func (f Finding) Headline() string {
	client := f.Subject
	if f.Subject == "java" {
		client = "kafka-clients"
	}
	if f.Kind == Mixed {
		return fmt.Sprintf("%s: no single release range on %s (%s on %s): the decided releases change side more than once", f.Item, client, f.Subject, f.Target)
	}
	s := fmt.Sprintf("%s %s in %s %s (%s on %s)", f.Item, f.Kind, client, f.In, f.Subject, f.Target)
	if len(f.Between) > 0 {
		s += fmt.Sprintf(", or in %s (not decided); last release on the other side: %s", strings.Join(f.Between, ", "), f.Last)
	}
	return s
}

// Markdown renders the finding: headline, rates per release, spec and
// commands.
func (f Finding) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n| Release | Decision | Reproduced / decided runs | 95%% interval | Inconclusive runs | Runs under load |\n|---|---|---|---|---|---|\n", f.Headline())
	for i, c := range f.Cells {
		fmt.Fprintf(&b, "| %s | %s | %d/%d | %.0f-%.0f%% | %d | %d of %d |\n", f.Releases[i], c.Result, c.Reproduced, c.Decided(), c.Low*100, c.High*100, c.Undecided, c.UnderLoad, c.Runs)
	}
	fmt.Fprintf(&b, "\nSpec: %s.", codeList(f.Specs))
	if f.SpecCommand != "" {
		fmt.Fprintf(&b, " One run on %s: `%s`.", f.In, f.SpecCommand)
	}
	if f.Command != "" {
		fmt.Fprintf(&b, " The rates: `%s`.", f.Command)
	}
	b.WriteString("\n")
	return b.String()
}

// Jira renders the finding in Jira wiki markup, to paste into an issue.
func (f Finding) Jira() string {
	var b strings.Builder
	fmt.Fprintf(&b, "h3. %s\n\n||Release||Decision||Reproduced / decided runs||95%% interval||Inconclusive runs||Runs under load||\n", f.Headline())
	for i, c := range f.Cells {
		fmt.Fprintf(&b, "|%s|%s|%d/%d|%.0f-%.0f%%|%d|%d of %d|\n", f.Releases[i], c.Result, c.Reproduced, c.Decided(), c.Low*100, c.High*100, c.Undecided, c.UnderLoad, c.Runs)
	}
	fmt.Fprintf(&b, "\nSpec: %s. Decision rule: %s\n", jiraList(f.Specs), MatrixLegend)
	if f.SpecCommand != "" {
		fmt.Fprintf(&b, "\nOne run on %s:\n{noformat}\n%s\n{noformat}\n", f.In, f.SpecCommand)
	}
	if f.Command != "" {
		fmt.Fprintf(&b, "\nThe rates (kreactor):\n{noformat}\n%s\n{noformat}\n", f.Command)
	}
	return b.String()
}

// FindingsMarkdown renders every finding, or a line saying there is none.
func FindingsMarkdown(fs []Finding) string {
	if len(fs) == 0 {
		return "No finding: no regression's decided releases hold both sides (reproduces and does not reproduce).\n"
	}
	var parts []string
	for _, f := range fs {
		parts = append(parts, f.Markdown())
	}
	return strings.Join(parts, "\n")
}

// FindingsJira renders every finding in Jira markup.
func FindingsJira(fs []Finding) string {
	var parts []string
	for _, f := range fs {
		parts = append(parts, f.Jira())
	}
	return strings.Join(parts, "\n")
}

func codeList(ss []string) string {
	var out []string
	for _, s := range ss {
		out = append(out, "`"+s+"`")
	}
	return strings.Join(out, ", ")
}

func jiraList(ss []string) string {
	var out []string
	for _, s := range ss {
		out = append(out, "{{"+s+"}}")
	}
	return strings.Join(out, ", ")
}
