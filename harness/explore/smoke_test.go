package explore

import (
	"flag"
	"testing"
	"time"
)

var smokeSeeds = flag.Int("explore.smoke", 0, "run this many seeds on the reactor and print anomalies (development)")

func TestSmoke(t *testing.T) {
	if *smokeSeeds == 0 {
		t.Skip("-explore.smoke=N")
	}
	g := Gen(GenOptions{Regular: true, Share: true})
	for seed := 1; seed <= *smokeSeeds; seed++ {
		s := g.Example(seed)
		w := time.Now()
		tr, err := Run(t, s, RunOptions{Subject: "reactor", Seed: uint64(seed)})
		if err != nil {
			t.Logf("seed %d: run error: %v", seed, err)
		}
		an := Check(tr)
		t.Logf("seed %d: %s size=%d ops=%d wall=%s anomalies=%d", seed, s, s.Size(), len(tr.Ops), time.Since(w).Round(time.Millisecond), len(an))
		for _, a := range an {
			t.Logf("   %s", a)
		}
	}
}
