package plan

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// units is a matrix like make conformance's: suites x specs x subjects x
// runs, with uneven durations.
func units(r *rand.Rand) []Unit {
	var us []Unit
	for _, subject := range []string{"reactor", "baseline", "null", "java", "kgo"} {
		for _, suite := range []string{"specs/contract", "specs/properties", "specs/regressions"} {
			for s := 0; s < 20; s++ {
				for run := 1; run <= 2; run++ {
					rel := ""
					if subject == "java" {
						rel = "4.4.0"
					}
					us = append(us, Unit{Suite: suite, Spec: fmt.Sprintf("spec-%d", s), Subject: subject, Target: "kfake",
						Release: rel, Run: run, Seconds: float64(r.IntN(3000)) / 100, Alone: s%7 == 0})
				}
			}
		}
	}
	return us
}

func keys(us []Unit) []string {
	var ks []string
	for _, u := range us {
		ks = append(ks, fmt.Sprintf("%s|run%d", u.Key(), u.Run))
	}
	slices.Sort(ks)
	return ks
}

func TestAssignDisjointCompleteBalanced(t *testing.T) {
	all := units(rand.New(rand.NewPCG(1, 2)))
	var longest float64
	for _, u := range all {
		longest = max(longest, u.Seconds)
	}
	for _, n := range []int{1, 2, 3, 4, 7, 16, len(all)} {
		shards, err := Assign(all, n)
		if err != nil {
			t.Fatal(err)
		}
		if len(shards) != n {
			t.Fatalf("n=%d: %d shards", n, len(shards))
		}
		var got []Unit
		seen := map[string]int{}
		var hi float64
		for i, s := range shards {
			if s.Index != i {
				t.Errorf("n=%d: shard %d has index %d", n, i, s.Index)
			}
			var sum float64
			for _, u := range s.Units {
				k := fmt.Sprintf("%s|run%d", u.Key(), u.Run)
				if prev, dup := seen[k]; dup {
					t.Errorf("n=%d: unit %s in shards %d and %d", n, k, prev, i)
				}
				seen[k] = i
				sum += u.Seconds
			}
			if diff := sum - s.Seconds; diff > 1e-6 || diff < -1e-6 {
				t.Errorf("n=%d shard %d: Seconds %.2f, units sum to %.2f", n, i, s.Seconds, sum)
			}
			hi = max(hi, s.Seconds)
			got = append(got, s.Units...)
		}
		if !slices.Equal(keys(got), keys(all)) {
			t.Fatalf("n=%d: the shards' units are not the plan's (%d vs %d)", n, len(got), len(all))
		}
		// Longest-first greedy: no shard exceeds the mean by more than one unit.
		mean := Total(all).Seconds() / float64(n)
		if hi > mean+longest+1e-6 {
			t.Errorf("n=%d: largest shard %.1f s, mean %.1f s, longest unit %.1f s: unbalanced", n, hi, mean, longest)
		}
	}
}

func TestAssignDeterministic(t *testing.T) {
	all := units(rand.New(rand.NewPCG(3, 4)))
	want, err := Assign(all, 4)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		shuffled := slices.Clone(all)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		got, err := Assign(shuffled, 4)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if !slices.Equal(got[i].Units, want[i].Units) {
				t.Fatalf("shard %d differs when the units come in another order", i)
			}
		}
	}
}

func TestAssignBalancesByDuration(t *testing.T) {
	// One long unit and many short ones: counting units would put half of
	// them beside the long one.
	all := []Unit{{Suite: "s", Spec: "long", Subject: "reactor", Target: "kfake", Run: 1, Seconds: 100}}
	for i := range 10 {
		all = append(all, Unit{Suite: "s", Spec: fmt.Sprintf("short-%d", i), Subject: "reactor", Target: "kfake", Run: 1, Seconds: 10})
	}
	shards, err := Assign(all, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(shards[0].Units) != 1 || shards[0].Units[0].Spec != "long" || len(shards[1].Units) != 10 {
		t.Fatalf("want the long unit alone: %v", shards)
	}
}

func TestAssignErrors(t *testing.T) {
	u := Unit{Suite: "s", Spec: "a", Subject: "reactor", Target: "kfake", Run: 1}
	if _, err := Assign([]Unit{u}, 0); err == nil {
		t.Error("0 shards accepted")
	}
	if _, err := Assign([]Unit{u, u}, 2); err == nil {
		t.Error("a unit listed twice accepted")
	}
	if shards, err := Assign(nil, 1); err != nil || len(shards) != 1 {
		t.Errorf("no units in one shard: %v, %v", shards, err)
	}
}

// A shard count above the units is refused before anything proportional
// to it is allocated: a huge count fails fast instead of exhausting memory.
func TestAssignRefusesMoreShardsThanUnits(t *testing.T) {
	all := units(rand.New(rand.NewPCG(1, 2)))
	for _, n := range []int{len(all) + 1, 1_000_000_000, 1 << 40} {
		_, err := Assign(all, n)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprint(n)) || !strings.Contains(err.Error(), fmt.Sprint(len(all))) {
			t.Errorf("Assign(%d units, %d) = %v, want an error naming both numbers", len(all), n, err)
		}
	}
}

// Assign picks the least-loaded shard, the lowest index on a tie, as a
// scan over every shard would; many shards must not cost a scan per unit.
func TestAssignMatchesScan(t *testing.T) {
	all := units(rand.New(rand.NewPCG(7, 8)))
	for _, n := range []int{3, 16, 100, len(all)} {
		got, err := Assign(all, n)
		if err != nil {
			t.Fatal(err)
		}
		want := scanAssign(all, n)
		for i := range want {
			if !slices.Equal(got[i].Units, want[i].Units) {
				t.Fatalf("n=%d: shard %d differs from a scan's", n, i)
			}
		}
	}
}

func scanAssign(units []Unit, n int) []Shard {
	byLength := slices.Clone(units)
	Sort(byLength)
	slices.SortStableFunc(byLength, func(a, b Unit) int { return cmp.Compare(b.Seconds, a.Seconds) })
	shards := make([]Shard, n)
	for _, u := range byLength {
		least := 0
		for i := 1; i < n; i++ {
			if shards[i].Seconds < shards[least].Seconds {
				least = i
			}
		}
		shards[least].Units = append(shards[least].Units, u)
		shards[least].Seconds += u.Seconds
	}
	for i := range shards {
		Sort(shards[i].Units)
	}
	return shards
}

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		s, env string
		i, n   int
		ok     bool
	}{
		{"0/4", "", 0, 4, true},
		{"3/4", "", 3, 4, true},
		{"4", "2", 2, 4, true},
		{"4/4", "", 0, 0, false},
		{"-1/4", "", 0, 0, false},
		{"1/0", "", 0, 0, false},
		{"x/4", "", 0, 0, false},
		{"4", "", 0, 0, false},
		{"4", "9", 0, 0, false},
	} {
		i, n, err := ParseShard(c.s, c.env)
		if (err == nil) != c.ok || (c.ok && (i != c.i || n != c.n)) {
			t.Errorf("ParseShard(%q, %q) = %d, %d, %v", c.s, c.env, i, n, err)
		}
	}
}

func TestDurationsOf(t *testing.T) {
	d := Durations{Seconds: map[string]float64{
		"specs/x|a|reactor|kfake|": 2,
		"specs/x|b|reactor|kfake|": 4,
		"specs/x|c|reactor|kfake|": 9,
	}}
	u := Unit{Suite: "specs/x", Spec: "b", Subject: "reactor", Target: "kfake"}
	if got := d.Of(u); got != 4 {
		t.Errorf("recorded unit: %v", got)
	}
	u.Spec = "new"
	if got := d.Of(u); got != 4 {
		t.Errorf("unrecorded unit of a recorded suite: %v, want the median 4", got)
	}
	u.Subject = "kgo"
	if got := d.Of(u); got != DefaultSeconds {
		t.Errorf("unrecorded suite and subject: %v", got)
	}
}

// Reports in which no spec ran give no durations: an error, not a file
// of 0 units; a file holding null is not a report at all.
func TestRecordNoUnits(t *testing.T) {
	dir := t.TempDir()
	for body, want := range map[string]string{"[]": "no units to record", "null": "not a Ginkgo JSON report"} {
		path := filepath.Join(dir, "r.json")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if d, err := Record([]string{path}, "test"); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("Record(%s) = %v, %v; want an error naming the file with %q", body, d, err, want)
		}
	}
}
