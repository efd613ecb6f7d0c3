package proxy

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/wire"
)

// TestProduceConsumeThroughProxy produces and consumes 1,000 records with a
// KIP-848 consumer group through the proxy and checks that no client ever
// reaches kfake directly, what the recorder saw, and that Observe sees the
// committed offsets.
func TestProduceConsumeThroughProxy(t *testing.T) {
	const (
		n     = 1000
		group = "g-e2e"
	)
	b := newBed(t, Config{})
	ctx := testCtx(t)

	var mu sync.Mutex
	committed := map[int32]int64{} // partition -> highest committed offset seen
	obs, err := b.p.Observe(kmsg.OffsetCommit, func(_ time.Time, kreq kmsg.Request) {
		req := kreq.(*kmsg.OffsetCommitRequest)
		mu.Lock()
		defer mu.Unlock()
		for _, tp := range req.Topics {
			for _, p := range tp.Partitions {
				committed[p.Partition] = max(committed[p.Partition], p.Offset)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}

	prod, prodDials := b.newClient(t, "producer-1", kgo.DefaultProduceTopic("t"), kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = &kgo.Record{Value: fmt.Appendf(nil, "record-%d", i)}
	}
	if err := prod.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}

	cons, consDials := b.newClient(t, "consumer-1",
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics("t"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.ServerSideBalancer(),
		kgo.Balancers(kgo.RangeBalancer()),
		kgo.DisableAutoCommit(),
	)
	seen := map[string]bool{}
	for len(seen) < n {
		fs := cons.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("consumed %d of %d records: %v", len(seen), n, ctx.Err())
		}
		fs.EachError(func(topic string, p int32, err error) { t.Logf("fetch error %s/%d: %v", topic, p, err) })
		fs.EachRecord(func(r *kgo.Record) { seen[string(r.Value)] = true })
	}
	if err := cons.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatalf("commit: %v", err)
	}
	obs.Heal()

	// Every client connection went to a proxy listener.
	proxyAddrs := b.p.Addrs()
	for _, a := range append(prodDials.list(), consDials.list()...) {
		if !slices.Contains(proxyAddrs, a) {
			t.Errorf("client dialed %s, not a proxy address (%v)", a, proxyAddrs)
		}
	}
	// Every connection kfake accepted came from the proxy.
	if f := b.foreignConns(); len(f) > 0 {
		t.Errorf("kfake accepted %d connections the proxy did not dial: %v", len(f), f)
	}

	// The recorder saw the consumer's requests, by client id and node.
	rec := b.p.Recorder()
	coord := b.kf.CoordinatorFor(group)
	if got := rec.Count(wire.Filter{Keys: []kmsg.Key{kmsg.FindCoordinator}, ClientID: "consumer-1"}); got == 0 {
		t.Error("no FindCoordinator recorded from consumer-1")
	}
	hbs := rec.Filter(wire.Filter{Keys: []kmsg.Key{kmsg.ConsumerGroupHeartbeat}, ClientID: "consumer-1"})
	if len(hbs) == 0 {
		t.Error("no ConsumerGroupHeartbeat recorded from consumer-1")
	}
	for _, h := range hbs {
		if h.Node != coord {
			t.Errorf("heartbeat recorded on node %d, coordinator is %d", h.Node, coord)
			break
		}
	}
	fetchNodes := map[int32]bool{}
	for _, f := range rec.Filter(wire.Filter{Keys: []kmsg.Key{kmsg.Fetch}, ClientID: "consumer-1"}) {
		fetchNodes[f.Node] = true
	}
	for p := range int32(3) {
		if l := b.kf.LeaderFor("t", p); !fetchNodes[l] {
			t.Errorf("no Fetch recorded on node %d, leader of t/%d (fetch nodes %v)", l, p, fetchNodes)
		}
	}
	if got := rec.Count(wire.Filter{Keys: []kmsg.Key{kmsg.Produce}, ClientID: "producer-1"}); got == 0 {
		t.Error("no Produce recorded from producer-1")
	}
	for _, r := range rec.Requests() {
		if r.Node < 0 || r.Node > 2 || r.Conn == 0 || r.At.IsZero() || r.Size <= 0 {
			t.Errorf("bad record %+v", r)
			break
		}
	}
	if rec.Malformed() != 0 {
		t.Errorf("Malformed = %d, want 0", rec.Malformed())
	}

	// Observe saw the commit: the committed offsets add up to n.
	mu.Lock()
	var sum int64
	for _, o := range committed {
		sum += o
	}
	mu.Unlock()
	if sum != n || obs.Hits() == 0 {
		t.Errorf("observed commits sum to %d over %d OffsetCommits, want %d", sum, obs.Hits(), n)
	}
	t.Logf("stats %+v; requests %d; heartbeats %d; fetch nodes %v; leaders %d %d %d; commits %v", b.p.Stats(), len(rec.Requests()), len(hbs), fetchNodes, b.kf.LeaderFor("t", 0), b.kf.LeaderFor("t", 1), b.kf.LeaderFor("t", 2), committed)
	if s := b.p.Stats(); s.UpstreamMalformed != 0 || s.DialFailures != 0 || s.Rewritten == 0 {
		t.Errorf("stats %+v: want no malformed or dial failures, some rewrites", s)
	}
}

// TestNodeAddedLater adds a broker to the cluster after Start: the proxy
// opens a listener for it when a Metadata answer names it, and clients reach
// it through the proxy.
func TestNodeAddedLater(t *testing.T) {
	b := newBed(t, Config{})
	ctx := testCtx(t)
	cl, dials := b.newClient(t, "raw")
	if _, _, err := b.kf.AddNode(3, 0); err != nil {
		t.Fatal(err)
	}
	resp, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl.Broker(0))
	if err != nil {
		t.Fatal(err)
	}
	addr, ok := b.p.Addr(3)
	if !ok {
		t.Fatalf("no listener for node 3 after a Metadata answer named it (nodes %v)", b.p.Nodes())
	}
	for _, br := range resp.Brokers {
		if br.NodeID == 3 && fmt.Sprintf("%s:%d", br.Host, br.Port) != addr {
			t.Errorf("node 3 advertised at %s:%d, want %s", br.Host, br.Port, addr)
		}
	}
	if _, err := cl.Request(ctx, kmsg.NewPtrMetadataRequest()); err != nil { // kgo learns node 3
		t.Fatal(err)
	}
	if _, err := findCoordinator(ctx, cl, 3, "g"); err != nil {
		t.Fatalf("request to node 3: %v", err)
	}
	if n := b.p.Recorder().Count(wire.Filter{Nodes: []int32{3}, ClientID: "raw"}); n == 0 {
		t.Error("no request recorded on node 3")
	}
	if !slices.Contains(dials.list(), addr) {
		t.Errorf("client never dialed node 3's proxy address %s (dials %v)", addr, dials.list())
	}
	if f := b.foreignConns(); len(f) > 0 {
		t.Errorf("kfake accepted connections the proxy did not dial: %v", f)
	}
}

func TestDescribeClusterRewritten(t *testing.T) {
	b := newBed(t, Config{})
	cl, _ := b.newClient(t, "raw")
	resp, err := kmsg.NewPtrDescribeClusterRequest().RequestWith(testCtx(t), cl.Broker(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Brokers) != 3 {
		t.Fatalf("%d brokers, want 3", len(resp.Brokers))
	}
	for _, br := range resp.Brokers {
		b.expectProxied(t, br.NodeID, br.Host, br.Port)
	}
}
