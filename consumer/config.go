package consumer

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/kreactor/kreactor/internal/client"
	"github.com/kreactor/kreactor/internal/mutant"
	"github.com/kreactor/kreactor/managers/group"
)

// Config configures a Consumer. Start from DefaultConfig (Java's defaults)
// and set BootstrapServers; New rejects any invalid field with a
// *ConfigError naming it. Each field's comment gives the Java setting it
// matches.
type Config struct {
	BootstrapServers []string // bootstrap.servers: host:port list; required
	GroupID          string   // group.id; "" means no group (manual assignment only)
	ClientID         string   // client.id; default "kreactor"

	AutoOffsetReset    string        // auto.offset.reset: earliest, latest (default) or none
	EnableAutoCommit   bool          // enable.auto.commit; default true
	AutoCommitInterval time.Duration // auto.commit.interval.ms; default 5000 ms

	RetryBackoff      time.Duration // retry.backoff.ms; default 100 ms; must be >= 1 ms (KAFKA-21049)
	RetryBackoffMax   time.Duration // retry.backoff.max.ms; default 1000 ms
	RequestTimeout    time.Duration // request.timeout.ms; default 30000 ms
	DefaultAPITimeout time.Duration // default.api.timeout.ms; default 60000 ms (CommitAsync deadline, Close without a deadline uses 30 s like Java)
	RebalanceTimeout  time.Duration // max.poll.interval.ms (the KIP-848 rebalance timeout); default 300000 ms
	MetadataMaxAge    time.Duration // metadata.max.age.ms; default 300000 ms

	MaxPollRecords         int           // max.poll.records; default 500
	FetchMaxWait           time.Duration // fetch.max.wait.ms; default 500 ms
	FetchMinBytes          int32         // fetch.min.bytes; default 1
	FetchMaxBytes          int32         // fetch.max.bytes; default 52428800
	MaxPartitionFetchBytes int32         // max.partition.fetch.bytes; default 1048576
	MaxBufferedRecords     int           // records buffered before fetching pauses; default 4 x MaxPollRecords
	IsolationLevel         string        // isolation.level: read_uncommitted (default) or read_committed

	// Dial, if set, replaces the network dialer (e.g. kfake's
	// VirtualNetwork.DialContext under testing/synctest).
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// Logger receives the consumer's logs; default discards.
	Logger *slog.Logger
}

// maxWireDuration is the longest duration a setting sent as int32
// milliseconds can hold (about 24.8 days).
const maxWireDuration = time.Duration(math.MaxInt32) * time.Millisecond

// DefaultConfig returns Java's consumer defaults (without BootstrapServers).
func DefaultConfig() Config { return Config(client.DefaultConfig()) }

// ConfigError names an invalid Config field, its value and the rule broken.
type ConfigError struct {
	Field  string // Go field name
	Java   string // the Java setting, if any
	Value  any
	Reason string
}

func (e *ConfigError) Error() string {
	name := e.Field
	if e.Java != "" {
		name += " (" + e.Java + ")"
	}
	return fmt.Sprintf("consumer: invalid %s = %v: %s", name, e.Value, e.Reason)
}

// Validate checks every field and returns a *ConfigError naming the first
// invalid one (New calls it). A nil error means New accepts c.
func (c Config) Validate() error {
	if len(c.BootstrapServers) == 0 {
		return &ConfigError{"BootstrapServers", "bootstrap.servers", c.BootstrapServers, "at least one host:port is required"}
	}
	for _, a := range c.BootstrapServers {
		host, port, err := net.SplitHostPort(a)
		if err != nil || host == "" {
			return &ConfigError{"BootstrapServers", "bootstrap.servers", a, "not a host:port address"}
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return &ConfigError{"BootstrapServers", "bootstrap.servers", a, "port must be a number in 1..65535"}
		}
	}
	if c.ClientID == "" {
		return &ConfigError{"ClientID", "client.id", `""`, "must not be empty"}
	}
	switch c.AutoOffsetReset {
	case group.ResetEarliest, group.ResetLatest, group.ResetNone:
	default:
		return &ConfigError{"AutoOffsetReset", "auto.offset.reset", c.AutoOffsetReset, "must be earliest, latest or none"}
	}
	switch c.IsolationLevel {
	case "read_uncommitted", "read_committed":
	default:
		return &ConfigError{"IsolationLevel", "isolation.level", c.IsolationLevel, "must be read_uncommitted or read_committed"}
	}
	durations := []struct {
		field, java string
		v, min      time.Duration
		why         string
	}{
		{"RetryBackoff", "retry.backoff.ms", c.RetryBackoff, time.Millisecond, "must be >= 1ms: a zero backoff turns every retry into a busy loop (KAFKA-21049)"},
		{"RetryBackoffMax", "retry.backoff.max.ms", c.RetryBackoffMax, time.Millisecond, "must be >= 1ms"},
		{"RequestTimeout", "request.timeout.ms", c.RequestTimeout, time.Millisecond, "must be >= 1ms"},
		{"DefaultAPITimeout", "default.api.timeout.ms", c.DefaultAPITimeout, time.Millisecond, "must be >= 1ms"},
		{"RebalanceTimeout", "max.poll.interval.ms", c.RebalanceTimeout, time.Millisecond, "must be >= 1ms"},
		{"MetadataMaxAge", "metadata.max.age.ms", c.MetadataMaxAge, time.Millisecond, "must be >= 1ms"},
		{"FetchMaxWait", "fetch.max.wait.ms", c.FetchMaxWait, 0, "must be >= 0"},
	}
	for _, d := range durations {
		if d.field == "RetryBackoff" && d.v == 0 && mutant.On("zero-backoff-accepted") {
			continue
		}
		if d.v < d.min {
			return &ConfigError{d.field, d.java, d.v, d.why}
		}
		if d.v > maxWireDuration {
			return &ConfigError{d.field, d.java, d.v, fmt.Sprintf("must be <= %s: it travels as int32 milliseconds", maxWireDuration)}
		}
	}
	if c.AutoCommitInterval > maxWireDuration {
		return &ConfigError{"AutoCommitInterval", "auto.commit.interval.ms", c.AutoCommitInterval, fmt.Sprintf("must be <= %s", maxWireDuration)}
	}
	if c.EnableAutoCommit && c.AutoCommitInterval < time.Millisecond {
		return &ConfigError{"AutoCommitInterval", "auto.commit.interval.ms", c.AutoCommitInterval, "must be >= 1ms when auto-commit is enabled"}
	}
	if c.RetryBackoffMax < c.RetryBackoff {
		return &ConfigError{"RetryBackoffMax", "retry.backoff.max.ms", c.RetryBackoffMax, fmt.Sprintf("must be >= RetryBackoff (%s)", c.RetryBackoff)}
	}
	ints := []struct {
		field, java string
		v           int64
	}{
		{"MaxPollRecords", "max.poll.records", int64(c.MaxPollRecords)},
		{"FetchMinBytes", "fetch.min.bytes", int64(c.FetchMinBytes)},
		{"FetchMaxBytes", "fetch.max.bytes", int64(c.FetchMaxBytes)},
		{"MaxPartitionFetchBytes", "max.partition.fetch.bytes", int64(c.MaxPartitionFetchBytes)},
		{"MaxBufferedRecords", "", int64(c.MaxBufferedRecords)},
	}
	for _, i := range ints {
		if i.v < 1 || i.v > math.MaxInt32 {
			return &ConfigError{i.field, i.java, i.v, "must be in 1..2147483647"}
		}
	}
	if strings.TrimSpace(c.GroupID) != c.GroupID {
		return &ConfigError{"GroupID", "group.id", c.GroupID, "must not have leading or trailing spaces"}
	}
	return nil
}
