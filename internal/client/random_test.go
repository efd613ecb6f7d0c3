package client

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/kreactor/kreactor/consumer/config"
)

// Config.Rand fixes every random choice of a consumer: the same seed gives
// the same member id and the same jitter in every manager; another seed
// another id; without a source the member id is random each time.
func TestRandSeedsMemberIDAndJitter(t *testing.T) {
	cfg := config.DefaultConsumer()
	cfg.BootstrapServers, cfg.GroupID = []string{"localhost:9092"}, "g"
	group := func(seed uint64) *Group {
		c := cfg
		c.Rand = rand.NewPCG(seed, 1)
		g := NewGroup(c)
		g.EngineConfig(nil)
		t.Cleanup(g.tr.close)
		return g
	}
	delays := func(g *Group) []time.Duration {
		b := g.rnd.backoff("membership", Backoff(cfg.RetryBackoff, cfg.RetryBackoffMax))
		var out []time.Duration
		for n := 1; n <= 5; n++ {
			out = append(out, b.Delay(n))
		}
		return out
	}
	a, b, c := group(7), group(7), group(8)
	if a.Member.MemberID() != b.Member.MemberID() || len(a.Member.MemberID()) != 22 {
		t.Fatalf("member ids %q and %q from one seed: want equal, 22 characters (16 bytes, base64)", a.Member.MemberID(), b.Member.MemberID())
	}
	if a.Member.MemberID() == c.Member.MemberID() {
		t.Fatalf("seeds 7 and 8 gave one member id %q", a.Member.MemberID())
	}
	if da, db := delays(a), delays(b); !slices.Equal(da, db) {
		t.Fatalf("jitter from one seed differs: %v vs %v", da, db)
	}
	if da, dc := delays(a), delays(c); slices.Equal(da, dc) {
		t.Fatalf("seeds 7 and 8 gave the same jitter %v", da)
	}
	// Each manager has its own stream: the coordinator's draws do not
	// move the membership's.
	x, y := group(7), group(7)
	coord := x.rnd.backoff("coordinator", Backoff(cfg.RetryBackoff, cfg.RetryBackoffMax))
	for n := 1; n <= 3; n++ {
		coord.Delay(n)
	}
	if dx, dy := delays(x), delays(y); !slices.Equal(dx, dy) {
		t.Fatalf("the coordinator's draws moved the membership's jitter: %v vs %v", dx, dy)
	}

	cfg.Rand = nil
	u, v := NewGroup(cfg), NewGroup(cfg)
	t.Cleanup(u.tr.close)
	t.Cleanup(v.tr.close)
	if u.Member.MemberID() == v.Member.MemberID() {
		t.Fatalf("two consumers without Rand share member id %q", u.Member.MemberID())
	}
}
