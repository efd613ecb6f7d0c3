package client

import (
	"context"
	"log/slog"
	"net"
	"time"

	"github.com/kreactor/kreactor/internal/mutant"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
)

// Config is consumer.Config field for field (see its documentation):
// consumer.Config converts to it, and back.
type Config struct {
	BootstrapServers       []string
	GroupID                string
	ClientID               string
	AutoOffsetReset        string
	EnableAutoCommit       bool
	AutoCommitInterval     time.Duration
	RetryBackoff           time.Duration
	RetryBackoffMax        time.Duration
	RequestTimeout         time.Duration
	DefaultAPITimeout      time.Duration
	RebalanceTimeout       time.Duration
	MetadataMaxAge         time.Duration
	MaxPollRecords         int
	FetchMaxWait           time.Duration
	FetchMinBytes          int32
	FetchMaxBytes          int32
	MaxPartitionFetchBytes int32
	MaxBufferedRecords     int
	IsolationLevel         string
	Dial                   func(ctx context.Context, network, address string) (net.Conn, error)
	Logger                 *slog.Logger
}

// DefaultConfig is Java's consumer defaults (consumer.DefaultConfig).
func DefaultConfig() Config {
	return Config{
		ClientID:               "kreactor",
		AutoOffsetReset:        group.ResetLatest,
		EnableAutoCommit:       true,
		AutoCommitInterval:     5 * time.Second,
		RetryBackoff:           100 * time.Millisecond,
		RetryBackoffMax:        time.Second,
		RequestTimeout:         30 * time.Second,
		DefaultAPITimeout:      60 * time.Second,
		RebalanceTimeout:       5 * time.Minute,
		MetadataMaxAge:         5 * time.Minute,
		MaxPollRecords:         500,
		FetchMaxWait:           500 * time.Millisecond,
		FetchMinBytes:          1,
		FetchMaxBytes:          52428800,
		MaxPartitionFetchBytes: 1048576,
		MaxBufferedRecords:     2000,
		IsolationLevel:         "read_uncommitted",
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
	BootstrapServers       []string
	GroupID                string
	ClientID               string
	RetryBackoff           time.Duration
	RetryBackoffMax        time.Duration
	RequestTimeout         time.Duration
	DefaultAPITimeout      time.Duration
	MetadataMaxAge         time.Duration
	MaxPollRecords         int
	FetchMaxWait           time.Duration
	FetchMaxBytes          int32
	MaxPartitionFetchBytes int32
	MaxBufferedRecords     int
	Dial                   func(ctx context.Context, network, address string) (net.Conn, error)
	Logger                 *slog.Logger
}

// DefaultShareConfig is Java's share consumer defaults
// (consumer.DefaultShareConfig).
func DefaultShareConfig() ShareConfig {
	d := DefaultConfig()
	return ShareConfig{
		ClientID: "kreactor-share", RetryBackoff: d.RetryBackoff, RetryBackoffMax: d.RetryBackoffMax,
		RequestTimeout: d.RequestTimeout, DefaultAPITimeout: d.DefaultAPITimeout, MetadataMaxAge: d.MetadataMaxAge,
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
	c.DefaultAPITimeout, c.MetadataMaxAge, c.FetchMaxWait = s.DefaultAPITimeout, s.MetadataMaxAge, s.FetchMaxWait
	c.MaxPollRecords, c.FetchMaxBytes, c.MaxPartitionFetchBytes = s.MaxPollRecords, s.FetchMaxBytes, s.MaxPartitionFetchBytes
	c.MaxBufferedRecords, c.Dial, c.Logger = s.MaxBufferedRecords, s.Dial, s.Logger
	return c
}

// CloseDeadline is ctx's deadline, now for a ctx already done (a canceled
// Close fails what is outstanding at once), else 30 s (Java's close()).
func CloseDeadline(ctx context.Context) time.Time {
	if ctx.Err() != nil {
		return time.Now()
	}
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now().Add(30 * time.Second)
}

// CtxResult maps a passed deadline to "no records, no error", as Java's
// poll(timeout).
func CtxResult(err error) error {
	if err == context.DeadlineExceeded {
		return nil
	}
	return err
}
