package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Verdicts are what a summary.json decides, flattened for comparison: one
// entry per row ("row ID SUBJECT[@VARIANT] TARGET runK" -> verdict), per
// catalogue item ("item ID" -> status) and the expectation check ("check"
// -> "holds" or its problems). Figures, durations and dates are left out:
// two runs of the same code differ there and agree on these.
type Verdicts map[string]string

// ReadVerdicts decodes a summary.json (WriteJSON) into its verdicts.
func ReadVerdicts(r io.Reader) (Verdicts, error) {
	var s struct {
		Version int `json:"version"`
		Rows    []struct {
			ID      string  `json:"id"`
			Subject string  `json:"subject"`
			Variant string  `json:"variant"`
			Target  string  `json:"target"`
			Run     int     `json:"run"`
			Verdict Verdict `json:"verdict"`
		} `json:"rows"`
		Items []struct {
			ID     string `json:"id"`
			Status Status `json:"status"`
		} `json:"items"`
		Expect *struct {
			Problems []string `json:"Problems"`
		} `json:"expectations"`
	}
	if err := json.NewDecoder(r).Decode(&s); err != nil {
		return nil, fmt.Errorf("decode summary.json: %w", err)
	}
	if s.Version != summaryVersion {
		return nil, fmt.Errorf("summary.json version %d, want %d", s.Version, summaryVersion)
	}
	v := Verdicts{}
	for _, r := range s.Rows {
		col := r.Subject
		if r.Variant != "" {
			col += "@" + r.Variant
		}
		k := fmt.Sprintf("row %s %s %s run%d", r.ID, col, r.Target, r.Run)
		if prev, dup := v[k]; dup {
			return nil, fmt.Errorf("summary.json: %s twice (%s, %s)", k, prev, r.Verdict)
		}
		v[k] = string(r.Verdict)
	}
	for _, it := range s.Items {
		v["item "+it.ID] = string(it.Status)
	}
	if s.Expect != nil {
		v["check"] = "holds"
		if len(s.Expect.Problems) > 0 {
			p := slices.Clone(s.Expect.Problems)
			slices.Sort(p)
			v["check"] = strings.Join(p, "; ")
		}
	}
	return v, nil
}

// Diff lists every key whose value differs between a and b, or that only
// one has, one line each ("KEY: A -> B", "(none)" for a missing side), in
// key order; empty when they agree.
func (a Verdicts) Diff(b Verdicts) []string {
	keys := slices.Sorted(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []string
	for _, k := range keys {
		va, oka := a[k]
		vb, okb := b[k]
		if oka && okb && va == vb {
			continue
		}
		if !oka {
			va = "(none)"
		}
		if !okb {
			vb = "(none)"
		}
		out = append(out, fmt.Sprintf("%s: %s -> %s", k, va, vb))
	}
	return out
}
