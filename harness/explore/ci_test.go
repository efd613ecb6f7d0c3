package explore

import (
	"flag"
	"testing"
	"time"
)

var (
	flagCISeeds = flag.Int("explore.ci.seeds", 200, "TestExploreReactorSurvives: schedules (a fifth with -short)")
	flagDeterm  = flag.Int("explore.determinism", 0, "TestDeterminism: runs per seed (0 skips; 10 measures)")
)

// TestExploreReactorSurvives is the bounded simulation run CI does:
// explore.ci.seeds schedules (regular and share groups, every
// fault kind) on the reactor in synctest bubbles, every anomaly a failure
// with its seed (replay: kreactor explore -subject reactor -first SEED
// -seeds 1). Measured on the 2-core machine: see the package README.
func TestExploreReactorSurvives(t *testing.T) {
	n := *flagCISeeds
	if testing.Short() {
		n /= 5
	}
	start := time.Now()
	sum, err := Explore(t, Options{Subject: "reactor", FirstSeed: 1, Seeds: n, Gen: GenOptions{Regular: true, Share: true}, ShrinkTime: -1,
		Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d schedules on the reactor in %s (%.0f per minute)", sum.Schedules, time.Since(start).Round(time.Millisecond), sum.PerMinute())
	if sum.Schedules != n || sum.RunErrors > 0 {
		t.Fatalf("ran %d of %d schedules, %d harness errors", sum.Schedules, n, sum.RunErrors)
	}
	for _, f := range sum.Findings {
		t.Errorf("seed %d: %s (replay: kreactor explore -subject reactor -first %d -seeds 1)", f.Seed, f.Anomaly, f.Seed)
	}
}

// TestDeterminism measures what a seed fixes: each of a few seeds' schedule
// run -explore.determinism times in a bubble; how many distinct histories
// (exact, and canonical: simultaneous items sorted, connection numbers
// dropped) and distinct anomaly verdicts came out.
func TestDeterminism(t *testing.T) {
	runs := *flagDeterm
	if runs == 0 {
		t.Skip("-explore.determinism=10 measures")
	}
	g := Gen(GenOptions{Regular: true, Share: true})
	totalExact, totalCanon, totalVerdict, seeds := 0, 0, 0, 0
	for seed := 1; seed <= 20; seed++ {
		s := g.Example(seed)
		exact, canon, verdict := map[string]int{}, map[string]int{}, map[string]int{}
		for range runs {
			tr, err := Run(t, s, RunOptions{Subject: "reactor", Seed: uint64(seed)})
			if tr == nil || tr.History == nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			exact[tr.History.Fingerprint()]++
			canon[tr.History.Canonical().Fingerprint()]++
			v := ""
			for _, a := range Check(tr) {
				v += a.Name + ","
			}
			verdict[v]++
		}
		seeds++
		totalExact += len(exact)
		totalCanon += len(canon)
		totalVerdict += len(verdict)
		most := 0
		for _, c := range canon {
			most = max(most, c)
		}
		t.Logf("seed %2d (%s): %d runs: %d distinct exact histories, %d distinct canonical (most common %d of %d), %d distinct verdicts",
			seed, s, runs, len(exact), len(canon), most, runs, len(verdict))
	}
	t.Logf("%d seeds x %d runs: distinct exact %.1f, canonical %.1f, verdicts %.2f per seed (1 = fully determined)",
		seeds, runs, float64(totalExact)/float64(seeds), float64(totalCanon)/float64(seeds), float64(totalVerdict)/float64(seeds))
}
