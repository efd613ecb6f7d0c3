package kgo

// Mapping of the harness's consumer configuration onto franz-go kgo options.
// The table in doc.go lists every field, its kgo option and what has none.

import (
	"math"
	"math/rand/v2"
	"time"

	franz "github.com/twmb/franz-go/pkg/kgo"

	"github.com/kreactor/kreactor/consumer"
	settings "github.com/kreactor/kreactor/consumer/config"
	"github.com/kreactor/kreactor/managers/group"
)

// kgo's own limits (franz-go v1.22.3, kgo/config.go validate); a value
// outside them is an *UnsupportedError, never silently clamped.
const (
	kgoMinFetchMaxWait     = 10 * time.Millisecond  // FetchMaxWait
	kgoMinAutoCommit       = 100 * time.Millisecond // AutoCommitInterval
	kgoMinGroupTimeout     = 100 * time.Millisecond // RebalanceTimeout (from MaxPollInterval), SessionTimeout
	kgoMinRequestOverhead  = 100 * time.Millisecond // RequestTimeoutOverhead
	kgoMaxRequestOverhead  = 15 * time.Minute
	kgoMaxMetadataMaxAge   = time.Hour // MetadataMaxAge
	kgoMinMetadataAge      = 10 * time.Millisecond
	kgoDefaultMetadataMin  = 5 * time.Second // MetadataMinAge default
	kgoDefaultBrokerRead   = 100 << 20       // BrokerMaxReadBytes default
	kgoMaxBrokerReadBytes  = 1 << 30
	javaBackoffJitter      = 0.2              // CommonClientConfigs RETRY_BACKOFF_JITTER
	javaBackoffExpBase     = 2                // CommonClientConfigs RETRY_BACKOFF_EXP_BASE
	defaultCloseTimeout    = 30 * time.Second // Java's close() without a timeout
	assignmentQueryTimeout = 5 * time.Second  // ShareConsumer.Assignment's describe
)

// clientOpts maps the fields consumer.Config and consumer.ShareConfig share.
func clientOpts(c consumer.Config) ([]franz.Opt, error) {
	opts := []franz.Opt{
		franz.SeedBrokers(c.BootstrapServers...),
		franz.ClientID(c.ClientID),
		franz.RetryBackoffFn(javaBackoff(c.RetryBackoff, c.RetryBackoffMax)),
		franz.WithLogger(newLogger(c.Logger)),
	}
	if c.RequestTimeout < kgoMinRequestOverhead || c.RequestTimeout > kgoMaxRequestOverhead {
		return nil, unsupported[settings.Consumer]("RequestTimeout", c.RequestTimeout,
			"kgo's RequestTimeoutOverhead, its counterpart, must be in 100ms..15m")
	}
	opts = append(opts, franz.RequestTimeoutOverhead(c.RequestTimeout))
	if c.MetadataMaxAge > kgoMaxMetadataMaxAge || c.MetadataMaxAge < kgoMinMetadataAge {
		return nil, unsupported[settings.Consumer]("MetadataMaxAge", c.MetadataMaxAge,
			"kgo's MetadataMaxAge must be in 10ms..1h")
	}
	opts = append(opts, franz.MetadataMaxAge(c.MetadataMaxAge))
	if c.MetadataMaxAge < kgoDefaultMetadataMin {
		// kgo requires max age >= min age (default 5 s); Java has no
		// minimum age, so lower it with the max age.
		opts = append(opts, franz.MetadataMinAge(c.MetadataMaxAge))
	}
	if c.Dial != nil {
		opts = append(opts, franz.Dialer(c.Dial))
	}
	if c.FetchMaxWait < kgoMinFetchMaxWait {
		return nil, unsupported[settings.Consumer]("FetchMaxWait", c.FetchMaxWait,
			"kgo's FetchMaxWait must be >= 10ms")
	}
	opts = append(opts,
		franz.FetchMaxWait(c.FetchMaxWait),
		franz.FetchMaxBytes(c.FetchMaxBytes),
		franz.FetchMaxPartitionBytes(c.MaxPartitionFetchBytes),
	)
	if c.FetchMaxBytes > kgoDefaultBrokerRead {
		if c.FetchMaxBytes > kgoMaxBrokerReadBytes {
			return nil, unsupported[settings.Consumer]("FetchMaxBytes", c.FetchMaxBytes,
				"kgo's BrokerMaxReadBytes, which must cover FetchMaxBytes, is at most 1 GiB")
		}
		opts = append(opts, franz.BrokerMaxReadBytes(c.FetchMaxBytes))
	}
	return opts, nil
}

// consumerOpts maps consumer.Config to kgo options for either mode; the
// group options (groupOpts) are added by Subscribe, the partitions by Assign.
func consumerOpts(c consumer.Config) ([]franz.Opt, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	opts, err := clientOpts(c)
	if err != nil {
		return nil, err
	}
	opts = append(opts, franz.FetchMinBytes(c.FetchMinBytes))
	if c.IsolationLevel == "read_committed" {
		opts = append(opts, franz.FetchIsolationLevel(franz.ReadCommitted()))
	} else {
		opts = append(opts, franz.FetchIsolationLevel(franz.ReadUncommitted()))
	}
	start, reset := offsetsFor(c.AutoOffsetReset)
	opts = append(opts, franz.ConsumeStartOffset(start), franz.ConsumeResetOffset(reset))
	if c.GroupID == "" {
		return opts, nil
	}
	// Group settings are checked here (not at Subscribe) so New rejects
	// what kgo would.
	if c.MaxPollInterval < kgoMinGroupTimeout {
		return nil, unsupported[settings.Consumer]("MaxPollInterval", c.MaxPollInterval,
			"kgo's RebalanceTimeout must be >= 100ms")
	}
	if c.EnableAutoCommit && c.AutoCommitInterval < kgoMinAutoCommit {
		return nil, unsupported[settings.Consumer]("AutoCommitInterval", c.AutoCommitInterval,
			"kgo's AutoCommitInterval must be >= 100ms")
	}
	return opts, nil
}

// groupOpts are the options of a subscribed (group) client.
func groupOpts(c consumer.Config, p Protocol) []franz.Opt {
	opts := []franz.Opt{
		franz.ConsumerGroup(c.GroupID),
		franz.RebalanceTimeout(c.MaxPollInterval),
	}
	if c.GroupInstanceID != "" {
		opts = append(opts, franz.InstanceID(c.GroupInstanceID))
	}
	if p == ProtocolConsumer {
		// KIP-848 with the default cooperative-sticky balancer, which
		// kgo maps to the broker's "uniform" assignor. kgo falls back to
		// the classic protocol if the broker lacks
		// ConsumerGroupHeartbeat v1; Consumer.Protocol reports what ran.
		opts = append(opts, franz.ServerSideBalancer())
	}
	if c.EnableAutoCommit {
		opts = append(opts, franz.AutoCommitInterval(c.AutoCommitInterval))
	} else {
		opts = append(opts, franz.DisableAutoCommit())
	}
	return opts
}

// offsetsFor maps auto.offset.reset to kgo's start offset (no committed
// offset) and reset offset (OffsetOutOfRange): Java uses the one setting for
// both.
func offsetsFor(reset string) (start, onReset franz.Offset) {
	switch reset {
	case group.ResetEarliest:
		return franz.NewOffset().AtStart(), franz.NewOffset().AtStart()
	case group.ResetNone:
		// No commit: the partition is not consumed (kgo's fatal
		// partition state, surfaced by PollRecords); out of range: an
		// error instead of a reset.
		return franz.NewOffset().AtCommitted(), franz.NoResetOffset()
	default:
		return franz.NewOffset().AtEnd(), franz.NewOffset().AtEnd()
	}
}

// shareOpts maps consumer.ShareConfig to kgo options of a share client.
func shareOpts(s consumer.ShareConfig) ([]franz.Opt, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	c := consumer.DefaultConfig()
	c.BootstrapServers, c.ClientID = s.BootstrapServers, s.ClientID
	c.RetryBackoff, c.RetryBackoffMax, c.RequestTimeout = s.RetryBackoff, s.RetryBackoffMax, s.RequestTimeout
	c.MetadataMaxAge, c.FetchMaxWait = s.MetadataMaxAge, s.FetchMaxWait
	c.FetchMaxBytes, c.MaxPartitionFetchBytes = s.FetchMaxBytes, s.MaxPartitionFetchBytes
	c.Dial, c.Logger = s.Dial, s.Logger
	opts, err := clientOpts(c)
	if err != nil {
		return nil, err
	}
	if s.MaxPollRecords > math.MaxInt32 {
		return nil, unsupported[settings.Share]("MaxPollRecords", s.MaxPollRecords, "ShareFetch MaxRecords is an int32")
	}
	// Java's max.poll.records is also the ShareFetch MaxRecords.
	opts = append(opts, franz.ShareGroup(s.GroupID), franz.ShareMaxRecords(int32(s.MaxPollRecords)))
	return opts, nil
}

// javaBackoff is Java's retry backoff (ExponentialBackoff with base 2 and
// jitter 0.2, CommonClientConfigs): initial x 2^(fails-1), capped at max,
// then scaled by a random factor in [0.8, 1.2]. kgo calls it with the
// number of consecutive failures (1 on the first retry).
func javaBackoff(initial, maxBackoff time.Duration) func(int) time.Duration {
	return func(fails int) time.Duration {
		d := maxBackoff
		if exp := max(fails-1, 0); exp < 62 {
			if term := float64(initial) * math.Pow(javaBackoffExpBase, float64(exp)); term < float64(maxBackoff) {
				d = time.Duration(term)
			}
		}
		jitter := 1 - javaBackoffJitter + 2*javaBackoffJitter*rand.Float64()
		return time.Duration(float64(d) * jitter)
	}
}
