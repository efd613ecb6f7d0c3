package managers

// Topic metadata.
//
// Kafka API: Metadata (key 3) v10+ (topic ids, KIP-516).
// Answers: KAFKA-20397 (a topic error such as TOPIC_AUTHORIZATION_FAILED is
// recorded as state and published with the snapshot, so a waiting Poll sees
// it), KAFKA-20854 (a fetch without a leader asks for a refresh and Awaits
// metadata instead of reporting an empty result).

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/reactor"
)

// PartitionMeta is one partition's leader as of the last Metadata response.
type PartitionMeta struct {
	Leader      int32 // -1 when leaderless
	LeaderEpoch int32
}

// TopicMeta is one topic as of the last Metadata response.
type TopicMeta struct {
	Name       string
	ID         [16]byte
	Partitions []PartitionMeta // indexed by partition number
	Err        error           // topic-level error (e.g. TOPIC_AUTHORIZATION_FAILED), nil if none
}

// Metadata keeps brokers and topics current for the topics the consumer
// needs. It is a request manager: Poll runs on the loop goroutine only.
type Metadata struct {
	bootstrap []string
	maxAge    time.Duration

	brokers  map[int32]string // node -> host:port
	addrs    []string         // Addrs' answer, built once per change of brokers (nil: build)
	topics   map[string]*TopicMeta
	byID     map[[16]byte]string
	inFlight bool
	stale    bool      // a refresh was requested
	fetched  time.Time // last successful refresh
	retry    Retry
	// refreshes counts consecutive on-demand refreshes (a refresh asked
	// for, or a topic still missing): each waits Backoff.Delay(refreshes)
	// after the previous send, so an answer that changes nothing cannot
	// be re-requested in a loop.
	refreshes int
	lastSent  time.Time
	// refreshAllowed is when the next on-demand refresh may go: lastSent
	// plus Backoff.Delay(refreshes), jittered once when the last one went.
	refreshAllowed time.Time
	version        uint64 // increments on each applied response
}

// NewMetadata returns a metadata manager using bootstrap addresses until
// brokers are known, refreshing every maxAge (metadata.max.age.ms) and
// retrying failures with backoff.
func NewMetadata(bootstrap []string, maxAge time.Duration, backoff Backoff) *Metadata {
	return &Metadata{
		bootstrap: slices.Clone(bootstrap),
		maxAge:    maxAge,
		retry:     Retry{Backoff: backoff},
		brokers:   map[int32]string{},
		topics:    map[string]*TopicMeta{},
		byID:      map[[16]byte]string{},
	}
}

// Name is "metadata".
func (m *Metadata) Name() string { return "metadata" }

// Addrs returns broker addresses to send "any broker" requests to: the known
// brokers sorted by node id, else the bootstrap addresses. The slice is
// shared (built once per change of the brokers): callers must not modify it.
func (m *Metadata) Addrs() []string {
	if len(m.brokers) == 0 {
		return m.bootstrap
	}
	if m.addrs != nil {
		return m.addrs
	}
	nodes := make([]int32, 0, len(m.brokers))
	for n := range m.brokers {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = m.brokers[n]
	}
	m.addrs = out
	return out
}

// BrokerAddr returns the address of node, if known.
func (m *Metadata) BrokerAddr(node int32) (string, bool) {
	a, ok := m.brokers[node]
	return a, ok
}

// maxPartitions bounds the partition index a Metadata answer may carry
// (Kafka's own limit is far lower in practice); a larger or negative index
// is a malformed answer, not an allocation.
const maxPartitions = 1 << 20

// Leader returns tp's leader when metadata knows one.
func (m *Metadata) Leader(tp TopicPartition) (int32, bool) {
	tm, ok := m.topics[tp.Topic]
	if !ok || tp.Partition < 0 || int(tp.Partition) >= len(tm.Partitions) || tm.Partitions[tp.Partition].Leader < 0 {
		return -1, false
	}
	return tm.Partitions[tp.Partition].Leader, true
}

// Topic returns the metadata of topic, if known.
func (m *Metadata) Topic(name string) (*TopicMeta, bool) {
	t, ok := m.topics[name]
	return t, ok
}

// TopicName returns the name of the topic with id.
func (m *Metadata) TopicName(id [16]byte) (string, bool) {
	n, ok := m.byID[id]
	return n, ok
}

// Version increments on each applied Metadata response.
func (m *Metadata) Version() uint64 { return m.version }

// LastError is the error of the last failed refresh, or nil.
func (m *Metadata) LastError() error { return m.retry.Err() }

// RequestRefresh asks for a refresh (leader unknown, NOT_LEADER_OR_FOLLOWER,
// unknown topic id). Called from another manager's Poll, it makes the loop
// poll again in the same step so the request goes out now, not at the next
// wake.
func (m *Metadata) RequestRefresh(tx *reactor.Tx) {
	if !m.stale {
		m.stale = true
		tx.Repoll()
	}
}

// Poll answers whether a Metadata request for topics can be sent now.
func (m *Metadata) Poll(tx *reactor.Tx, topics []string) reactor.Result {
	if len(topics) == 0 {
		return reactor.Idle("no topics needed")
	}
	if m.inFlight {
		return reactor.Await(reactor.InputResponse, "Metadata in flight")
	}
	missing := false
	for _, t := range topics {
		if _, ok := m.topics[t]; !ok {
			missing = true
			break
		}
	}
	due := m.fetched.Add(m.maxAge)
	onDemand := missing || m.stale
	if !onDemand {
		m.refreshes = 0
		if tx.Now.Before(due) {
			return reactor.RetryAt(due, "metadata max age")
		}
	}
	if next, waiting := m.retry.Waiting(tx.Now); waiting {
		return reactor.RetryAt(next, "Metadata backoff")
	}
	if onDemand && m.refreshes > 0 && tx.Now.Before(m.refreshAllowed) {
		return reactor.RetryAt(m.refreshAllowed, "metadata refresh backoff")
	}
	if onDemand {
		m.refreshes++
	}
	m.lastSent = tx.Now
	// The next on-demand refresh waits one jittered step, drawn once here:
	// drawn again at every poll, the wait would move each time the loop
	// woke for it, and the wake would find nothing to do (a spurious
	// wakeup).
	m.refreshAllowed = tx.Now.Add(m.retry.Backoff.Delay(m.refreshes))
	req := kmsg.NewPtrMetadataRequest()
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	m.inFlight = true
	m.stale = false
	reason := "metadata max age"
	if missing {
		reason = "topic metadata missing"
	}
	return reactor.Ready(reason, &reactor.Request{
		Payload:    &Call{Node: AnyNode, Addrs: m.Addrs(), Req: req},
		OnComplete: m.onResponse,
	})
}

func (m *Metadata) onResponse(tx *reactor.Tx, resp any, err error) {
	m.inFlight = false
	var r *kmsg.MetadataResponse
	if err == nil {
		r, err = As[*kmsg.MetadataResponse](kmsg.Metadata, AnyNode, resp)
	}
	if err == nil {
		err = kerr.ErrorForCode(r.ErrorCode) // v13+ (KIP-1102)
	}
	if err != nil && Class(kmsg.Metadata, ScopeResponse, err) != ClassIgnored {
		m.retry.Fail(tx.Now, err)
		return
	}
	m.retry.Succeed()
	m.fetched = tx.Now
	m.version++
	if len(r.Brokers) > 0 {
		clear(m.brokers)
		m.addrs = nil
		for _, b := range r.Brokers {
			m.brokers[b.NodeID] = net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
		}
	}
	retry := false
	for _, t := range r.Topics {
		if t.Topic == nil {
			continue
		}
		tm := &TopicMeta{Name: *t.Topic, ID: t.TopicID, Err: kerr.ErrorForCode(t.ErrorCode)}
		switch Class(kmsg.Metadata, ScopeTopic, tm.Err) {
		case 0:
			retry = m.applyPartitions(tm, t.Partitions) || retry
		case ClassRetriable, ClassMetadata:
			// e.g. LEADER_NOT_AVAILABLE, UNKNOWN_TOPIC_OR_PARTITION:
			// refresh after a backoff; the error is not the
			// application's.
			retry = true
		case ClassIgnored:
			tm.Err = nil
			retry = m.applyPartitions(tm, t.Partitions) || retry
		default:
			// Authorization and other failures stay on the topic: the
			// application manager raises them from Poll (KAFKA-20397).
		}
		if old, ok := m.topics[tm.Name]; ok && old.ID != tm.ID {
			delete(m.byID, old.ID)
		}
		m.topics[tm.Name] = tm
		if tm.ID != ([16]byte{}) {
			m.byID[tm.ID] = tm.Name
		}
	}
	if retry { // refresh after a backoff
		m.retry.Fail(tx.Now, nil)
		m.stale = true
	}
}

// TopicErrorForApplication reports whether a topic's Metadata error reaches
// the application (the error table's topic scope: authorization and
// failed classes), rather than being retried.
func TopicErrorForApplication(err error) bool {
	switch Class(kmsg.Metadata, ScopeTopic, err) {
	case ClassAuthorization, ClassFailed, ClassFatal:
		return true
	}
	return false
}

// applyPartitions fills tm's partitions from an answer and reports whether
// a partition error asks for a refresh.
func (m *Metadata) applyPartitions(tm *TopicMeta, parts []kmsg.MetadataResponseTopicPartition) (retry bool) {
	n := 0
	for _, p := range parts {
		if p.Partition < 0 || p.Partition >= maxPartitions {
			m.retry.Note(&ResponseError{Key: kmsg.Metadata, Node: AnyNode, Detail: fmt.Sprintf("topic %s: partition index %d", tm.Name, p.Partition)})
			continue
		}
		n = max(n, int(p.Partition)+1)
	}
	tm.Partitions = make([]PartitionMeta, n)
	for i := range tm.Partitions {
		tm.Partitions[i] = PartitionMeta{Leader: -1}
	}
	for _, p := range parts {
		if p.Partition < 0 || p.Partition >= maxPartitions {
			continue
		}
		switch Class(kmsg.Metadata, ScopePartition, kerr.ErrorForCode(p.ErrorCode)) {
		case 0, ClassIgnored:
			tm.Partitions[p.Partition] = PartitionMeta{Leader: p.Leader, LeaderEpoch: p.LeaderEpoch}
		default: // no usable leader until a refresh
			retry = true
		}
	}
	return retry
}
