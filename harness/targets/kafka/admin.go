package kafka

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/managers"
)

// adminClientID is the client id of the target's admin requests.
const adminClientID = "kreactor-harness-admin"

// admin returns a kadm client straight to the brokers (not through the
// proxy: a spec's faults must not hide the cluster's state from the spec).
// The caller must Close it.
func (k *cluster) admin() (*kadm.Client, error) {
	return k.kc.Admin(kgo.ClientID(adminClientID))
}

// GroupInfo describes group as a KIP-848 consumer group
// (ConsumerGroupDescribe) or, failing that, as a KIP-932 share group
// (ShareGroupDescribe), and for a consumer group or a group that is
// neither (offsets committed without membership) reads its committed
// offsets (OffsetFetch; topics committed by id are named by kgo). A group
// the coordinator does not know has Exists false and no commits.
func (k *cluster) GroupInfo(ctx context.Context, group string) (harness.GroupInfo, error) {
	adm, err := k.admin()
	if err != nil {
		return harness.GroupInfo{}, err
	}
	defer adm.Close()
	out := harness.GroupInfo{Commits: map[managers.TopicPartition]int64{}}
	cgs, err := adm.DescribeConsumerGroups(ctx, group)
	if err != nil {
		return out, fmt.Errorf("kafka target: describe consumer group %q: %w", group, err)
	}
	if g, ok := cgs[group]; ok && g.Err == nil {
		out.Exists, out.State, out.Epoch = true, g.State, g.Epoch
		for _, m := range g.Members {
			out.Members = append(out.Members, member(m.MemberID, m.ClientID, m.Assignment))
		}
	} else {
		sgs, err := adm.DescribeShareGroups(ctx, group)
		if err != nil {
			return out, fmt.Errorf("kafka target: describe share group %q: %w", group, err)
		}
		if g, ok := sgs[group]; ok && g.Err == nil {
			out.Exists, out.State, out.Epoch = true, g.GroupState, g.GroupEpoch
			for _, m := range g.Members {
				out.Members = append(out.Members, member(m.MemberID, m.ClientID, m.Assignment))
			}
			return out, nil // share groups keep share-partition state, not committed offsets
		}
	}
	offsets, err := adm.FetchOffsets(ctx, group)
	if errors.Is(err, kerr.GroupIDNotFound) {
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("kafka target: fetch offsets of group %q: %w", group, err)
	}
	offsets.Each(func(o kadm.OffsetResponse) {
		if o.Err == nil && o.At >= 0 {
			out.Commits[managers.TopicPartition{Topic: o.Topic, Partition: o.Partition}] = o.At
		}
	})
	return out, nil
}

// member is a group member with the partitions in its assignment counted.
func member(id, client string, assignment kadm.TopicsSet) harness.GroupMember {
	n := 0
	for _, ps := range assignment {
		n += len(ps)
	}
	return harness.GroupMember{MemberID: id, ClientID: client, Assigned: n}
}

// SetGroupConfigs sets dynamic configs of one group with an
// IncrementalAlterConfigs request for resource type GROUP_CONFIG. This is
// the one raw admin request left: kadm v1.20.0 alters topic and broker
// configs (AlterTopicConfigs, AlterBrokerConfigs) but has no call for group
// configs (KIP-848 / KIP-932 group-level configs such as
// share.auto.offset.reset).
func (k *cluster) SetGroupConfigs(ctx context.Context, group string, configs map[string]string) error {
	cl, err := k.kc.Client(kgo.ClientID(adminClientID))
	if err != nil {
		return err
	}
	defer cl.Close()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	r := kmsg.NewIncrementalAlterConfigsRequestResource()
	r.ResourceType = kmsg.ConfigResourceTypeGroupConfig
	r.ResourceName = group
	for _, key := range slices.Sorted(maps.Keys(configs)) {
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name = key
		c.Value = kmsg.StringPtr(configs[key])
		r.Configs = append(r.Configs, c)
	}
	req.Resources = append(req.Resources, r)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	for _, r := range resp.Resources {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			return fmt.Errorf("kafka target: configs of group %q: %w", group, err)
		}
	}
	return nil
}

// deleteTopics deletes the spec's topics (already gone is fine).
func (k *cluster) deleteTopics() error {
	if len(k.topics) == 0 {
		return nil
	}
	adm, err := k.admin()
	if err != nil {
		return err
	}
	defer adm.Close()
	adm.SetTimeoutMillis(int32(topicTimeout.Milliseconds()))
	ctx, cancel := context.WithTimeout(context.Background(), topicTimeout)
	defer cancel()
	resp, err := adm.DeleteTopics(ctx, slices.Sorted(maps.Keys(k.topics))...)
	if err != nil {
		return fmt.Errorf("kafka target: delete topics: %w", err)
	}
	for _, t := range resp.Sorted() {
		if t.Err != nil && !errors.Is(t.Err, kerr.UnknownTopicOrPartition) {
			return fmt.Errorf("kafka target: delete topic %q: %w", t.Topic, t.Err)
		}
	}
	return nil
}

// Coordinator returns the node id of group's coordinator (FindCoordinator
// through kadm).
func (k *cluster) Coordinator(ctx context.Context, group string) (int32, error) {
	adm, err := k.admin()
	if err != nil {
		return -1, err
	}
	defer adm.Close()
	c, ok := adm.FindGroupCoordinators(ctx, group)[group]
	if !ok {
		return -1, fmt.Errorf("kafka target: FindCoordinator for %q: no answer for the group", group)
	}
	if c.Err != nil {
		return -1, fmt.Errorf("kafka target: FindCoordinator for %q: %w", group, c.Err)
	}
	return c.NodeID, nil
}

// DeleteRecords implements harness.LogTrimmer with kadm's DeleteRecords
// (the real broker's memory is not the test process's, but trimming keeps
// the run the same on both targets).
func (k *cluster) DeleteRecords(ctx context.Context, topic string, partition int32, offset int64) error {
	adm, err := k.admin()
	if err != nil {
		return err
	}
	defer adm.Close()
	adm.SetTimeoutMillis(int32(topicTimeout.Milliseconds()))
	var os kadm.Offsets
	os.Add(kadm.Offset{Topic: topic, Partition: partition, At: offset})
	resp, err := adm.DeleteRecords(ctx, os)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		return fmt.Errorf("kafka target: delete records %s/%d below %d: %w", topic, partition, offset, err)
	}
	return nil
}

// CreateTopic implements harness.TopicCreator: the topic is the spec's
// (deleted at Close), created with its configs.
func (k *cluster) CreateTopic(ctx context.Context, topic string, partitions int32, configs map[string]string) error {
	if err := createTopicRetrying(ctx, k.kc, topic, partitions, configs); err != nil {
		return err
	}
	k.topics[topic] = partitions
	return nil
}
