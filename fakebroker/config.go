package fakebroker

import (
	"log/slog"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// Defaults applied by Start to zero Config fields.
const (
	// DefaultBrokers is the number of brokers (nodes 0..2).
	DefaultBrokers = 3
	// DefaultHeartbeatInterval is the KIP-848 / KIP-932 heartbeat interval
	// the brokers hand to members (Kafka's default is 5 s; specs want it low).
	DefaultHeartbeatInterval = 250 * time.Millisecond
	// DefaultSessionTimeout is the KIP-848 / KIP-932 member session timeout
	// (Kafka's default is 45 s).
	DefaultSessionTimeout = 10 * time.Second
	// DefaultMaxRecords is how many requests the Recorder keeps.
	DefaultMaxRecords = 1_000_000
	// VirtualBasePort is the port of node 0 on a Config.Network: node i
	// listens on localhost:VirtualBasePort+i (the in-memory network keys
	// listeners by port and has no random ports).
	VirtualBasePort = 9092
)

// Broker config keys Config sets from its typed fields. BrokerConfigs must
// not also set them.
const (
	cfgConsumerHeartbeat = "group.consumer.heartbeat.interval.ms"
	cfgConsumerSession   = "group.consumer.session.timeout.ms"
	cfgShareHeartbeat    = "group.share.heartbeat.interval.ms"
	cfgShareSession      = "group.share.session.timeout.ms"
)

// Config configures Start. The zero value is valid: three brokers, no topics,
// the defaults above.
type Config struct {
	// Brokers is the number of brokers, node ids 0..Brokers-1. 0 means
	// DefaultBrokers (3); negative is rejected.
	Brokers int

	// Topics maps topic name to partition count; each is created at start
	// (kfake.SeedTopics) with partitions spread over the brokers. Names must
	// be non-empty and counts at least 1.
	Topics map[string]int32

	// HeartbeatInterval is the member heartbeat interval the brokers return
	// in ConsumerGroupHeartbeat and ShareGroupHeartbeat responses (broker
	// configs group.consumer.heartbeat.interval.ms and
	// group.share.heartbeat.interval.ms), whole milliseconds. 0 means
	// DefaultHeartbeatInterval (250 ms); negative or below 1 ms is rejected.
	HeartbeatInterval time.Duration

	// SessionTimeout is how long a KIP-848 or share group member may go
	// without a heartbeat before the broker fences it (broker configs
	// group.consumer.session.timeout.ms and group.share.session.timeout.ms,
	// both honoured by kfake), whole milliseconds. 0 means
	// DefaultSessionTimeout (10 s); it must exceed HeartbeatInterval, as in
	// Kafka.
	SessionTimeout time.Duration

	// BrokerConfigs are extra initial broker configs (kfake.BrokerConfigs),
	// for example "share.record.lock.sweep.interval.ms". They must not set
	// the four heartbeat / session keys above: use the typed fields.
	BrokerConfigs map[string]string

	// MaxRecords bounds the Recorder: it keeps the newest MaxRecords
	// requests and counts older ones as dropped. 0 means DefaultMaxRecords
	// (1,000,000, about 100 MB); negative is rejected.
	MaxRecords int

	// Logger receives kfake's log lines (component=kfake) and fakebroker's
	// own. nil discards them.
	Logger *slog.Logger

	// KfakeAnswers turns off the corrections that make the brokers answer
	// as Apache Kafka 4.4 does where kfake differs (answers.go: OffsetFetch
	// for a group that never committed, OffsetCommit for an unknown group,
	// FindCoordinator and heartbeat error answers, a Fetch with no
	// partition to read answered at once, the ConsumerGroupHeartbeats Kafka
	// refuses refused): every response is kfake's own, when kfake gives
	// it, and kfake applies what Kafka refuses. For showing the differences; false (the default)
	// answers as Kafka does.
	KfakeAnswers bool

	// Network, if set, puts the brokers on kfake's in-memory network
	// (kfake.VirtualNetwork, net.Pipe connections) instead of TCP: node i
	// listens on localhost:VirtualBasePort+i of that network, and clients
	// reach the brokers only through Broker.Dial (give it to
	// consumer.Config.Dial or kgo.Dialer). Under testing/synctest this is
	// what lets the bubble's clock advance: a goroutine blocked on a TCP
	// socket is not durably blocked, one blocked on a pipe is. The
	// recorder, the corrected answers and every fault helper work the
	// same; Produce dials through it. One Network serves one Broker (the
	// ports would clash).
	Network *kfake.VirtualNetwork

	// Ports, if set, are the brokers' TCP ports (one per broker, node
	// order); nil picks free ones.
	Ports []int

	// ListenHost is the address the brokers listen on ("" means
	// 127.0.0.1; "0.0.0.0" in a container) and AdvertiseHost the host
	// they tell clients in Metadata and FindCoordinator ("" means the
	// listen address as bound). A container listens on 0.0.0.0 and
	// advertises the host its clients reach it by.
	ListenHost, AdvertiseHost string

	// SpreadLeaders, if true, makes node p mod Brokers the leader of
	// partition p of every topic in Topics, instead of kfake's choice
	// (math/rand's global source, which a program cannot seed since Go
	// 1.24), so that which broker serves which partition is the same in
	// every run: for seeded simulation runs (harness/sim). Topics created
	// later keep kfake's random leader.
	SpreadLeaders bool
}

// withDefaults returns cfg with zero fields set to their defaults, or a
// *ConfigError naming the first invalid field.
func (cfg Config) withDefaults() (Config, error) {
	switch {
	case cfg.Brokers < 0:
		return cfg, &ConfigError{"Brokers", cfg.Brokers, "must be >= 0 (0 means 3)"}
	case cfg.Brokers == 0:
		cfg.Brokers = DefaultBrokers
	}
	for t, p := range cfg.Topics {
		if t == "" {
			return cfg, &ConfigError{"Topics[\"\"]", p, "topic name must be non-empty"}
		}
		if p < 1 {
			return cfg, &ConfigError{"Topics[" + strconv.Quote(t) + "]", p, "partition count must be >= 1"}
		}
	}
	var err error
	if cfg.HeartbeatInterval, err = wholeMillis("HeartbeatInterval", cfg.HeartbeatInterval, DefaultHeartbeatInterval); err != nil {
		return cfg, err
	}
	if cfg.SessionTimeout, err = wholeMillis("SessionTimeout", cfg.SessionTimeout, DefaultSessionTimeout); err != nil {
		return cfg, err
	}
	if cfg.SessionTimeout <= cfg.HeartbeatInterval {
		return cfg, &ConfigError{"SessionTimeout", cfg.SessionTimeout, "must exceed HeartbeatInterval " + cfg.HeartbeatInterval.String()}
	}
	for _, k := range []string{cfgConsumerHeartbeat, cfgConsumerSession, cfgShareHeartbeat, cfgShareSession} {
		if v, ok := cfg.BrokerConfigs[k]; ok {
			return cfg, &ConfigError{"BrokerConfigs[" + strconv.Quote(k) + "]", v, "set by HeartbeatInterval / SessionTimeout; use those fields"}
		}
	}
	switch {
	case cfg.MaxRecords < 0:
		return cfg, &ConfigError{"MaxRecords", cfg.MaxRecords, "must be >= 0 (0 means 1,000,000)"}
	case cfg.MaxRecords == 0:
		cfg.MaxRecords = DefaultMaxRecords
	}
	if len(cfg.Ports) > 0 && len(cfg.Ports) != cfg.Brokers {
		return cfg, &ConfigError{"Ports", cfg.Ports, "want one port per broker"}
	}
	return cfg, nil
}

// wholeMillis defaults a zero d to def and rejects negative values and values
// that are not a whole number of milliseconds (Kafka configs are in ms).
func wholeMillis(field string, d, def time.Duration) (time.Duration, error) {
	switch {
	case d == 0:
		return def, nil
	case d < time.Millisecond:
		return d, &ConfigError{field, d, "must be 0 (default) or >= 1ms"}
	case d%time.Millisecond != 0:
		return d, &ConfigError{field, d, "must be a whole number of milliseconds"}
	}
	return d, nil
}

// brokerConfigs is the full kfake broker config map for cfg (defaults applied).
func (cfg Config) brokerConfigs() map[string]string {
	m := make(map[string]string, len(cfg.BrokerConfigs)+4)
	for k, v := range cfg.BrokerConfigs {
		m[k] = v
	}
	hb := strconv.FormatInt(cfg.HeartbeatInterval.Milliseconds(), 10)
	st := strconv.FormatInt(cfg.SessionTimeout.Milliseconds(), 10)
	m[cfgConsumerHeartbeat], m[cfgShareHeartbeat] = hb, hb
	m[cfgConsumerSession], m[cfgShareSession] = st, st
	return m
}
