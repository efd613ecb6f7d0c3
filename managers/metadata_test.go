package managers_test

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
	"go.uber.org/goleak"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func metadataAnswer(partitions ...int32) *kmsg.MetadataResponse {
	r := kmsg.NewPtrMetadataResponse()
	b := kmsg.NewMetadataResponseBroker()
	b.NodeID, b.Host, b.Port = 0, "127.0.0.1", 9092
	r.Brokers = append(r.Brokers, b)
	t := kmsg.NewMetadataResponseTopic()
	t.Topic = kmsg.StringPtr("t")
	for _, p := range partitions {
		mp := kmsg.NewMetadataResponseTopicPartition()
		mp.Partition, mp.Leader = p, 0
		t.Partitions = append(t.Partitions, mp)
	}
	r.Topics = append(r.Topics, t)
	return r
}

// A refresh asked for again and again, answered successfully with nothing
// new, is sent at most once per backoff step, never in a loop (found by an
// adversarial review: 30,000 Metadata requests/s before the fix).
func TestRequestedRefreshIsBackedOff(t *testing.T) {
	backoff := managers.Backoff{Initial: 100 * time.Millisecond, Max: time.Second}
	m := managers.NewMetadata([]string{"127.0.0.1:9092"}, time.Hour, backoff)
	h := &reactor.RecordingHost{}
	now := time.Unix(1000, 0)
	sent := 0
	for step := 0; step < 2000; step++ { // 2 s of 1 ms steps
		tx := reactor.NewTx(now, 0, 0, h)
		m.RequestRefresh(tx) // e.g. a partition whose leader never appears
		r := m.Poll(tx, []string{"t"})
		if r.Kind == reactor.KindReady {
			sent++
			r.Requests[0].OnComplete(reactor.NewTx(now, 0, 0, h), metadataAnswer(0), nil)
		}
		now = now.Add(time.Millisecond)
	}
	// 100, 200, 400, 800, 1000 ms steps: at most 6 sends in 2 s.
	if sent > backoff.MaxAttemptsIn(2*time.Second) {
		t.Fatalf("sent %d Metadata requests in 2 s of requested refreshes, want <= %d", sent, backoff.MaxAttemptsIn(2*time.Second))
	}
}

// A partition index outside [0, 2^20) is a malformed answer: no panic, no
// huge allocation, and the partition has no leader.
func TestMalformedPartitionIndex(t *testing.T) {
	m := managers.NewMetadata([]string{"127.0.0.1:9092"}, time.Hour, managers.DefaultBackoff())
	h := &reactor.RecordingHost{}
	tx := reactor.NewTx(time.Unix(1000, 0), 0, 0, h)
	r := m.Poll(tx, []string{"t"})
	r.Requests[0].OnComplete(tx, metadataAnswer(-1, 1<<30, 0), nil)
	if _, ok := m.Leader(managers.TopicPartition{Topic: "t", Partition: -1}); ok {
		t.Fatal("partition -1 has a leader")
	}
	if l, ok := m.Leader(managers.TopicPartition{Topic: "t", Partition: 0}); !ok || l != 0 {
		t.Fatalf("partition 0 leader = %d, %v", l, ok)
	}
	if tm, _ := m.Topic("t"); len(tm.Partitions) != 1 {
		t.Fatalf("%d partitions kept, want 1", len(tm.Partitions))
	}
}
