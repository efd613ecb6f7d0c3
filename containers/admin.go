package containers

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// createTopicsTimeout is the broker-side timeout of a CreateTopics request.
const createTopicsTimeout = 30 * time.Second

// CreateTopic creates topic name with partitions partitions and the brokers'
// default.replication.factor (see BrokerDefaults), with a CreateTopics
// request, and returns once every running broker's metadata shows a leader
// for every partition. Errors: the broker's error code, as a kerr.Error that
// errors.Is matches (e.g. kerr.TopicAlreadyExists), with its message; or ctx
// ending first.
func (c *Cluster) CreateTopic(ctx context.Context, name string, partitions int32) error {
	cl, err := c.Client()
	if err != nil {
		return err
	}
	defer cl.Close()
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = int32(createTopicsTimeout / time.Millisecond)
	t := kmsg.NewCreateTopicsRequestTopic()
	t.Topic = name
	t.NumPartitions = partitions
	t.ReplicationFactor = -1 // the broker default
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("containers: create topic %q: %w", name, err)
	}
	if len(resp.Topics) != 1 {
		return fmt.Errorf("containers: create topic %q: %d topics in the response", name, len(resp.Topics))
	}
	if err := kerr.ErrorForCode(resp.Topics[0].ErrorCode); err != nil {
		msg := ""
		if m := resp.Topics[0].ErrorMessage; m != nil {
			msg = ": " + *m
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
