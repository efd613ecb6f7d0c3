package fakebroker

import (
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ObserveKey sees each request once, however many partitions it names (a
// kfake Fault with Observe would see it once per partition checked).
func TestObserveKeySeesEachRequestOnce(t *testing.T) {
	b := startBroker(t, Config{Topics: map[string]int32{"t": 3}})
	var (
		mu   sync.Mutex
		seen [][]int64 // offsets of each observed request (kfake may change the request after handling it)
	)
	h, err := b.ObserveKey(kmsg.OffsetCommit, func(_ time.Time, req kmsg.Request) {
		mu.Lock()
		defer mu.Unlock()
		var offsets []int64
		for _, t := range req.(*kmsg.OffsetCommitRequest).Topics {
			for _, p := range t.Partitions {
				offsets = append(offsets, p.Offset)
			}
		}
		seen = append(seen, offsets)
	})
	if err != nil {
		t.Fatal(err)
	}
	cl := newClient(t, b, "observe-test")
	ctx := testCtx(t)
	const commits = 2
	for i := range commits {
		req := kmsg.NewPtrOffsetCommitRequest()
		req.Group = "g"
		req.Generation = -1
		rt := kmsg.NewOffsetCommitRequestTopic()
		rt.Topic, rt.TopicID = "t", b.Cluster().TopicInfo("t").TopicID
		for p := range int32(3) {
			rp := kmsg.NewOffsetCommitRequestTopicPartition()
			rp.Partition, rp.Offset = p, int64(10*(i+1))
			rt.Partitions = append(rt.Partitions, rp)
		}
		req.Topics = append(req.Topics, rt)
		if _, err := cl.Broker(int(b.CoordinatorFor("g"))).Request(ctx, req); err != nil {
			t.Fatalf("OffsetCommit %d: %v", i, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != commits || h.Hits() != commits {
		t.Fatalf("observed %d requests, Hits %d; want %d each (one per request, not per partition)", len(seen), h.Hits(), commits)
	}
	for i, offsets := range seen {
		if want := int64(10 * (i + 1)); len(offsets) != 3 || offsets[0] != want || offsets[2] != want {
			t.Fatalf("observed request %d with offsets %v, want 3 partitions at %d", i, offsets, want)
		}
	}
}
