package reports

// Sections that later tools fill (issues 9, 11 and 15, and the managers'
// error classification). Each has its data type and a loader here; the
// writers render a section only when its data is present.

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/kreactor/kreactor/catalogue"
)

// KillMatrixVersion is the version of the kill matrix file layout.
const KillMatrixVersion = 1

// KillMatrix is the outcome of running specs on mutants of the reactor path (
// `make mutants`): a mutant is killed when at least one spec fails on it.
type KillMatrix struct {
	Version int `json:"version"`
	// Specs are the spec ids run on every mutant, in column order.
	Specs   []string `json:"specs"`
	Mutants []Mutant `json:"mutants"`
	// SpecShapes are the failure shapes of the catalogue items each spec covers: a mutant
	// of a seed failure shape must be killed by a spec of that shape.
	SpecShapes map[string][]catalogue.Shape `json:"spec_shapes,omitempty"`
	// Control is each spec's verdict with no mutant switched on, from the same test binary:
	// every one must pass, or a kill proves nothing.
	Control map[string]Verdict `json:"control,omitempty"`
	// Subject and Target are what the specs ran on ("reactor", "kfake").
	Subject string `json:"subject,omitempty"`
	Target  string `json:"target,omitempty"`
	// Seconds is the wall time of the whole run.
	Seconds float64 `json:"seconds,omitempty"`
}

// Mutant is one deliberate bug and each spec's verdict on it.
type Mutant struct {
	Name string `json:"name"`
	// Shape is the catalogue failure shape the bug has (busy-loop, publication-race, ...).
	Shape       catalogue.Shape `json:"shape"`
	Description string          `json:"description"`
	// Where is the file holding the mutation point; Source says where the bug comes from
	// ("seed", "added").
	Where  string `json:"where,omitempty"`
	Source string `json:"source,omitempty"`
	// Verdicts maps spec id to its verdict on this mutant; a missing id did not run.
	Verdicts map[string]Verdict `json:"verdicts"`
	// Seconds is the wall time of this mutant's run.
	Seconds float64 `json:"seconds,omitempty"`
}

// SeedShapes are the failure shapes named in KAFKA-20995, those of the seed Jiras: a mutant
// of one of them must be killed by a spec of the same shape, not only by another shape's.
var SeedShapes = []catalogue.Shape{catalogue.ShapeBusyLoop, catalogue.ShapeAmbiguousEmptyResult, catalogue.ShapePublicationRace, catalogue.ShapeLifecycle}

// KilledBy lists the specs that failed on m, in kill-matrix column order.
func (k KillMatrix) KilledBy(m Mutant) []string {
	var out []string
	for _, s := range k.Specs {
		if v, ok := m.Verdicts[s]; ok && v.Failed() {
			out = append(out, s)
		}
	}
	return out
}

// KilledByShape lists the specs of m's own shape that failed on m, in column order.
func (k KillMatrix) KilledByShape(m Mutant) []string {
	var out []string
	for _, s := range k.KilledBy(m) {
		if slices.Contains(k.SpecShapes[s], m.Shape) {
			out = append(out, s)
		}
	}
	return out
}

// Problems lists what makes the matrix fall short, one line each: a spec that does not pass
// without a mutant, a surviving mutant, and a mutant of a seed shape that no spec of its
// shape kills.
func (k KillMatrix) Problems() []string {
	var out []string
	if k.Control != nil {
		for _, s := range k.Specs {
			if v := k.Control[s]; v != VerdictPass {
				out = append(out, fmt.Sprintf("spec %s is %s without a mutant: its kills prove nothing", s, or(string(v))))
			}
		}
	}
	for _, m := range k.Mutants {
		switch {
		case len(k.KilledBy(m)) == 0:
			out = append(out, fmt.Sprintf("mutant %s (%s) survived every spec", m.Name, m.Shape))
		case slices.Contains(SeedShapes, m.Shape) && len(k.KilledByShape(m)) == 0:
			out = append(out, fmt.Sprintf("mutant %s (%s) is killed only by specs of other shapes (%s)", m.Name, m.Shape, strings.Join(k.KilledBy(m), ", ")))
		}
	}
	return out
}

// LoadKillMatrix reads a kill matrix file. Errors name the file and the bad field.
func LoadKillMatrix(path string) (*KillMatrix, error) {
	var k KillMatrix
	if err := loadJSON(path, &k); err != nil {
		return nil, err
	}
	if k.Version != KillMatrixVersion {
		return nil, fmt.Errorf("%s: kill matrix version %d, this report reads %d", path, k.Version, KillMatrixVersion)
	}
	for _, m := range k.Mutants {
		for s, v := range m.Verdicts {
			if !slices.Contains(k.Specs, s) {
				return nil, fmt.Errorf("%s: mutant %q: spec %q is not in specs", path, m.Name, s)
			}
			if _, ok := rank[v]; !ok {
				return nil, fmt.Errorf("%s: mutant %q: spec %q: unknown verdict %q", path, m.Name, s, v)
			}
		}
	}
	return &k, nil
}

// PerfVersion is the version of the perf file layout.
const PerfVersion = 1

// PerfTable is the side-by-side benchmark: one row per benchmark, subject and
// target, with every round's value, shown with min/median/max and the ratio to a baseline
// subject's median.
type PerfTable struct {
	Version int `json:"version"`
	// RatioTo is the subject every row is compared with (e.g. "kgo").
	RatioTo string `json:"ratio_to"`
	// Twin, when set, is the A/A control: a second instance of RatioTo's
	// client, measured as a subject of its own. Every row is compared
	// with it too, and its own ratio to RatioTo is how far apart the
	// benchmark puts two identical clients. Empty when none was measured.
	Twin string    `json:"twin,omitempty"`
	Rows []PerfRow `json:"rows"`
}

// PerfRow is one benchmark figure of one subject on one target over its rounds.
type PerfRow struct {
	Benchmark string    `json:"benchmark"`
	Subject   string    `json:"subject"`
	Target    string    `json:"target"`
	Unit      string    `json:"unit"`
	Values    []float64 `json:"values"`
}

// PerfStats are a row's min, median and max over its rounds.
type PerfStats struct{ Min, Median, Max float64 }

// Stats returns the row's min, median and max over its rounds.
func (r PerfRow) Stats() PerfStats {
	v := slices.Clone(r.Values)
	slices.Sort(v)
	if len(v) == 0 {
		return PerfStats{}
	}
	return PerfStats{v[0], median(v), v[len(v)-1]}
}

// PerfRatio compares a row with the row of a reference subject (the
// table's RatioTo, or its Twin) for the same benchmark, target and
// unit: the ratio of their medians, and the smallest and largest ratio of
// a round's values (rounds are paired by index: the benchmark interleaves
// them). OK is false for the reference's own row and when it has no such
// row.
//
// The paired figures judge "at most the reference's" on a noisy machine,
// where the spread between runs of the same code is as large as the
// difference sought: Paired is the median of the rounds' ratios; Below of
// Pairs rounds had a value under the reference's; [CILo, CIHi] is a
// distribution-free confidence interval for the median round ratio at
// CILevel (0 when the rounds are too few for 80%): the order statistics
// the binomial distribution of the sign test gives.
type PerfRatio struct {
	Median, Lo, Hi float64
	Paired         float64
	Below, Pairs   int
	CILo, CIHi     float64
	CILevel        float64
	OK             bool
}

// String renders q as the summaries show it: the ratio of medians with
// the smallest and largest round ratio in brackets, then the rounds'
// median ratio, its confidence interval when the rounds allow one, and in
// how many rounds the row was below the reference, e.g. "1.04
// [0.87-1.18]; rounds 1.02, 90% CI 0.95-1.10, below in 5 of 8".
func (q PerfRatio) String() string {
	if !q.OK {
		return "-"
	}
	s := fmt.Sprintf("%.2f [%.2f-%.2f]", q.Median, q.Lo, q.Hi)
	if q.Pairs < 2 {
		return s
	}
	s += fmt.Sprintf("; rounds %.2f", q.Paired)
	if q.CILevel > 0 {
		s += fmt.Sprintf(", %.0f%% CI %.2f-%.2f", 100*math.Floor(100*q.CILevel)/100, q.CILo, q.CIHi)
	}
	return s + fmt.Sprintf(", below in %d of %d", q.Below, q.Pairs)
}

// medianCI returns the interval between the k-th smallest and k-th largest
// of sorted (k as large as keeps the coverage at least 90%, else 80%) and
// its coverage: the probability that the median lies inside, for any
// continuous distribution (the number of values below the median is
// Binomial(n, 1/2)). Zero level when n is too small.
func medianCI(sorted []float64) (lo, hi, level float64) {
	n := len(sorted)
	// cdf[j] = P(X <= j), X ~ Binomial(n, 1/2)
	cdf := make([]float64, n+1)
	c, sum := 1.0, 0.0
	for j := 0; j <= n; j++ {
		if j > 0 {
			c = c * float64(n-j+1) / float64(j)
		}
		sum += c
		cdf[j] = sum / math.Pow(2, float64(n))
	}
	for _, want := range []float64{0.90, 0.80} {
		for k := n / 2; k >= 1; k-- {
			if cov := 1 - 2*cdf[k-1]; cov >= want {
				return sorted[k-1], sorted[n-k], cov
			}
		}
	}
	return 0, 0, 0
}

// Ratio returns row r's ratio to the RatioTo subject.
func (t *PerfTable) Ratio(r PerfRow) PerfRatio { return t.RatioToSubject(r, t.RatioTo) }

// TwinRatio returns row r's ratio to the Twin subject; not OK when the
// table has no Twin.
func (t *PerfTable) TwinRatio(r PerfRow) PerfRatio {
	if t.Twin == "" {
		return PerfRatio{}
	}
	return t.RatioToSubject(r, t.Twin)
}

// RatioToSubject returns row r's ratio to subject ref's row for the same
// benchmark, target and unit, as Ratio does for RatioTo. OK is false for
// ref's own row and when ref has no such row.
func (t *PerfTable) RatioToSubject(r PerfRow, ref string) PerfRatio {
	if r.Subject == ref {
		return PerfRatio{}
	}
	for _, b := range t.Rows {
		if b.Subject != ref || b.Benchmark != r.Benchmark || b.Target != r.Target || b.Unit != r.Unit {
			continue
		}
		rm, bm := r.Stats().Median, b.Stats().Median
		if bm == 0 {
			return PerfRatio{}
		}
		out := PerfRatio{Median: rm / bm, OK: true}
		first := true
		var qs []float64
		for i := range min(len(r.Values), len(b.Values)) {
			if b.Values[i] == 0 {
				continue
			}
			q := r.Values[i] / b.Values[i]
			qs = append(qs, q)
			if q < 1 {
				out.Below++
			}
			if first || q < out.Lo {
				out.Lo = q
			}
			if first || q > out.Hi {
				out.Hi = q
			}
			first = false
		}
		if out.Pairs = len(qs); out.Pairs > 0 {
			slices.Sort(qs)
			out.Paired = median(qs)
			out.CILo, out.CIHi, out.CILevel = medianCI(qs)
		}
		return out
	}
	return PerfRatio{}
}

// LoadPerf reads a perf file.
func LoadPerf(path string) (*PerfTable, error) {
	var p PerfTable
	if err := loadJSON(path, &p); err != nil {
		return nil, err
	}
	if p.Version != PerfVersion {
		return nil, fmt.Errorf("%s: perf version %d, this report reads %d", path, p.Version, PerfVersion)
	}
	for _, r := range p.Rows {
		if len(r.Values) == 0 || slices.ContainsFunc(r.Values, notFinite) {
			return nil, fmt.Errorf("%s: benchmark %q %s/%s: values must be present and finite", path, r.Benchmark, r.Subject, r.Target)
		}
	}
	return &p, nil
}

// ErrorClass is one row of the error-classification table: how the managers treat an error
// code on one API (retriable, fatal, refresh metadata, find coordinator, ...).
type ErrorClass struct {
	API   string `json:"api"`
	Error string `json:"error"`
	Class string `json:"class"`
	// Note says why, citing the protocol or Jira, when the class is not the obvious one (for
	// the managers' table: what the Java 4.4.0 consumer does, with its class and method).
	Note string `json:"note,omitempty"`
	// Differs says why the decision departs from the Java 4.4.0 consumer; "" when it follows
	// it.
	Differs string `json:"differs,omitempty"`
}

func loadJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
