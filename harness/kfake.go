package harness

import (
	"strconv"
	"time"

	"context"

	"github.com/kreactor/kreactor/fakebroker"
	"github.com/kreactor/kreactor/managers"
)

// Kfake is the in-process target: franz-go's kfake behind fakebroker (request
// recorder and fault helpers). Its clusters listen on 127.0.0.1 random ports.
type Kfake struct{}

// Name is "kfake".
func (Kfake) Name() string { return "kfake" }

// Start starts a fakebroker cluster. ctx is unused: kfake starts in
// microseconds.
func (Kfake) Start(_ context.Context, cfg TargetConfig) (Cluster, error) {
	hb := cfg.HeartbeatInterval
	if hb == 0 {
		hb = DefaultHeartbeatInterval
	}
	b, err := fakebroker.Start(fakebroker.Config{
		Brokers:           cfg.Brokers,
		Topics:            cfg.Topics,
		HeartbeatInterval: hb,
		SessionTimeout:    cfg.SessionTimeout,
		BrokerConfigs:     shareBrokerConfigs(cfg),
		Logger:            cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	return &kfakeCluster{b: b}, nil
}

type kfakeCluster struct{ b *fakebroker.Broker }

func (k *kfakeCluster) Target() string     { return Kfake{}.Name() }
func (k *kfakeCluster) Addrs() []string    { return k.b.Addrs() }
func (k *kfakeCluster) Brokers() int       { return k.b.Config().Brokers }
func (k *kfakeCluster) Recorder() Recorder { return k.b.Recorder() }

func (k *kfakeCluster) HeartbeatInterval() time.Duration { return k.b.Config().HeartbeatInterval }

func (k *kfakeCluster) Produce(ctx context.Context, topic string, n int, fn func(i int) (key, value []byte)) (map[int32]int, error) {
	return k.b.Produce(ctx, topic, n, fn)
}

func (k *kfakeCluster) GroupInfo(_ context.Context, group string) (GroupInfo, error) {
	gi := k.b.GroupInfo(group)
	if gi == nil {
		return GroupInfo{}, nil
	}
	out := GroupInfo{Exists: true, State: gi.State, Epoch: gi.Epoch, Commits: map[managers.TopicPartition]int64{}}
	for i := range gi.Members {
		m := &gi.Members[i]
		out.Members = append(out.Members, GroupMember{MemberID: m.MemberID, ClientID: m.ClientID, Assigned: m.NumAssigned()})
	}
	for topic, ps := range gi.Commits {
		for p, c := range ps {
			out.Commits[managers.TopicPartition{Topic: topic, Partition: p}] = c.Offset
		}
	}
	return out, nil
}

func (k *kfakeCluster) CoordinatorUnavailable(_ context.Context, group string) (Fault, error) {
	h, err := k.b.CoordinatorUnavailable(group)
	if err != nil {
		return nil, err
	}
	return h, nil
}

func (k *kfakeCluster) Close() error {
	k.b.Close()
	return nil
}

// shareBrokerConfigs lowers the share groups' acquisition lock and its sweep
// so lock-expiry specs take seconds.
func shareBrokerConfigs(cfg TargetConfig) map[string]string {
	lock := cfg.ShareLockDuration
	if lock == 0 {
		lock = DefaultShareLockDuration
	}
	return map[string]string{
		"group.share.record.lock.duration.ms": strconv.FormatInt(lock.Milliseconds(), 10),
		"share.record.lock.sweep.interval.ms": strconv.FormatInt(max(lock.Milliseconds()/10, 10), 10),
	}
}

func (k *kfakeCluster) SetGroupConfigs(_ context.Context, group string, configs map[string]string) error {
	k.b.Cluster().SetGroupConfigs(group, configs)
	return nil
}

func (k *kfakeCluster) Coordinator(_ context.Context, group string) (int32, error) {
	return k.b.CoordinatorFor(group), nil
}

func (k *kfakeCluster) StopBroker(_ context.Context, node int32) (Fault, error) {
	h, err := k.b.StopNode(node)
	if err != nil {
		return nil, err
	}
	return h, nil
}
