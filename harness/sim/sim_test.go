package sim

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/managers"
)

// seed is the seed of the tests' runs.
const seed = 14

// TestReactorOutageInBubble runs the outage scenario on the reactor
// consumer inside a bubble and checks its history: every record delivered
// once in order, the commits at the broker, the requests the faults drew,
// and virtual time running far ahead of wall time.
func TestReactorOutageInBubble(t *testing.T) {
	h := outageInBubble(t, newReactor)
	checkSeededMember(t, h)

	// Virtual time ran ahead of the wall clock. The bound is a ratio and
	// generous (measured: two orders of magnitude without -race).
	t.Logf("virtual %s, wall %s (%.0fx); %d requests, %d records delivered",
		h.Virtual, h.Wall, float64(h.Virtual)/float64(h.Wall), len(h.Requests), len(h.Deliveries))
	if h.Virtual < outageFor+holdFor {
		t.Errorf("virtual time %s, want at least the faults' %s", h.Virtual, outageFor+holdFor)
	}
	if h.Wall*2 > h.Virtual {
		t.Errorf("wall time %s is more than half the virtual time %s: the bubble's clock did not run ahead", h.Wall, h.Virtual)
	}
}

// outageInBubble runs the outage scenario on the subject newSubject builds
// inside a bubble, checks its history (checkOutageHistory) and returns it.
func outageInBubble(t *testing.T, newSubject func(consumer.Config) (subject, error)) *History {
	t.Helper()
	var marks scenarioMarks
	h, err := Run(t, Config{Seed: seed, Cluster: scenarioCluster()}, outageScenario(newSubject, &marks))
	if err != nil {
		t.Fatalf("run: %v\n%s", err, tail(h, 40))
	}
	checkOutageHistory(t, h, marks)
	return h
}

// checkOutageHistory checks what any correct consumer's history of the
// outage scenario shows.
func checkOutageHistory(t *testing.T, h *History, marks scenarioMarks) {
	t.Helper()
	perPartition := (firstBatch + secondBatch) / scenarioPartitions

	// Records: each partition's offsets 0..perPartition-1, once, in order.
	next := map[int32]int64{}
	for _, d := range h.Deliveries {
		if d.Topic != scenarioTopic || d.Offset != next[d.Partition] {
			t.Fatalf("delivery %+v: want %s[%d]@%d next", d, scenarioTopic, d.Partition, next[d.Partition])
		}
		next[d.Partition]++
	}
	for p := range int32(scenarioPartitions) {
		if next[p] != int64(perPartition) {
			t.Errorf("partition %d: %d records delivered, want %d", p, next[p], perPartition)
		}
	}

	// Commits at the broker: every partition committed past its last
	// record, by the member whose id the seeded source gave.
	if len(h.Committed) != scenarioPartitions {
		t.Fatalf("committed %+v, want %d partitions", h.Committed, scenarioPartitions)
	}
	for _, c := range h.Committed {
		if c.Group != scenarioGroup || c.Offset != int64(perPartition) {
			t.Errorf("committed %+v, want group %s offset %d", c, scenarioGroup, perPartition)
		}
	}
	// Requests: FindCoordinator retried during the outage, no faster than
	// retry.backoff.ms allows; the held Fetch was held; heartbeats resumed
	// after the heal.
	count := func(key kmsg.Key, w window) int {
		n := 0
		for _, r := range h.Requests {
			if r.Key == key && r.ClientID == scenarioMember && r.At >= w.from && r.At < w.to {
				n++
			}
		}
		return n
	}
	fc := count(kmsg.FindCoordinator, marks.outage)
	bound := managers.DefaultBackoff().MaxAttemptsIn(outageFor) + 1
	if fc < 2 || fc > bound {
		t.Errorf("%d FindCoordinator during the %s outage, want 2..%d (retry.backoff.ms 100 ms doubling to 1 s)", fc, outageFor, bound)
	}
	if marks.holdHits < 1 {
		t.Errorf("the Fetch hold held %d requests, want >= 1", marks.holdHits)
	}
	always := window{0, h.Virtual + time.Nanosecond}
	if n := count(kmsg.ConsumerGroupHeartbeat, window{marks.outage.to, always.to}); n == 0 {
		t.Errorf("no heartbeat after the heal at +%s", marks.outage.to)
	}
	if n := count(kmsg.OffsetCommit, always); n < 2 {
		t.Errorf("%d OffsetCommit requests, want >= 2 (two CommitSyncs)", n)
	}
	t.Logf("outage %+v: %d FindCoordinator (bound %d); hold %+v: %d held Fetch", marks.outage, fc, bound, marks.hold, marks.holdHits)
}

// checkSeededMember checks that every OffsetCommit came from the member id
// the consumer drew from Env.ConsumerConfig's seeded source (our
// consumers: consumer.Config.Rand).
func checkSeededMember(t *testing.T, h *History) {
	t.Helper()
	wantID := managers.NewMemberIDFrom(newEnv(nil, seed, time.Time{}, nil).ConsumerRand(scenarioMember, 0))
	for _, c := range h.CommitRequests {
		if c.MemberID != wantID {
			t.Fatalf("OffsetCommit from member %q, want the seeded id %q", c.MemberID, wantID)
		}
	}
}

// tail is the last n lines of h, for failure messages.
func tail(h *History, n int) string {
	if h == nil {
		return "(no history)"
	}
	ls := h.Lines()
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	out := ""
	for _, l := range ls {
		out += l + "\n"
	}
	return out
}

// TestBaselineOutageOnWallClock runs the outage scenario on the baseline
// consumer with RunWall, the fallback for subjects that busy-loop (in a
// bubble the baseline freezes the clock: TestBaselineFreezesTheBubble).
// The same history checks hold; the run takes its virtual time in wall
// time.
func TestBaselineOutageOnWallClock(t *testing.T) {
	if testing.Short() {
		t.Skip("takes the scenario's 5 s of wall time")
	}
	var marks scenarioMarks
	h, err := RunWall(t.Context(), Config{Seed: seed, Cluster: scenarioCluster()}, outageScenario(newBaseline, &marks))
	if err != nil {
		t.Fatalf("run: %v\n%s", err, tail(h, 40))
	}
	if h.Bubble {
		t.Fatal("RunWall's history says it ran in a bubble")
	}
	checkOutageHistory(t, h, marks)
	t.Logf("wall %s; %d requests, %d records delivered", h.Wall, len(h.Requests), len(h.Deliveries))
}
