package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/kreactor/kreactor/reports"
)

// Durations are measured seconds per unit key (Unit.Key), kept from
// earlier runs (a committed JSON file, plan/durations.json) so that shards
// balance by what each spec took rather than by how many specs they hold.
type Durations struct {
	Version int `json:"version"`
	// Source says which runs the figures come from (command, machine).
	Source string `json:"source,omitempty"`
	// Seconds per Unit.Key: the median over the runs recorded.
	Seconds map[string]float64 `json:"seconds"`
}

// durationsVersion is bumped on an incompatible change of the file.
const durationsVersion = 1

// DefaultSeconds is the duration of a unit no run measured.
const DefaultSeconds = 5.0

// Of returns u's recorded duration, or the median of the recorded
// durations of its suite and subject, or DefaultSeconds.
func (d Durations) Of(u Unit) float64 {
	if s, ok := d.Seconds[u.Key()]; ok {
		return s
	}
	var same []float64
	for _, k := range slices.Sorted(maps.Keys(d.Seconds)) {
		v := Unit{Suite: u.Suite, Spec: "", Subject: u.Subject, Target: u.Target, Release: u.Release}
		if keySuiteSubject(k) == keySuiteSubject(v.Key()) {
			same = append(same, d.Seconds[k])
		}
	}
	if len(same) == 0 {
		return DefaultSeconds
	}
	return median(same)
}

// keySuiteSubject is a key without its spec.
func keySuiteSubject(k string) string {
	var parts [5]string
	n := 0
	start := 0
	for i := 0; i <= len(k) && n < 5; i++ {
		if i == len(k) || k[i] == '|' {
			parts[n] = k[start:i]
			n++
			start = i + 1
		}
	}
	return parts[0] + "|" + parts[2] + "|" + parts[3] + "|" + parts[4]
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ReadDurations decodes a durations file; unknown fields and a version
// other than this package's are errors naming the file.
func ReadDurations(path string) (Durations, error) {
	f, err := os.Open(path)
	if err != nil {
		return Durations{}, fmt.Errorf("durations: %w", err)
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.DisallowUnknownFields()
	var d Durations
	if err := dec.Decode(&d); err != nil {
		return Durations{}, fmt.Errorf("durations %s: %w", path, err)
	}
	if d.Version != durationsVersion {
		return Durations{}, fmt.Errorf("durations %s: version %d, want %d", path, d.Version, durationsVersion)
	}
	for k, s := range d.Seconds {
		if math.IsNaN(s) || math.IsInf(s, 0) || s < 0 {
			return Durations{}, fmt.Errorf("durations %s: %q = %v seconds: want a finite number >= 0", path, k, s)
		}
	}
	return d, nil
}

// Write encodes d (keys sorted, indented).
func (d Durations) Write(w io.Writer) error {
	d.Version = durationsVersion
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// Record reads Ginkgo JSON reports (make conformance's run files) and
// returns the median run time per unit key of every spec that ran (passed
// or failed; skipped specs took no time worth balancing by). source is
// kept in the file. Errors: a file that cannot be read or is not a Ginkgo
// JSON report (reports.ParseFiles), or reports in which no spec ran (the
// durations would be empty).
func Record(paths []string, source string) (Durations, error) {
	run, err := reports.ParseFiles(paths, reports.Options{Lenient: true})
	if err != nil {
		return Durations{}, err
	}
	all := map[string][]float64{}
	for _, r := range run.Rows {
		if r.Verdict == reports.VerdictSkipped || r.Verdict == reports.VerdictPending || r.SuiteDir == "" {
			continue
		}
		u := Unit{Suite: r.SuiteDir, Spec: r.ID, Subject: r.Subject, Target: r.Target, Release: releaseOf(r)}
		all[u.Key()] = append(all[u.Key()], r.Duration.Seconds())
	}
	if len(all) == 0 {
		return Durations{}, fmt.Errorf("%s: no spec ran in these reports: no units to record", strings.Join(paths, ", "))
	}
	d := Durations{Version: durationsVersion, Source: source, Seconds: map[string]float64{}}
	for k, v := range all {
		d.Seconds[k] = math.Round(median(v)*100) / 100
	}
	return d, nil
}

// releaseOf is the release a row's unit names: the java subject's
// kafka-clients version.
func releaseOf(r reports.Row) string {
	if r.Subject == "java" {
		return r.Variant
	}
	return ""
}
