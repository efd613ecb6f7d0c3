package explore

import (
	"os"
	"strconv"
	"testing"
)

func TestDbgSeed(t *testing.T) {
	seed, _ := strconv.Atoi(os.Getenv("SEED"))
	part, _ := strconv.Atoi(os.Getenv("PART"))
	s := Gen(GenOptions{Regular: true, Share: true}).Example(seed)
	t.Logf("%s faults %+v", s, s.Faults)
	for _, m := range s.Members {
		t.Logf("member %+v", m)
	}
	var tr *Trace
	for i := range 30 {
		tr, _ = Run(t, s, RunOptions{Subject: os.Getenv("SUBJ"), Seed: uint64(seed)})
		if len(Check(tr)) > 0 {
			t.Logf("run %d shows", i)
			break
		}
	}
	for _, a := range Check(tr) {
		t.Logf("ANOMALY %s", a)
	}
	for _, c := range tr.Commits {
		if c.Partition == int32(part) {
			t.Logf("commit %+v", c)
		}
	}
	for _, c := range tr.History.CommitRequests {
		if c.Partition == int32(part) {
			t.Logf("commitreq %s %s ep%d off %d", c.At, tr.MemberIDs[c.MemberID], c.Epoch, c.Offset)
		}
	}
	last := map[string]string{}
	for _, o := range tr.Ops {
		if o.Kind != OpPoll {
			t.Logf("op %s %s %s %s..%s %s", o.Member, o.Kind, o.What, o.Start, o.End, o.Err)
			continue
		}
		var p []int64
		for _, r := range o.Records {
			if r.Partition == int32(part) && r.Topic == "t0" {
				p = append(p, r.Offset)
			}
		}
		a := ""
		for _, x := range o.Assigned {
			a += " " + x.Topic + "-" + strconv.Itoa(int(x.Partition))
		}
		if a != last[o.Member] || len(p) > 0 || o.Err != "" {
			t.Logf("poll %s %s..%s epoch %+v assigned[%s] p %v err %q", o.Member, o.Start, o.End, o.Epoch, a, p, o.Err)
			last[o.Member] = a
		}
	}
	for _, h := range tr.Heartbeats {
		t.Logf("hb %s %s %d", h.At, tr.MemberIDs[h.MemberID], h.Epoch)
	}
}
