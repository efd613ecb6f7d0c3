package reports

// The explore findings page: every finding `kreactor explore` wrote (a
// shrunk schedule as DIR/<subject>-<anomaly>-seed<N>.json, its scenario
// file beside it), with the anomaly, the subject and its release, the
// shrunk file, the rate over replays and the commands that replay it; and,
// where someone triaged it, whether it is a known Jira, a kfake difference
// (checked on real Kafka) or new, with the evidence.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ExploreFinding is one finding file of `kreactor explore` (the fields of
// harness/explore.Report this page reads; the schedule itself is not).
type ExploreFinding struct {
	File    string `json:"-"` // the .json path
	YAML    string `json:"-"` // the scenario file beside it, "" if none
	Seed    uint64 `json:"seed"`
	Subject string `json:"subject"`
	Release string `json:"release,omitempty"`
	Anomaly string `json:"anomaly"` // name, then the evidence
	Rate    *struct {
		Shown int     `json:"shown"`
		Runs  int     `json:"runs"`
		Low   float64 `json:"low"`
		High  float64 `json:"high"`
	} `json:"rate,omitempty"`
	// Classification is added by whoever triaged the finding.
	Classification *Classification `json:"classification,omitempty"`
}

// Classification is a triaged finding's verdict: Kind is one of
// ClassificationKinds; Evidence says what showed it (a Jira, a run on real
// Kafka, a fix).
type Classification struct {
	Kind     string `json:"kind"`
	Jira     string `json:"jira,omitempty"`
	Evidence string `json:"evidence"`
}

// ClassificationKinds are the verdicts a triaged finding may carry.
var ClassificationKinds = []string{
	"known-jira",       // the client's known bug (Jira names it)
	"kfake-difference", // does not reproduce on real Kafka: the fake broker answers differently
	"harness",          // the harness caused it (a driver timeout, a checker assumption the client's contract does not make)
	"new",              // no Jira names it and neither the harness nor the fake broker causes it
	"fixed",            // our bug, fixed (the .json is a regression file)
	"not-reproduced",   // the shrunk schedule did not show it again at a clear rate
	"unconfirmed",      // shows at a low rate; its cause is not established
}

// Name is the anomaly's name (the Anomaly field's first word).
func (f ExploreFinding) Name() string {
	n, _, _ := strings.Cut(f.Anomaly, " ")
	return n
}

// LoadExploreFindings reads every finding file (*.json with a schedule)
// in dir, sorted by subject, anomaly and seed. Errors: dir missing, not a
// directory or unreadable (naming it), a file that is not a finding
// (named), a classification of an unknown kind.
func LoadExploreFindings(dir string) ([]ExploreFinding, error) {
	// Glob reports no match, not an error, for a directory that is not
	// there: that would read as "no findings".
	if st, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory (want the -out directory of kreactor explore)", dir)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []ExploreFinding
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		var probe struct {
			Schedule json.RawMessage `json:"schedule"`
		}
		if json.Unmarshal(b, &probe) != nil || len(probe.Schedule) == 0 {
			continue // a summary or another file, not a finding
		}
		var f ExploreFinding
		if err := json.Unmarshal(b, &f); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if f.Subject == "" || f.Anomaly == "" {
			return nil, fmt.Errorf("%s: a finding names its subject and anomaly", file)
		}
		if c := f.Classification; c != nil && !slices.Contains(ClassificationKinds, c.Kind) {
			return nil, fmt.Errorf("%s: classification %q: want one of %s", file, c.Kind, strings.Join(ClassificationKinds, ", "))
		}
		f.File = file
		if y := strings.TrimSuffix(file, ".json") + ".yaml"; fileExists(y) {
			f.YAML = y
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b ExploreFinding) int {
		if c := strings.Compare(a.Subject, b.Subject); c != 0 {
			return c
		}
		if c := strings.Compare(a.Name(), b.Name()); c != 0 {
			return c
		}
		return int(a.Seed) - int(b.Seed)
	})
	return out, nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// ExploreFindingsMarkdown renders the findings page.
func ExploreFindingsMarkdown(fs []ExploreFinding) string {
	var b strings.Builder
	b.WriteString("# Simulation findings (kreactor explore)\n\n")
	if len(fs) == 0 {
		b.WriteString("No findings.\n")
		return b.String()
	}
	b.WriteString("| anomaly | subject | release | shrunk file | rate over replays | classification | replay |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, f := range fs {
		rate := "not replayed"
		if r := f.Rate; r != nil {
			rate = fmt.Sprintf("%d/%d (95%% Wilson %.2f-%.2f)", r.Shown, r.Runs, r.Low, r.High)
		}
		class := "not triaged"
		if c := f.Classification; c != nil {
			class = c.Kind
			if c.Jira != "" {
				class += " " + c.Jira
			}
		}
		release := f.Release
		if release == "" {
			release = "-"
		}
		file := "`" + filepath.Base(f.File) + "`"
		if f.YAML != "" {
			file += ", `" + filepath.Base(f.YAML) + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", f.Name(), f.Subject, release, file, rate, class, "`"+ExploreReplayCommand(f)+"`")
	}
	b.WriteString("\n")
	for _, f := range fs {
		fmt.Fprintf(&b, "## %s on %s, seed %d\n\n", f.Name(), f.Subject, f.Seed)
		fmt.Fprintf(&b, "- evidence: %s\n", strings.TrimSpace(strings.TrimPrefix(f.Anomaly, f.Name())))
		fmt.Fprintf(&b, "- replay the simulation: `%s`\n", ExploreReplayCommand(f))
		if f.YAML != "" {
			fmt.Fprintf(&b, "- replay the scenario file: `kreactor run %s -subject %s` (on real Kafka: `-target kafka`)\n", f.YAML, f.Subject)
		}
		if c := f.Classification; c != nil {
			fmt.Fprintf(&b, "- classification: %s", c.Kind)
			if c.Jira != "" {
				fmt.Fprintf(&b, " (%s)", c.Jira)
			}
			fmt.Fprintf(&b, ": %s\n", c.Evidence)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// ExploreReplayCommand is the command that replays f's simulation ten times
// and prints its rate.
func ExploreReplayCommand(f ExploreFinding) string {
	return fmt.Sprintf("kreactor explore -replay %s -replays 10", f.File)
}
