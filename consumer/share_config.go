package consumer

import (
	"context"
	"log/slog"
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

	RetryBackoff      time.Duration // retry.backoff.ms; default 100 ms; must be >= 1 ms
	RetryBackoffMax   time.Duration // retry.backoff.max.ms; default 1000 ms
	RequestTimeout    time.Duration // request.timeout.ms; default 30000 ms
	DefaultAPITimeout time.Duration // default.api.timeout.ms; default 60000 ms
	MetadataMaxAge    time.Duration // metadata.max.age.ms; default 300000 ms

	MaxPollRecords         int           // max.poll.records (also ShareFetch MaxRecords); default 500
	FetchMaxWait           time.Duration // fetch.max.wait.ms; default 500 ms
	FetchMaxBytes          int32         // fetch.max.bytes; default 52428800
	MaxPartitionFetchBytes int32         // max.partition.fetch.bytes; default 1048576
	MaxBufferedRecords     int           // acquired records buffered before fetching pauses; default 1000

	Dial   func(ctx context.Context, network, address string) (net.Conn, error)
	Logger *slog.Logger
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
