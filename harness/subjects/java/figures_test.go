package java

import (
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/fakebroker"
	"github.com/kreactor/kreactor/wire"
)

// window is what one measurement window saw of a Java consumer: CPU from
// /proc, FindCoordinator requests at the broker, the client's own loop
// metrics, and how many polls ran.
type window struct {
	cpu             CPUDelta
	findCoordinator int
	selects         float64 // select-total delta
	netPollAvg      float64 // time-between-network-thread-poll-avg at the end (ms; NaN for classic)
	netPollMax      float64
	polls           int
}

func (w window) String() string {
	return fmt.Sprintf("%s; FindCoordinator=%d select-total=+%.0f time-between-network-thread-poll avg=%.1fms max=%.1fms polls=%d",
		w.cpu, w.findCoordinator, w.selects, w.netPollAvg, w.netPollMax, w.polls)
}

// measure polls with poll(100 ms) for d and returns the window's figures.
func measure(t *testing.T, b *fakebroker.Broker, c *Consumer, clientID string, d time.Duration) window {
	t.Helper()
	names := []string{"select-total", "time-between-network-thread-poll-avg", "time-between-network-thread-poll-max"}
	m0, err := c.Metrics(names...)
	if err != nil {
		t.Fatal(err)
	}
	cpu0, err := c.CPU()
	if err != nil {
		t.Fatal(err)
	}
	from := time.Now()
	var w window
	for time.Since(from) < d {
		ctx, cancel := pollCtx(100 * time.Millisecond)
		_, err := c.Poll(ctx)
		cancel()
		if err != nil {
			t.Logf("poll in window: %v", err)
		}
		w.polls++
	}
	to := time.Now()
	cpu1, err := c.CPU()
	if err != nil {
		t.Fatal(err)
	}
	m1, err := c.Metrics(names...)
	if err != nil {
		t.Fatal(err)
	}
	w.cpu = cpu1.Sub(cpu0)
	w.findCoordinator = b.Recorder().Count(wire.Filter{Keys: []kmsg.Key{kmsg.FindCoordinator}, ClientID: clientID, From: from, To: to})
	s0, _ := m0.Value("select-total")
	s1, _ := m1.Value("select-total")
	w.selects = s1 - s0
	w.netPollAvg, _ = m1.Value("time-between-network-thread-poll-avg")
	w.netPollMax, _ = m1.Value("time-between-network-thread-poll-max")
	return w
}

// TestFiguresCoordinatorUnavailable is a first look at one seed shape
// (KAFKA-20253's trigger) on the real client: the group coordinator
// unavailable for 3 s (FindCoordinator answers COORDINATOR_NOT_AVAILABLE)
// while the application polls with poll(100 ms), against an idle window of
// the same length. It records the figures; the only assertions are that
// the fault was exercised and the consumer kept working. Verdicts belong to
// the specs.
func TestFiguresCoordinatorUnavailable(t *testing.T) {
	requireJava(t)
	if testing.Short() {
		t.Skip("measurement windows take 12 s")
	}
	for _, proto := range []string{"consumer", "classic"} {
		t.Run(proto, func(t *testing.T) {
			b := startBroker(t, map[string]int32{"t": 1})
			produce(t, b, "t", 1)
			group := "gcu-" + proto
			p := props(t, b, group, proto)
			c := newConsumer(t, DefaultOptions(), p)
			if err := c.Subscribe("t"); err != nil {
				t.Fatal(err)
			}
			pollN(t, c, 1)

			idle := measure(t, b, c, p["client.id"], 3*time.Second)
			h, err := b.CoordinatorUnavailable(group)
			if err != nil {
				t.Fatal(err)
			}
			var classic *fakebroker.Handle
			if proto == "classic" {
				// The classic protocol's group requests are not in
				// CoordinatorRequestKeys: fail them too, so the member
				// rediscovers the coordinator as on a failover.
				hc, err := b.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Heartbeat, kmsg.JoinGroup, kmsg.SyncGroup}, Group: group, Err: kerr.NotCoordinator, Count: -1})
				if err != nil {
					t.Fatal(err)
				}
				defer hc.Remove()
				classic = hc
			}
			outage := measure(t, b, c, p["client.id"], 3*time.Second)
			h.Remove()
			hits := h.Hits()
			if classic != nil {
				classic.Remove()
				hits += classic.Hits()
			}
			for _, th := range append(idle.cpu.Threads, outage.cpu.Threads...) {
				if th.CPU > 5*time.Millisecond {
					t.Logf("  thread %-16s %s", th.Name, th.CPU.Round(time.Microsecond))
				}
			}
			t.Logf("%s idle:   %s", proto, idle)
			t.Logf("%s outage: %s (fault hits %d)", proto, outage, hits)

			jt, err := c.JVMThreads()
			if err != nil {
				t.Fatal(err)
			}
			for _, th := range jt.Threads {
				if th.CPU > 50*time.Millisecond {
					t.Logf("jvm thread %-45q cpu %s", th.Name, th.CPU.Round(time.Millisecond))
				}
			}
			if hits == 0 || outage.findCoordinator == 0 {
				t.Errorf("the outage was not exercised: %d fault hits, %d FindCoordinator", hits, outage.findCoordinator)
			}
			produce(t, b, "t", 1)
			pollN(t, c, 1)
		})
	}
}
