// Package plan splits one conformance run (every suite x subject x target x
// release x run) into units of work, one per spec, and assigns them to
// shards: each unit lands in exactly one shard, and shards balance by the
// units' durations measured in earlier runs (Durations, read from Ginkgo
// JSON reports). `kreactor plan` lists the units and runs a shard; the
// shards' run files merge into the unsharded run's report (package reports:
// ShardFilter, ParseFiles).
package plan

import (
	"cmp"
	"container/heap"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Unit is one spec run once against one subject on one target.
type Unit struct {
	// Suite is the suite's package directory relative to the module root
	// ("specs/regressions").
	Suite string `json:"suite"`
	// Spec is the spec id (label id:).
	Spec    string `json:"spec"`
	Subject string `json:"subject"`
	Target  string `json:"target"`
	// Release is the subject's release (the java subject's kafka-clients
	// version, KREACTOR_JAVA_CLIENTS); empty for the other subjects.
	Release string `json:"release,omitempty"`
	// Run is the repeat index, 1-based (KREACTOR_RUN).
	Run int `json:"run"`
	// Alone is true when the spec judges CPU or timing (suite.Alone:
	// Ginkgo's Serial): it runs after its suite's parallel specs, alone.
	Alone bool `json:"alone,omitempty"`
	// Seconds is the duration the plan balanced by (Durations.Of).
	Seconds float64 `json:"seconds"`
}

// Key names the unit without its run: the spec's duration is looked up by
// it (every repeat of a spec takes about as long).
func (u Unit) Key() string {
	return strings.Join([]string{u.Suite, u.Spec, u.Subject, u.Target, u.Release}, "|")
}

// String is the unit as `kreactor plan` lists it.
func (u Unit) String() string {
	rel := u.Release
	if rel == "" {
		rel = "-"
	}
	alone := ""
	if u.Alone {
		alone = " alone"
	}
	return fmt.Sprintf("%s %s %s %s %s run%d %.1fs%s", u.Suite, u.Spec, u.Subject, u.Target, rel, u.Run, u.Seconds, alone)
}

// Group is what one Ginkgo invocation runs: one suite for one subject,
// target, release and run.
type Group struct {
	Suite, Subject, Target, Release string
	Run                             int
}

// GroupOf returns u's group.
func GroupOf(u Unit) Group {
	return Group{Suite: u.Suite, Subject: u.Subject, Target: u.Target, Release: u.Release, Run: u.Run}
}

// Sort orders units deterministically: by subject, target, release, run,
// suite, then spec.
func Sort(units []Unit) {
	slices.SortFunc(units, func(a, b Unit) int {
		return cmp.Or(cmp.Compare(a.Subject, b.Subject), cmp.Compare(a.Target, b.Target),
			cmp.Compare(a.Release, b.Release), cmp.Compare(a.Run, b.Run),
			cmp.Compare(a.Suite, b.Suite), cmp.Compare(a.Spec, b.Spec))
	})
}

// Shard is one shard's units and their summed duration.
type Shard struct {
	Index   int     `json:"index"` // 0-based, as JOB_COMPLETION_INDEX
	Units   []Unit  `json:"units"`
	Seconds float64 `json:"seconds"`
}

// Assign splits units into n shards (1 <= n <= max(1, len(units))):
// longest unit first, each to the shard with the least duration so far (the
// lowest index on a tie). Every unit lands in exactly one shard; the result
// depends only on the units and their Seconds, never on their order. Each
// shard's units are sorted (Sort). Memory and time grow with len(units),
// never with n beyond it. It returns an error for n < 1, for n above the
// number of units (a shard would run nothing; the error names both
// numbers), or for a duplicate unit.
func Assign(units []Unit, n int) ([]Shard, error) {
	if n < 1 {
		return nil, fmt.Errorf("shards = %d: want at least 1", n)
	}
	if n > 1 && n > len(units) {
		return nil, fmt.Errorf("shards = %d: more than the %d units to run (a shard would be empty)", n, len(units))
	}
	byLength := slices.Clone(units)
	Sort(byLength)
	for i := 1; i < len(byLength); i++ {
		if a, b := byLength[i-1], byLength[i]; a.Key() == b.Key() && a.Run == b.Run {
			return nil, fmt.Errorf("unit %s listed twice", b)
		}
	}
	slices.SortStableFunc(byLength, func(a, b Unit) int { return cmp.Compare(b.Seconds, a.Seconds) })
	shards := make([]Shard, n)
	least := make(leastLoaded, n)
	for i := range shards {
		shards[i].Index = i
		least[i] = &shards[i]
	}
	// least is already a heap: every shard is at 0 s and in index order.
	for _, u := range byLength {
		s := least[0]
		s.Units = append(s.Units, u)
		s.Seconds += u.Seconds
		heap.Fix(&least, 0)
	}
	for i := range shards {
		Sort(shards[i].Units)
	}
	return shards, nil
}

// leastLoaded is a min-heap of shards by summed duration, then index: its
// root is the shard the next unit goes to.
type leastLoaded []*Shard

func (h leastLoaded) Len() int { return len(h) }
func (h leastLoaded) Less(i, j int) bool {
	if h[i].Seconds != h[j].Seconds {
		return h[i].Seconds < h[j].Seconds
	}
	return h[i].Index < h[j].Index
}
func (h leastLoaded) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *leastLoaded) Push(x any)   { *h = append(*h, x.(*Shard)) }
func (h *leastLoaded) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// ParseShard reads "i/N" (0 <= i < N, the 0-based index a Kubernetes
// Indexed Job's JOB_COMPLETION_INDEX and a workflow matrix give) or "N"
// alone, the index then taken from index (the value of
// $JOB_COMPLETION_INDEX; an error when it is empty).
func ParseShard(s, index string) (i, n int, err error) {
	is, ns, found := strings.Cut(s, "/")
	if !found {
		is, ns = index, s
		if index == "" {
			return 0, 0, fmt.Errorf("shard %q: give i/N, or N with $JOB_COMPLETION_INDEX set", s)
		}
	}
	n, err = strconv.Atoi(ns)
	if err != nil || n < 1 {
		return 0, 0, fmt.Errorf("shard %q: the shard count %q must be an integer >= 1", s, ns)
	}
	i, err = strconv.Atoi(is)
	if err != nil || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("shard %q: the index %q must be an integer in [0, %d)", s, is, n)
	}
	return i, n, nil
}

// Total is the units' summed duration.
func Total(units []Unit) time.Duration {
	var s float64
	for _, u := range units {
		s += u.Seconds
	}
	return time.Duration(s * float64(time.Second))
}
