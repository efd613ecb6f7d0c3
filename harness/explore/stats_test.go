package explore

import (
	"flag"
	"testing"
	"time"
)

var statSeeds = flag.Int("explore.stats", 0, "print trace statistics for this many seeds (development)")
var statSubject = flag.String("explore.stats.subject", "reactor", "subject for -explore.stats")
var statWall = flag.Bool("explore.stats.wall", false, "run -explore.stats on the wall clock")

func TestStats(t *testing.T) {
	if *statSeeds == 0 {
		t.Skip("-explore.stats=N")
	}
	g := Gen(GenOptions{Regular: true, Share: true})
	var deliv, commits, committed, faults, faultErrs, closes, cbs, asyncs, hbs, acks, samples, closeErr int
	for seed := 1; seed <= *statSeeds; seed++ {
		s := g.Example(seed)
		w := time.Now()
		tr, _ := Run(t, s, RunOptions{Subject: *statSubject, Seed: uint64(seed), Wall: WallFor(*statSubject) || *statWall})
		for _, o := range tr.Ops {
			deliv += len(o.Records)
			switch o.Kind {
			case OpClose:
				closes++
				if o.Err != "" {
					closeErr++
				}
			case OpCallback:
				cbs++
			case OpCommitAsync:
				asyncs++
			}
		}
		commits += len(tr.History.CommitRequests)
		committed += len(tr.History.Committed)
		for _, f := range tr.Faults {
			faults++
			if f.Err != "" {
				faultErrs++
				t.Logf("fault err: %s", f.Err)
			}
		}
		hbs += len(tr.Heartbeats)
		acks += len(tr.Acks)
		samples += len(tr.Samples)
		for _, a := range Check(tr) {
			t.Logf("seed %d (%s, %s): %s", seed, s, time.Since(w).Round(time.Millisecond), a)
		}
	}
	t.Logf("delivered=%d commitreqs=%d committed=%d faults=%d faulterrs=%d closes=%d closeErr=%d async=%d callbacks=%d heartbeats=%d acks=%d samples=%d",
		deliv, commits, committed, faults, faultErrs, closes, closeErr, asyncs, cbs, hbs, acks, samples)
}
