package control

import (
	"context"

	"github.com/kreactor/kreactor/fakebroker/vocab"
	"github.com/kreactor/kreactor/wire"
)

// Backend is what the API drives: a fakebroker cluster (FakeBroker) or the
// recording proxy in front of a real cluster (Proxy). Methods are safe for
// concurrent use.
type Backend interface {
	// Mode is "broker" (a fake cluster) or "proxy".
	Mode() string
	// Addrs are the bootstrap addresses clients dial (host:port).
	Addrs() []string
	// Nodes are the broker node ids clients can reach, ascending.
	Nodes() []int32
	// Inject installs a fault of the shared vocabulary. Errors: the spec
	// is invalid or names something the cluster does not have.
	Inject(spec vocab.Spec) (Fault, error)
	// StopBroker stops node (leadership and coordination move) until the
	// fault is healed. A backend that cannot stop a broker returns
	// ErrUnsupported.
	StopBroker(ctx context.Context, node int32) (Fault, error)
	// Coordinator is the node id of group's coordinator.
	Coordinator(ctx context.Context, group string) (int32, error)
	// Recorder is the log of every request clients sent.
	Recorder() *wire.Recorder
	// Group is group as its coordinator sees it (Exists false: unknown).
	Group(ctx context.Context, group string) (Group, error)
	// Topics are the cluster's topics, by name.
	Topics(ctx context.Context) ([]Topic, error)
	// CreateTopic creates a topic of partitions partitions.
	CreateTopic(ctx context.Context, name string, partitions int32) error
	// Produce writes n records to topic (record i to partition i mod P)
	// and returns the count per partition once all are acknowledged.
	Produce(ctx context.Context, topic string, n int, fn func(i int) (key, value []byte)) (map[int32]int, error)
	// Close releases what the backend holds (not the cluster).
	Close() error
}

// Fault is an installed fault. Heal is idempotent.
type Fault interface {
	Heal()
	Hits() int
}

// Group is one consumer or share group (GET /v1/groups/{group}).
type Group struct {
	Group       string        `json:"group" doc:"the group id"`
	Exists      bool          `json:"exists" doc:"false: the coordinator does not know the group"`
	State       string        `json:"state,omitempty" doc:"the group's state (Empty, Stable, ...)"`
	Epoch       int32         `json:"epoch" doc:"the group epoch (a classic group: its generation)"`
	Coordinator int32         `json:"coordinator" doc:"node id of the group's coordinator"`
	Members     []GroupMember `json:"members" doc:"current members, by member id"`
	Commits     []Commit      `json:"commits" doc:"committed offsets, by topic and partition"`
}

// GroupMember is one member of a Group.
type GroupMember struct {
	MemberID string `json:"member_id"`
	ClientID string `json:"client_id"`
	Assigned int    `json:"assigned" doc:"partitions assigned to the member"`
}

// Commit is one committed offset.
type Commit struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
}

// Topic is one topic (GET /v1/topics).
type Topic struct {
	Name       string      `json:"name"`
	Partitions []Partition `json:"partitions"`
}

// Partition is one partition of a Topic.
type Partition struct {
	Partition     int32 `json:"partition"`
	Leader        int32 `json:"leader" doc:"node id of the leader"`
	HighWatermark int64 `json:"high_watermark" doc:"offset of the next record; -1 where the backend does not read it"`
}
