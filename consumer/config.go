package consumer

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"reflect"
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
	// GroupInstanceID is group.instance.id (KIP-345 over KIP-848): ""
	// (Java's default, null) makes a dynamic member; otherwise the member
	// is static: every ConsumerGroupHeartbeat carries it as InstanceId,
	// Close leaves with member epoch -2 so the coordinator keeps its
	// assignment for a member joining again with the same id (within the
	// group's session timeout), and a second member with the same id is
	// refused (UNRELEASED_INSTANCE_ID, fatal, from Poll). It needs a
	// GroupID; at most 249 characters of [a-zA-Z0-9._-].
	GroupInstanceID string
	ClientID        string // client.id; default "kreactor"

	AutoOffsetReset    string        // auto.offset.reset: earliest, latest (default) or none
	EnableAutoCommit   bool          // enable.auto.commit; default true
	AutoCommitInterval time.Duration // auto.commit.interval.ms; default 5000 ms

	// RetryBackoff is retry.backoff.ms: the first wait of every request
	// retry path (coordinator discovery, heartbeats and rejoins, commits,
	// offset lookups, per-partition fetch errors), doubling per
	// consecutive failure up to RetryBackoffMax with 20% jitter (KIP-580).
	// Default 100 ms; must be >= 1 ms (KAFKA-21049).
	RetryBackoff time.Duration
	// RetryBackoffMax is retry.backoff.max.ms: the cap of that growth.
	// Default 1000 ms; must be >= RetryBackoff.
	RetryBackoffMax time.Duration
	// ReconnectBackoff is reconnect.backoff.ms: after a failed connection
	// attempt to a broker, the next attempt to that broker waits this
	// long, doubling per consecutive failure up to ReconnectBackoffMax
	// with 20% jitter (Java's ClusterConnectionStates); requests for it
	// fail at once meanwhile and their managers retry after it. Default
	// 50 ms; must be >= 1 ms.
	ReconnectBackoff time.Duration
	// ReconnectBackoffMax is reconnect.backoff.max.ms: the cap of that
	// growth. Default 1000 ms; must be >= ReconnectBackoff.
	ReconnectBackoffMax time.Duration
	// SocketConnectionSetupTimeout is socket.connection.setup.timeout.ms:
	// how long one connection attempt may take, doubling per consecutive
	// failure to the same broker up to SocketConnectionSetupTimeoutMax
	// with 20% jitter. Default 10000 ms; must be >= 1 ms.
	SocketConnectionSetupTimeout time.Duration
	// SocketConnectionSetupTimeoutMax is
	// socket.connection.setup.timeout.max.ms. Default 30000 ms; must be
	// >= SocketConnectionSetupTimeout.
	SocketConnectionSetupTimeoutMax time.Duration
	// RequestTimeout is request.timeout.ms: how long a request waits for
	// its answer; it also caps Close's budget, as Java's close timer is
	// min(timeout, request.timeout.ms). Default 30000 ms.
	RequestTimeout time.Duration
	// DefaultAPITimeout is default.api.timeout.ms: the deadline of a
	// CommitAsync and of a CommitSync whose ctx has none. Default 60000 ms
	// (Close without a deadline uses 30000 ms, as Java's close()).
	DefaultAPITimeout time.Duration
	// MaxPollInterval is max.poll.interval.ms: the longest the application
	// may go without Poll activity (a Poll waiting, or returning) while in
	// a group. When it passes, the member sends a leave heartbeat (epoch
	// -1), gives up its assignment and stops heartbeating; the next Poll
	// joins again (Java's AsyncKafkaConsumer; KIP-848). It is also the
	// rebalance timeout sent when joining (RebalanceTimeoutMs). Default
	// 300000 ms.
	MaxPollInterval time.Duration
	// MetadataMaxAge is metadata.max.age.ms. Default 300000 ms.
	MetadataMaxAge time.Duration

	MaxPollRecords         int           // max.poll.records; default 500
	FetchMaxWait           time.Duration // fetch.max.wait.ms; default 500 ms
	FetchMinBytes          int32         // fetch.min.bytes; default 1
	FetchMaxBytes          int32         // fetch.max.bytes; default 52428800
	MaxPartitionFetchBytes int32         // max.partition.fetch.bytes; default 1048576
	MaxBufferedRecords     int           // records buffered before fetching pauses; default 4 x MaxPollRecords
	IsolationLevel         string        // isolation.level: read_uncommitted (default) or read_committed

	// Dial, if set, replaces the network dialer (e.g. fakebroker's
	// Broker.Dial on kfake's in-memory network, under testing/synctest:
	// harness/sim).
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// Logger receives the consumer's logs; default discards.
	Logger *slog.Logger
	// Rand, if set, is the source of every random choice the consumer
	// makes: its member id (KIP-848 heartbeat v1: 16 client-generated
	// bytes) and the 20% jitter of its retry, reconnect and
	// connection-setup backoffs (KIP-580). New draws from it only while it
	// runs, on the caller's goroutine, to seed one generator for the
	// loop's backoffs and one for the transport's, and never touches it
	// again. nil (the default) uses crypto/rand for the member id and
	// math/rand/v2's global source for jitter. For seeded simulation runs
	// (harness/sim): the same source gives the same choices.
	Rand rand.Source
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
	return fmt.Sprintf("consumer: invalid %s = %s: %s", name, configValue(e.Value), e.Reason)
}

// configValue formats a ConfigError's value: strings (and lists of them)
// quoted, so an empty or blank value shows ("", " g "), the rest with %v.
func configValue(v any) string {
	switch rv := reflect.ValueOf(v); {
	case rv.Kind() == reflect.String:
		return strconv.Quote(rv.String())
	case rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.String:
		return fmt.Sprintf("%q", v)
	}
	return fmt.Sprintf("%v", v)
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
		return &ConfigError{"ClientID", "client.id", c.ClientID, "must not be empty"}
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
		{"ReconnectBackoff", "reconnect.backoff.ms", c.ReconnectBackoff, time.Millisecond, "must be >= 1ms: a zero backoff redials a down broker in a busy loop"},
		{"ReconnectBackoffMax", "reconnect.backoff.max.ms", c.ReconnectBackoffMax, time.Millisecond, "must be >= 1ms"},
		{"SocketConnectionSetupTimeout", "socket.connection.setup.timeout.ms", c.SocketConnectionSetupTimeout, time.Millisecond, "must be >= 1ms"},
		{"SocketConnectionSetupTimeoutMax", "socket.connection.setup.timeout.max.ms", c.SocketConnectionSetupTimeoutMax, time.Millisecond, "must be >= 1ms"},
		{"RequestTimeout", "request.timeout.ms", c.RequestTimeout, time.Millisecond, "must be >= 1ms"},
		{"DefaultAPITimeout", "default.api.timeout.ms", c.DefaultAPITimeout, time.Millisecond, "must be >= 1ms"},
		{"MaxPollInterval", "max.poll.interval.ms", c.MaxPollInterval, time.Millisecond, "must be >= 1ms"},
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
	ordered := []struct {
		field, java, lowField string
		v, low                time.Duration
	}{
		{"RetryBackoffMax", "retry.backoff.max.ms", "RetryBackoff", c.RetryBackoffMax, c.RetryBackoff},
		{"ReconnectBackoffMax", "reconnect.backoff.max.ms", "ReconnectBackoff", c.ReconnectBackoffMax, c.ReconnectBackoff},
		{"SocketConnectionSetupTimeoutMax", "socket.connection.setup.timeout.max.ms", "SocketConnectionSetupTimeout", c.SocketConnectionSetupTimeoutMax, c.SocketConnectionSetupTimeout},
	}
	for _, o := range ordered {
		if o.v < o.low {
			return &ConfigError{o.field, o.java, o.v, fmt.Sprintf("must be >= %s (%s)", o.lowField, o.low)}
		}
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
	return validateInstanceID(c.GroupInstanceID, c.GroupID)
}
