package containers

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// createTopicsTimeout is the broker-side timeout of a CreateTopics request.
const createTopicsTimeout = 30 * time.Second

// Admin returns a kadm client on a new kgo client seeded with
// BootstrapAddrs (opts are added to the kgo client's). The caller must
// Close it (which closes the kgo client too).
func (c *Cluster) Admin(opts ...kgo.Opt) (*kadm.Client, error) {
	cl, err := c.Client(opts...)
	if err != nil {
		return nil, err
	}
	return kadm.NewClient(cl), nil
}

// CreateTopic creates topic name with partitions partitions, the brokers'
// default.replication.factor (see BrokerDefaults) and configs (topic-level
// configs such as segment.bytes; nil for none), with kadm's CreateTopic,
// and returns once every running broker's metadata shows a leader for every
// partition. Errors: the broker's error code, as a kerr.Error that
// errors.Is matches (e.g. kerr.TopicAlreadyExists), with its message; or
// ctx ending first.
func (c *Cluster) CreateTopic(ctx context.Context, name string, partitions int32, configs map[string]string) error {
	adm, err := c.Admin()
	if err != nil {
		return err
	}
	defer adm.Close()
	adm.SetTimeoutMillis(int32(createTopicsTimeout / time.Millisecond))
	var cfg map[string]*string
	for k, v := range configs {
		if cfg == nil {
			cfg = make(map[string]*string, len(configs))
		}
		cfg[k] = &v
	}
	resp, err := adm.CreateTopic(ctx, partitions, -1, cfg, name) // -1: the broker default
	if err != nil {
		msg := ""
		if resp.ErrMessage != "" {
			msg = ": " + resp.ErrMessage
		}
		return fmt.Errorf("containers: create topic %q: %w%s", name, err, msg)
	}
	return c.waitTopic(ctx, name, partitions)
}

// waitTopic waits until every running broker lists topic with partitions
// partitions, each with a leader.
func (c *Cluster) waitTopic(ctx context.Context, topic string, partitions int32) error {
	var last error
	for {
		last = nil
		for id, addr := range c.runningAddrs() {
			if last = topicReady(ctx, addr, topic, partitions); last != nil {
				last = fmt.Errorf("node %d: %w", id, last)
				break
			}
		}
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("containers: topic %q not ready: %w (last probe: %v)", topic, ctx.Err(), last)
		case <-time.After(probeInterval):
		}
	}
}

func topicReady(ctx context.Context, addr, topic string, partitions int32) error {
	resp, err := metadata(ctx, addr, topic)
	if err != nil {
		return err
	}
	if len(resp.Topics) != 1 {
		return fmt.Errorf("%d topics in metadata", len(resp.Topics))
	}
	mt := resp.Topics[0]
	if err := kerr.ErrorForCode(mt.ErrorCode); err != nil {
		return err
	}
	if int32(len(mt.Partitions)) != partitions {
		return fmt.Errorf("%d of %d partitions in metadata", len(mt.Partitions), partitions)
	}
	for _, p := range mt.Partitions {
		if p.Leader < 0 || p.ErrorCode != 0 {
			return fmt.Errorf("partition %d: leader %d, %v", p.Partition, p.Leader, kerr.ErrorForCode(p.ErrorCode))
		}
	}
	return nil
}
