package java

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/kreactor/kreactor/consumer"
)

// Properties maps a harness consumer.Config onto Java consumer properties,
// with group.protocol=consumer (KIP-848, as our reactor). Every field that
// has a Java setting is set, so both subjects run the same configuration;
// MaxBufferedRecords (no Java setting) and Logger are ignored. Config.Dial
// cannot be honoured by a JVM and is an error. Put extra or overriding
// properties (group.protocol=classic, ...) over the result.
func Properties(c consumer.Config) (map[string]string, error) {
	if c.Dial != nil {
		return nil, errors.New("java subject: Config.Dial (e.g. kfake's virtual network) cannot be used by a Java consumer")
	}
	p := common(c.BootstrapServers, c.ClientID, c.RetryBackoff, c.RetryBackoffMax, c.RequestTimeout,
		c.DefaultAPITimeout, c.MetadataMaxAge, c.MaxPollRecords, c.FetchMaxWait, c.FetchMaxBytes, c.MaxPartitionFetchBytes)
	connection(p, c.ReconnectBackoff, c.ReconnectBackoffMax, c.SocketConnectionSetupTimeout, c.SocketConnectionSetupTimeoutMax)
	p["group.protocol"] = "consumer"
	if c.GroupID != "" {
		p["group.id"] = c.GroupID
	}
	if c.GroupInstanceID != "" {
		p["group.instance.id"] = c.GroupInstanceID
	}
	p["auto.offset.reset"] = c.AutoOffsetReset
	p["enable.auto.commit"] = strconv.FormatBool(c.EnableAutoCommit)
	p["auto.commit.interval.ms"] = ms(c.AutoCommitInterval)
	p["max.poll.interval.ms"] = ms(c.MaxPollInterval)
	p["fetch.min.bytes"] = strconv.Itoa(int(c.FetchMinBytes))
	p["isolation.level"] = c.IsolationLevel
	return p, nil
}

// ShareProperties maps a consumer.ShareConfig onto Java share consumer
// properties (see Properties).
func ShareProperties(c consumer.ShareConfig) (map[string]string, error) {
	if c.Dial != nil {
		return nil, errors.New("java subject: ShareConfig.Dial cannot be used by a Java consumer")
	}
	p := common(c.BootstrapServers, c.ClientID, c.RetryBackoff, c.RetryBackoffMax, c.RequestTimeout,
		c.DefaultAPITimeout, c.MetadataMaxAge, c.MaxPollRecords, c.FetchMaxWait, c.FetchMaxBytes, c.MaxPartitionFetchBytes)
	connection(p, c.ReconnectBackoff, c.ReconnectBackoffMax, c.SocketConnectionSetupTimeout, c.SocketConnectionSetupTimeoutMax)
	p["group.id"] = c.GroupID
	p["max.poll.interval.ms"] = ms(c.MaxPollInterval)
	return p, nil
}

// connection sets the per-broker connection settings both consumers share.
func connection(p map[string]string, reconnect, reconnectMax, setup, setupMax time.Duration) {
	p["reconnect.backoff.ms"] = ms(reconnect)
	p["reconnect.backoff.max.ms"] = ms(reconnectMax)
	p["socket.connection.setup.timeout.ms"] = ms(setup)
	p["socket.connection.setup.timeout.max.ms"] = ms(setupMax)
}

func common(servers []string, clientID string, backoff, backoffMax, reqTimeout, apiTimeout, metaAge time.Duration,
	maxPoll int, fetchWait time.Duration, fetchMax, partMax int32) map[string]string {
	return map[string]string{
		"bootstrap.servers":         strings.Join(servers, ","),
		"client.id":                 clientID,
		"retry.backoff.ms":          ms(backoff),
		"retry.backoff.max.ms":      ms(backoffMax),
		"request.timeout.ms":        ms(reqTimeout),
		"default.api.timeout.ms":    ms(apiTimeout),
		"metadata.max.age.ms":       ms(metaAge),
		"max.poll.records":          strconv.Itoa(maxPoll),
		"fetch.max.wait.ms":         ms(fetchWait),
		"fetch.max.bytes":           strconv.Itoa(int(fetchMax)),
		"max.partition.fetch.bytes": strconv.Itoa(int(partMax)),
	}
}

func ms(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }
