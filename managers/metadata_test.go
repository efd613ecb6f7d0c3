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

// metadataManager adapts Metadata to a reactor.Manager polled for topic t,
// so the tests drive it on a reactor.Core with a fixed clock.
type metadataManager struct{ m *managers.Metadata }

func (a metadataManager) Name() string { return a.m.Name() }
func (a metadataManager) Poll(tx *reactor.Tx, _ struct{}) reactor.Result {
	return a.m.Poll(tx, []string{"t"})
}

func newCore(t *testing.T, m *managers.Metadata) *reactor.Core[struct{}] {
	t.Helper()
	c, err := reactor.NewCore(reactor.CoreConfig[struct{}]{
		Managers:  []reactor.Manager[struct{}]{metadataManager{m}},
		View:      func(time.Time) struct{} { return struct{}{} },
		MaxRounds: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A refresh asked for again and again, answered successfully with nothing
// new, is sent at most once per backoff step, never in a loop (found by an
// adversarial review: 30,000 Metadata requests/s before the fix).
func TestRequestedRefreshIsBackedOff(t *testing.T) {
	backoff := managers.Backoff{Initial: 100 * time.Millisecond, Max: time.Second}
	m := managers.NewMetadata([]string{"127.0.0.1:9092"}, time.Hour, backoff)
	core := newCore(t, m)
	now := time.Unix(1000, 0)
	sent := 0
	for step := 0; step < 2000; step++ { // 2 s of 1 ms steps
		core.Apply(now, reactor.Event("refresh", m.RequestRefresh)) // e.g. a partition whose leader never appears
		st := core.Step(now)
		core.Advance()
		for _, req := range st.Requests {
			sent++
			core.Apply(now, reactor.Completion(req, metadataAnswer(0), nil))
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
	core := newCore(t, m)
	now := time.Unix(1000, 0)
	st := core.Step(now)
	core.Advance()
	core.Apply(now, reactor.Completion(st.Requests[0], metadataAnswer(-1, 1<<30, 0), nil))
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
