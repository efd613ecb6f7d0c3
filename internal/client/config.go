package client

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"net"
	"time"

	"github.com/kreactor/kreactor/internal/mutant"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
)

// Config is consumer.Config field for field (see its documentation):
// consumer.Config converts to it, and back.
type Config struct {
	BootstrapServers                []string
	GroupID                         string
	GroupInstanceID                 string
	ClientID                        string
	AutoOffsetReset                 string
	EnableAutoCommit                bool
	AutoCommitInterval              time.Duration
	RetryBackoff                    time.Duration
	RetryBackoffMax                 time.Duration
	ReconnectBackoff                time.Duration
	ReconnectBackoffMax             time.Duration
	SocketConnectionSetupTimeout    time.Duration
	SocketConnectionSetupTimeoutMax time.Duration
	RequestTimeout                  time.Duration
	DefaultAPITimeout               time.Duration
	MaxPollInterval                 time.Duration
	MetadataMaxAge                  time.Duration
	MaxPollRecords                  int
	FetchMaxWait                    time.Duration
	FetchMinBytes                   int32
	FetchMaxBytes                   int32
	MaxPartitionFetchBytes          int32
	MaxBufferedRecords              int
	IsolationLevel                  string
	Dial                            func(ctx context.Context, network, address string) (net.Conn, error)
	Logger                          *slog.Logger
	Rand                            rand.Source
}

// DefaultConfig is Java's consumer defaults (consumer.DefaultConfig).
func DefaultConfig() Config {
	return Config{
		ClientID:                        "kreactor",
		AutoOffsetReset:                 group.ResetLatest,
		EnableAutoCommit:                true,
		AutoCommitInterval:              5 * time.Second,
		RetryBackoff:                    100 * time.Millisecond,
		RetryBackoffMax:                 time.Second,
		ReconnectBackoff:                50 * time.Millisecond,
		ReconnectBackoffMax:             time.Second,
		SocketConnectionSetupTimeout:    10 * time.Second,
		SocketConnectionSetupTimeoutMax: 30 * time.Second,
		RequestTimeout:                  30 * time.Second,
		DefaultAPITimeout:               60 * time.Second,
		MaxPollInterval:                 5 * time.Minute,
		MetadataMaxAge:                  5 * time.Minute,
		MaxPollRecords:                  500,
		FetchMaxWait:                    500 * time.Millisecond,
		FetchMinBytes:                   1,
		FetchMaxBytes:                   52428800,
		MaxPartitionFetchBytes:          1048576,
		MaxBufferedRecords:              2000,
		IsolationLevel:                  "read_uncommitted",
	}
}

// Backoff is the retry backoff of a consumer with these settings
// (retry.backoff.ms doubling to retry.backoff.max.ms, managers.BackoffJitter).
func Backoff(initial, maxBackoff time.Duration) managers.Backoff {
	if mutant.On("backoff-never-doubles") {
		return managers.NewBackoff(initial, initial)
	}
	return managers.NewBackoff(initial, maxBackoff)
}

// ShareConfig is consumer.ShareConfig field for field (see its
// documentation).
type ShareConfig struct {
	BootstrapServers                []string
	GroupID                         string
	ClientID                        string
	RetryBackoff                    time.Duration
	RetryBackoffMax                 time.Duration
	ReconnectBackoff                time.Duration
	ReconnectBackoffMax             time.Duration
	SocketConnectionSetupTimeout    time.Duration
	SocketConnectionSetupTimeoutMax time.Duration
	RequestTimeout                  time.Duration
	DefaultAPITimeout               time.Duration
	MaxPollInterval                 time.Duration
	MetadataMaxAge                  time.Duration
	MaxPollRecords                  int
	FetchMaxWait                    time.Duration
	FetchMaxBytes                   int32
	MaxPartitionFetchBytes          int32
	MaxBufferedRecords              int
	Dial                            func(ctx context.Context, network, address string) (net.Conn, error)
	Logger                          *slog.Logger
	Rand                            rand.Source
}

// DefaultShareConfig is Java's share consumer defaults
// (consumer.DefaultShareConfig).
func DefaultShareConfig() ShareConfig {
	d := DefaultConfig()
	return ShareConfig{
		ClientID: "kreactor-share", RetryBackoff: d.RetryBackoff, RetryBackoffMax: d.RetryBackoffMax,
		ReconnectBackoff: d.ReconnectBackoff, ReconnectBackoffMax: d.ReconnectBackoffMax,
		SocketConnectionSetupTimeout: d.SocketConnectionSetupTimeout, SocketConnectionSetupTimeoutMax: d.SocketConnectionSetupTimeoutMax,
		RequestTimeout: d.RequestTimeout, DefaultAPITimeout: d.DefaultAPITimeout, MaxPollInterval: d.MaxPollInterval, MetadataMaxAge: d.MetadataMaxAge,
		MaxPollRecords: d.MaxPollRecords, FetchMaxWait: d.FetchMaxWait, FetchMaxBytes: d.FetchMaxBytes,
		MaxPartitionFetchBytes: d.MaxPartitionFetchBytes, MaxBufferedRecords: 1000,
	}
}

// AsConfig maps the fields both consumers share onto DefaultConfig, so both
// are validated by one set of rules and share one transport.
func (s ShareConfig) AsConfig() Config {
	c := DefaultConfig()
	c.BootstrapServers, c.GroupID, c.ClientID = s.BootstrapServers, s.GroupID, s.ClientID
	c.RetryBackoff, c.RetryBackoffMax, c.RequestTimeout = s.RetryBackoff, s.RetryBackoffMax, s.RequestTimeout
	c.ReconnectBackoff, c.ReconnectBackoffMax = s.ReconnectBackoff, s.ReconnectBackoffMax
	c.SocketConnectionSetupTimeout, c.SocketConnectionSetupTimeoutMax, c.MaxPollInterval = s.SocketConnectionSetupTimeout, s.SocketConnectionSetupTimeoutMax, s.MaxPollInterval
	c.DefaultAPITimeout, c.MetadataMaxAge, c.FetchMaxWait = s.DefaultAPITimeout, s.MetadataMaxAge, s.FetchMaxWait
	c.MaxPollRecords, c.FetchMaxBytes, c.MaxPartitionFetchBytes = s.MaxPollRecords, s.FetchMaxBytes, s.MaxPartitionFetchBytes
	c.MaxBufferedRecords, c.Dial, c.Logger, c.Rand = s.MaxBufferedRecords, s.Dial, s.Logger, s.Rand
	return c
}

// DefaultCloseTimeout is Close's budget when ctx has no deadline (Java's
// close(): 30000 ms).
const DefaultCloseTimeout = 30 * time.Second

// CloseDeadline is Close's deadline as Java's close timer sets it:
// min(ctx's deadline, now + request.timeout.ms) (Java's
// createTimerForCloseRequests: min(timeout, requestTimeoutMs)), now + 30 s
// (DefaultCloseTimeout) capped the same way when ctx has none, and now for
// a ctx already done (Close(0): what is outstanding fails at once; the
// leave is still sent, see CloseLeaveFloor).
func CloseDeadline(ctx context.Context, requestTimeout time.Duration) time.Time {
	now := time.Now()
	if ctx.Err() != nil {
		return now
	}
	d, ok := ctx.Deadline()
	if !ok {
		d = now.Add(DefaultCloseTimeout)
	}
	if requestTimeout > 0 && now.Add(requestTimeout).Before(d) {
		d = now.Add(requestTimeout)
	}
	return d
}

// CtxResult maps a passed deadline to "no records, no error", as Java's
// poll(timeout).
func CtxResult(err error) error {
	if err == context.DeadlineExceeded {
		return nil
	}
	return err
}
