package config

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"net"
	"time"
)

// Common are the settings of every consumer kind.
type Common struct {
	// BootstrapServers is bootstrap.servers: host:port list; required.
	BootstrapServers []string `java:"bootstrap.servers" check:"required,hostport"`

	// RetryBackoff is retry.backoff.ms: the first wait of every request
	// retry path (coordinator discovery, heartbeats and rejoins, commits,
	// offset lookups, per-partition fetch errors), doubling per
	// consecutive failure up to RetryBackoffMax with 20% jitter (KIP-580).
	// Default 100 ms; must be >= 1 ms (KAFKA-21049).
	RetryBackoff time.Duration `java:"retry.backoff.ms" default:"100ms" check:"min=1ms" why:"a zero backoff turns every retry into a busy loop (KAFKA-21049)"`
	// RetryBackoffMax is retry.backoff.max.ms: the cap of that growth.
	// Default 1000 ms; must be >= RetryBackoff.
	RetryBackoffMax time.Duration `java:"retry.backoff.max.ms" default:"1s" check:"min=1ms,gte=RetryBackoff"`
	// ReconnectBackoff is reconnect.backoff.ms: after a failed connection
	// attempt to a broker, the next attempt to that broker waits this
	// long, doubling per consecutive failure up to ReconnectBackoffMax
	// with 20% jitter (Java's ClusterConnectionStates); requests for it
	// fail at once meanwhile and their managers retry after it. Default
	// 50 ms; must be >= 1 ms.
	ReconnectBackoff time.Duration `java:"reconnect.backoff.ms" default:"50ms" check:"min=1ms" why:"a zero backoff redials a down broker in a busy loop"`
	// ReconnectBackoffMax is reconnect.backoff.max.ms: the cap of that
	// growth. Default 1000 ms; must be >= ReconnectBackoff.
	ReconnectBackoffMax time.Duration `java:"reconnect.backoff.max.ms" default:"1s" check:"min=1ms,gte=ReconnectBackoff"`
	// SocketConnectionSetupTimeout is socket.connection.setup.timeout.ms:
	// how long one connection attempt may take, doubling per consecutive
	// failure to the same broker up to SocketConnectionSetupTimeoutMax
	// with 20% jitter. Default 10000 ms; must be >= 1 ms.
	SocketConnectionSetupTimeout time.Duration `java:"socket.connection.setup.timeout.ms" default:"10s" check:"min=1ms"`
	// SocketConnectionSetupTimeoutMax is
	// socket.connection.setup.timeout.max.ms. Default 30000 ms; must be
	// >= SocketConnectionSetupTimeout.
	SocketConnectionSetupTimeoutMax time.Duration `java:"socket.connection.setup.timeout.max.ms" default:"30s" check:"min=1ms,gte=SocketConnectionSetupTimeout"`
	// RequestTimeout is request.timeout.ms: how long a request waits for
	// its answer, after which it fails and its connection is closed (the
	// requests behind it fail with the disconnection), as Java's
	// NetworkClient does; it also caps Close's budget, as Java's close
	// timer is min(timeout, request.timeout.ms). Default 30000 ms.
	RequestTimeout time.Duration `java:"request.timeout.ms" default:"30s" check:"min=1ms"`
	// DefaultAPITimeout is default.api.timeout.ms: the deadline of a
	// CommitAsync and of a CommitSync whose ctx has none. Default 60000 ms
	// (Close without a deadline uses 30000 ms, as Java's close()).
	DefaultAPITimeout time.Duration `java:"default.api.timeout.ms" default:"60s" check:"min=1ms"`
	// MaxPollInterval is max.poll.interval.ms: the longest the application
	// may go without Poll activity (a Poll waiting, or returning) while in
	// a group. When it passes, the member sends a leave heartbeat (epoch
	// -1), gives up its assignment and stops heartbeating; the next Poll
	// joins again (Java's AsyncKafkaConsumer, KIP-848; for a share
	// consumer kafka-clients 4.4.0's ShareHeartbeatRequestManager poll
	// timer, reset by each SharePollEvent). A regular consumer also sends
	// it as the rebalance timeout when joining (RebalanceTimeoutMs).
	// Default 300000 ms.
	MaxPollInterval time.Duration `java:"max.poll.interval.ms" default:"5m" check:"min=1ms"`
	// MetadataMaxAge is metadata.max.age.ms: metadata is refreshed this
	// long after the previous refresh's answer. Default 300000 ms.
	MetadataMaxAge time.Duration `java:"metadata.max.age.ms" default:"5m" check:"min=1ms"`
	// MetadataRecoveryStrategy is metadata.recovery.strategy (KIP-899,
	// KIP-1102): "rebootstrap" (default) forgets the known brokers and
	// asks bootstrap.servers again when a metadata update has not
	// succeeded for longer than MetadataRecoveryRebootstrapTrigger, or a
	// broker answers REBOOTSTRAP_REQUIRED; "none" keeps trying the known
	// brokers. Failed updates are retried on the retry backoff either way.
	MetadataRecoveryStrategy string `java:"metadata.recovery.strategy" default:"rebootstrap" check:"oneof=rebootstrap none"`
	// MetadataRecoveryRebootstrapTrigger is
	// metadata.recovery.rebootstrap.trigger.ms. Default 300000 ms.
	MetadataRecoveryRebootstrapTrigger time.Duration `java:"metadata.recovery.rebootstrap.trigger.ms" default:"5m" check:"min=0"`

	// MaxPollRecords is max.poll.records (a share consumer's ShareFetch
	// MaxRecords too). Default 500.
	MaxPollRecords int `java:"max.poll.records" default:"500" check:"min=1"`
	// FetchMaxWait is fetch.max.wait.ms. Default 500 ms.
	FetchMaxWait time.Duration `java:"fetch.max.wait.ms" default:"500ms" check:"min=0"`
	// FetchMaxBytes is fetch.max.bytes. Default 52428800.
	FetchMaxBytes int32 `java:"fetch.max.bytes" default:"52428800" check:"min=1"`
	// MaxPartitionFetchBytes is max.partition.fetch.bytes. Default 1048576.
	MaxPartitionFetchBytes int32 `java:"max.partition.fetch.bytes" default:"1048576" check:"min=1"`

	// Dial, if set, replaces the network dialer (e.g. fakebroker's
	// Broker.Dial on kfake's in-memory network, under testing/synctest:
	// harness/sim). A Java consumer cannot use it.
	Dial func(ctx context.Context, network, address string) (net.Conn, error) `java:"-"`
	// Logger receives the consumer's logs; default discards.
	Logger *slog.Logger `java:"-"`
	// Rand, if set, is the source of every random choice the consumer
	// makes: its member id (KIP-848 heartbeat v1: 16 client-generated
	// bytes) and the 20% jitter of its retry, reconnect and
	// connection-setup backoffs (KIP-580). New draws from it only while it
	// runs, on the caller's goroutine, to seed one generator for the
	// loop's backoffs and one for the transport's, and never touches it
	// again. nil (the default) uses crypto/rand for the member id and
	// math/rand/v2's global source for jitter. For seeded simulation runs
	// (harness/sim): the same source gives the same choices.
	Rand rand.Source `java:"-"`
}

// Consumer configures a regular consumer (consumer.Config). Start from
// DefaultConsumer (Java's defaults) and set BootstrapServers; consumer.New
// rejects any invalid field with an *Error naming it.
type Consumer struct {
	Common

	// GroupID is group.id; "" means no group (manual assignment only).
	GroupID string `java:"group.id,omitempty" check:"trimmed"`
	// GroupInstanceID is group.instance.id (KIP-345 over KIP-848): ""
	// (Java's default, null) makes a dynamic member; otherwise the member
	// is static: every ConsumerGroupHeartbeat carries it as InstanceId,
	// Close leaves with member epoch -2 so the coordinator keeps its
	// assignment for a member joining again with the same id (within the
	// group's session timeout), and a second member with the same id is
	// refused (UNRELEASED_INSTANCE_ID, fatal, from Poll). It needs a
	// GroupID; at most 249 characters of [a-zA-Z0-9._-].
	GroupInstanceID string `java:"group.instance.id,omitempty" check:"instanceid=GroupID"`
	// ClientID is client.id. Default "kreactor".
	ClientID string `java:"client.id" default:"kreactor" check:"required"`

	// AutoOffsetReset is auto.offset.reset: earliest, latest (default) or
	// none.
	AutoOffsetReset string `java:"auto.offset.reset" default:"latest" check:"oneof=earliest latest none"`
	// EnableAutoCommit is enable.auto.commit. Default true.
	EnableAutoCommit bool `java:"enable.auto.commit" default:"true"`
	// AutoCommitInterval is auto.commit.interval.ms. Default 5000 ms.
	AutoCommitInterval time.Duration `java:"auto.commit.interval.ms" default:"5s" check:"min=1ms if EnableAutoCommit"`

	// FetchMinBytes is fetch.min.bytes. Default 1.
	FetchMinBytes int32 `java:"fetch.min.bytes" default:"1" check:"min=1"`
	// IsolationLevel is isolation.level: read_uncommitted (default) or
	// read_committed.
	IsolationLevel string `java:"isolation.level" default:"read_uncommitted" check:"oneof=read_uncommitted read_committed"`
	// MaxBufferedRecords bounds the records buffered before fetching
	// pauses (no Java setting). Default 2000 (4 x max.poll.records).
	MaxBufferedRecords int `java:"-" default:"2000" check:"min=1"`
}

// Share configures a share consumer (consumer.ShareConfig, KIP-932). Start
// from DefaultShare and set BootstrapServers and GroupID; consumer.NewShare
// rejects an invalid field with an *Error naming it. Where records start is
// the group's share.auto.offset.reset (a broker-side group config), not a
// client setting.
type Share struct {
	Common

	// GroupID is group.id: the share group; required.
	GroupID string `java:"group.id" check:"required,trimmed" why:"a share consumer needs its share group's id"`
	// ClientID is client.id. Default "kreactor-share".
	ClientID string `java:"client.id" default:"kreactor-share" check:"required"`
	// MaxBufferedRecords bounds the acquired records buffered before
	// fetching pauses (no Java setting). Default 1000.
	MaxBufferedRecords int `java:"-" default:"1000" check:"min=1"`
}

// DefaultConsumer returns Java's consumer defaults (without
// BootstrapServers), from the default tags.
func DefaultConsumer() Consumer { return withDefaults[Consumer]() }

// DefaultShare returns Java's share consumer defaults (without
// BootstrapServers and GroupID), from the default tags.
func DefaultShare() Share { return withDefaults[Share]() }
