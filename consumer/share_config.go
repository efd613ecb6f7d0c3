package consumer

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"net"
	"time"

	"github.com/kreactor/kreactor/internal/client"
)

// ShareConfig configures a ShareConsumer (KIP-932). Start from
// DefaultShareConfig and set BootstrapServers and GroupID; NewShare rejects
// an invalid field with a *ConfigError naming it. Where records start is the
// group's share.auto.offset.reset (a broker-side group config), not a client
// setting.
type ShareConfig struct {
	BootstrapServers []string // bootstrap.servers; required
	GroupID          string   // group.id: the share group; required
	ClientID         string   // client.id; default "kreactor-share"

	// RetryBackoff, RetryBackoffMax, ReconnectBackoff,
	// ReconnectBackoffMax, SocketConnectionSetupTimeout,
	// SocketConnectionSetupTimeoutMax, RequestTimeout and
	// DefaultAPITimeout are Config's (retry.backoff.ms 100 ms,
	// retry.backoff.max.ms 1000 ms, reconnect.backoff.ms 50 ms,
	// reconnect.backoff.max.ms 1000 ms,
	// socket.connection.setup.timeout.ms 10000 ms,
	// socket.connection.setup.timeout.max.ms 30000 ms, request.timeout.ms
	// 30000 ms, default.api.timeout.ms 60000 ms), with the same rules.
	RetryBackoff                    time.Duration
	RetryBackoffMax                 time.Duration
	ReconnectBackoff                time.Duration
	ReconnectBackoffMax             time.Duration
	SocketConnectionSetupTimeout    time.Duration
	SocketConnectionSetupTimeoutMax time.Duration
	RequestTimeout                  time.Duration
	DefaultAPITimeout               time.Duration
	// MaxPollInterval is max.poll.interval.ms: the longest the application
	// may go without Poll activity while in the share group. When it
	// passes, the member sends a leave heartbeat (epoch -1), gives up its
	// assignment and stops heartbeating; the next Poll joins again, as the
	// KIP-932 Java client does (kafka-clients 4.4.0: ShareHeartbeatRequest-
	// Manager's poll timer, reset by each SharePollEvent). Default
	// 300000 ms.
	MaxPollInterval time.Duration
	MetadataMaxAge  time.Duration // metadata.max.age.ms; default 300000 ms

	MaxPollRecords         int           // max.poll.records (also ShareFetch MaxRecords); default 500
	FetchMaxWait           time.Duration // fetch.max.wait.ms; default 500 ms
	FetchMaxBytes          int32         // fetch.max.bytes; default 52428800
	MaxPartitionFetchBytes int32         // max.partition.fetch.bytes; default 1048576
	MaxBufferedRecords     int           // acquired records buffered before fetching pauses; default 1000

	Dial   func(ctx context.Context, network, address string) (net.Conn, error)
	Logger *slog.Logger
	// Rand is Config's: the member id and backoff jitter source; nil
	// means crypto/rand and the global source.
	Rand rand.Source
}

// DefaultShareConfig returns Java's share consumer defaults (without
// BootstrapServers and GroupID).
func DefaultShareConfig() ShareConfig { return ShareConfig(client.DefaultShareConfig()) }

// Validate checks every field (with Config's rules for the fields both
// consumers share) and returns a *ConfigError naming the first invalid one
// (NewShare calls it).
func (s ShareConfig) Validate() error {
	if s.GroupID == "" {
		return &ConfigError{"GroupID", "group.id", `""`, "a share consumer needs its share group's id"}
	}
	return Config(client.ShareConfig(s).AsConfig()).Validate()
}
