package harness

import (
	"context"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/fakebroker"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/wire"
)

// Target starts clusters of one kind of broker. A target for real Kafka
// (testcontainers) implements the same interface: everything here is stated
// in terms a real cluster can answer (request records from a recording
// proxy, group state from the admin API, a coordinator outage from a proxy
// fault).
type Target interface {
	// Name is the target's name in `target:` labels and reports ("kfake").
	Name() string
	// Start starts a cluster with cfg and returns once it accepts
	// connections. The caller must Close it.
	Start(ctx context.Context, cfg TargetConfig) (Cluster, error)
}

// TargetConfig says what a spec needs from a cluster. Zero fields take the
// target's defaults.
type TargetConfig struct {
	// Topics maps topic name to partition count; each exists when Start
	// returns.
	Topics map[string]int32
	// Brokers is the number of brokers; 0 means 3.
	Brokers int
	// HeartbeatInterval is the KIP-848 heartbeat interval the coordinator
	// hands to members (group.consumer.heartbeat.interval.ms); 0 means
	// DefaultHeartbeatInterval.
	HeartbeatInterval time.Duration
	// SessionTimeout is the KIP-848 member session timeout
	// (group.consumer.session.timeout.ms); 0 means the target's default.
	SessionTimeout time.Duration
	// Logger receives the target's logs; nil discards them.
	Logger *slog.Logger
	// ShareLockDuration is the share groups' record acquisition lock
	// (group.share.record.lock.duration.ms); 0 means DefaultShareLockDuration.
	ShareLockDuration time.Duration
}

// Cluster is one running cluster of a target. Methods are safe for
// concurrent use.
type Cluster interface {
	// Target is the name of the target that started the cluster.
	Target() string
	// Addrs are the bootstrap addresses (host:port).
	Addrs() []string
	// Brokers is the number of brokers.
	Brokers() int
	// HeartbeatInterval is the heartbeat interval members are given.
	HeartbeatInterval() time.Duration
	// Produce writes n records to topic, record i to partition i mod P,
	// and returns once all are acknowledged, with the count per
	// partition. fn gives record i's key and value; nil gives value
	// "record-<i>". The producer's client id is ProducerClientID.
	Produce(ctx context.Context, topic string, n int, fn func(i int) (key, value []byte)) (map[int32]int, error)
	// Recorder is the broker-side record of every request clients sent.
	Recorder() Recorder
	// GroupInfo returns the group as the coordinator sees it; a group the
	// coordinator does not know has Exists false.
	GroupInfo(ctx context.Context, group string) (GroupInfo, error)
	// CoordinatorUnavailable makes group's coordinator unavailable until
	// the fault is healed: FindCoordinator for the group answers
	// COORDINATOR_NOT_AVAILABLE and the group's heartbeats, commits and
	// offset fetches answer NOT_COORDINATOR.
	CoordinatorUnavailable(ctx context.Context, group string) (Fault, error)
	// Coordinator returns the node id of group's coordinator.
	Coordinator(ctx context.Context, group string) (int32, error)
	// StopBroker stops node (a broker that dies: it stops listening and
	// its connections drop; coordination and leadership move) until the
	// fault is healed, which restarts it with the same id and port.
	StopBroker(ctx context.Context, node int32) (Fault, error)
	// SetGroupConfigs sets dynamic configs of one group (e.g.
	// share.auto.offset.reset for a share group).
	SetGroupConfigs(ctx context.Context, group string, configs map[string]string) error
	// Inject installs a fault of the shared vocabulary (see FaultSpec).
	// Errors: an invalid spec, or the target cannot install it.
	Inject(ctx context.Context, spec FaultSpec) (Fault, error)
	// Observe calls fn with every request of key the brokers receive,
	// until the returned fault is healed; requests are answered normally.
	// fn must not block.
	Observe(ctx context.Context, key kmsg.Key, fn func(Observed)) (Fault, error)
	// Close stops the cluster, healing every fault first.
	Close() error
}

// Fault is an installed fault. Heal is idempotent.
type Fault interface {
	// Heal removes the fault; requests are answered normally from now on.
	Heal()
	// Hits is how many requests the fault has acted on so far.
	Hits() int
}

// GroupInfo is a consumer group as its coordinator sees it.
type GroupInfo struct {
	Exists bool
	State  string // e.g. "Stable", "Empty"
	Epoch  int32  // group epoch
	// Members are the group's current members.
	Members []GroupMember
	// Commits are the committed offsets.
	Commits map[managers.TopicPartition]int64
}

// GroupMember is one member of a group.
type GroupMember struct {
	MemberID string
	ClientID string
	Assigned int // partitions assigned to the member
}

// Recorder is the broker-side record of requests. wire.Recorder implements
// it; the kfake target records into one from kfake's sockets, the kafka
// target from its recording proxy.
type Recorder interface {
	// Count returns how many recorded requests match f.
	Count(f RequestFilter) int
	// Filter returns the recorded requests that match f, oldest first.
	Filter(f RequestFilter) []Request
	// Mark returns a time for RequestFilter.From / To: requests the
	// brokers read after Mark returns have At >= the mark.
	Mark() time.Time
}

// Request is one recorded request (API key, version, client id, node,
// arrival time).
type Request = wire.Request

// RequestFilter selects recorded requests: keys, client id, nodes, and the
// half-open time range [From, To).
type RequestFilter = wire.Filter

// ProducerClientID is the client id of Cluster.Produce's producer.
const ProducerClientID = fakebroker.ProducerClientID
