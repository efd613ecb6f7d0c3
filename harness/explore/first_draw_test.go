package explore

import (
	"testing"
	"time"
)

// TestShrinkFirstDrawIsSeedSchedule: the first schedule the shrinker runs
// for seed s is Gen().Example(s), the schedule that showed the anomaly.
func TestShrinkFirstDrawIsSeedSchedule(t *testing.T) {
	o := Options{Gen: GenOptions{Regular: true, Share: true}, ShrinkTime: time.Second}
	for _, seed := range []int{3, 1174, 1744} {
		want := Gen(o.Gen).Example(seed)
		var first *Schedule
		shrinkWith(o, Finding{Seed: uint64(seed), Original: want, Shrunk: want}, func(s Schedule) bool {
			if first == nil {
				first = &s
			}
			return false
		})
		if first == nil || string(first.JSON()) != string(want.JSON()) {
			t.Fatalf("seed %d: the shrinker's first schedule is not Example(seed)", seed)
		}
	}
}
