package kgo

import (
	"sync/atomic"
	"time"

	franz "github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Protocol is the consumer group protocol a subject asks kgo for.
type Protocol string

const (
	// ProtocolConsumer is KIP-848's consumer protocol
	// (ConsumerGroupHeartbeat; kgo's ServerSideBalancer option). kgo uses it
	// when the broker supports ConsumerGroupHeartbeat v1, else classic.
	ProtocolConsumer Protocol = "consumer"
	// ProtocolClassic is the classic protocol (JoinGroup, SyncGroup,
	// Heartbeat) with kgo's default cooperative-sticky balancer.
	ProtocolClassic Protocol = "classic"
)

// requestCounter is a kgo HookBrokerWrite that counts the requests the
// client wrote, per API key. It is how the subject learns which group
// protocol kgo actually ran (kgo falls back from KIP-848 to classic without
// an API to ask), and gives a client-side request count to set beside the
// broker's.
type requestCounter struct {
	sent [kmsg.MaxKey + 1]atomic.Uint64 // by API key; written by kgo's goroutines
}

var _ franz.HookBrokerWrite = (*requestCounter)(nil)

func (r *requestCounter) OnBrokerWrite(_ franz.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if err == nil && key >= 0 && int(key) < len(r.sent) {
		r.sent[key].Add(1)
	}
}

// count is the number of requests with this key written so far.
func (r *requestCounter) count(key kmsg.Key) uint64 {
	if int(key) < 0 || int(key) >= len(r.sent) {
		return 0
	}
	return r.sent[key].Load()
}

// protocol is the group protocol seen on the wire: ProtocolConsumer after a
// ConsumerGroupHeartbeat, ProtocolClassic after a JoinGroup, "" before
// either.
func (r *requestCounter) protocol() Protocol {
	switch {
	case r.count(kmsg.ConsumerGroupHeartbeat) > 0:
		return ProtocolConsumer
	case r.count(kmsg.JoinGroup) > 0:
		return ProtocolClassic
	}
	return ""
}
