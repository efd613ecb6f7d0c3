package reports

// The evidence floor: the least a run of a spec must have measured for its
// verdict to say anything (commits judged, heartbeats seen, the window's
// length). A run below its floor is inconclusive: never a pass, never "does
// not reproduce". Specs declare the floor with suite.Evidence (Go specs)
// or a scenario file's evidence: map; both attach EntryEvidence, and
// FloorShortfall is the one place that judges it.

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// EntryEvidence holds a JSON array of Floor: the spec's evidence floor.
const EntryEvidence = "kreactor.evidence"

// Floor is one minimum: the figure Figure (a numeric report entry of the
// spec, in the figure's own unit) must be present and >= Min.
type Floor struct {
	Figure string  `json:"figure"`
	Min    float64 `json:"min"`
}

// String renders "figure >= min".
func (f Floor) String() string { return fmt.Sprintf("%s >= %s", f.Figure, formatValue(f.Min)) }

// ValidateFloors returns an error naming the first bad floor: an empty or
// duplicate figure name, a minimum that is not a finite number >= 0.
func ValidateFloors(fs []Floor) error {
	seen := map[string]bool{}
	for i, f := range fs {
		switch {
		case strings.TrimSpace(f.Figure) == "":
			return fmt.Errorf("evidence floor %d: empty figure name", i)
		case seen[f.Figure]:
			return fmt.Errorf("evidence floor %q: declared twice", f.Figure)
		case math.IsNaN(f.Min) || math.IsInf(f.Min, 0) || f.Min < 0:
			return fmt.Errorf("evidence floor %q: minimum %v, want a finite number >= 0", f.Figure, f.Min)
		}
		seen[f.Figure] = true
	}
	return nil
}

func decodeFloors(asJSON string) ([]Floor, error) {
	var out []Floor
	if err := json.Unmarshal([]byte(asJSON), &out); err != nil {
		return nil, fmt.Errorf("decode %s (want a JSON array of {figure, min}): %w", EntryEvidence, err)
	}
	if err := ValidateFloors(out); err != nil {
		return nil, fmt.Errorf("%s: %w", EntryEvidence, err)
	}
	return out, nil
}

// FloorShortfall says why a row is below its evidence floor ("" when it
// meets every floor or declares none): each floor whose figure is missing
// or below its minimum, with the value seen. A figure attached several
// times counts with its largest value.
func FloorShortfall(r Row) string {
	var short []string
	for _, fl := range r.Floors {
		best, seen := 0.0, false
		for _, f := range r.Figures {
			if f.IsText || f.Name != fl.Figure {
				continue
			}
			if !seen || f.Figure.Value > best {
				best, seen = f.Figure.Value, true
			}
		}
		switch {
		case !seen:
			short = append(short, fmt.Sprintf("%s not measured (floor %s)", fl.Figure, formatValue(fl.Min)))
		case best < fl.Min:
			short = append(short, fmt.Sprintf("%s = %s < %s", fl.Figure, formatValue(best), formatValue(fl.Min)))
		}
	}
	if len(short) == 0 {
		return ""
	}
	return "below the evidence floor: " + strings.Join(short, ", ")
}

// belowFloor lists the reference subject's passing runs that are below
// their evidence floor: such a run is inconclusive, not a pass.
func belowFloor(rows []Row, reference string) []string {
	var out []string
	for _, r := range rows {
		if r.Subject != reference || r.Verdict != VerdictPass {
			continue
		}
		if short := FloorShortfall(r); short != "" {
			out = append(out, fmt.Sprintf("spec %s on %s/%s%s passed %s: inconclusive, not a pass", r.ID, r.Subject, r.Target, runSuffix(r.Run), short))
		}
	}
	return out
}
