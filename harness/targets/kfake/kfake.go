package kfake

import (
	"context"
	"strconv"
	"time"

	"github.com/kreactor/kreactor/fakebroker"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/managers"
)

// Name is the target's name in `target:` labels and KREACTOR_TARGET.
const Name = "kfake"

// RawName is Raw's name in `target:` labels and KREACTOR_TARGET.
const RawName = "kfake-raw"

// Target is the in-process target.
type Target struct{}

var _ harness.Target = Target{}

// Name is "kfake".
func (Target) Name() string { return Name }

// Start starts a fakebroker cluster. ctx is unused: kfake starts in
// microseconds.
func (Target) Start(_ context.Context, cfg harness.TargetConfig) (harness.Cluster, error) {
	return start(Name, cfg, false)
}

// Raw is the in-process target with kfake's own answers
// (fakebroker.Config.KfakeAnswers): where kfake answers differently from
// Apache Kafka 4.4, its brokers answer as kfake does (OffsetFetch for a
// group that never committed: GROUP_ID_NOT_FOUND; see package fakebroker,
// answers.go, for every correction it lacks). specs/fidelity fails on it
// exactly where kfake differs.
type Raw struct{}

var _ harness.Target = Raw{}

// Name is "kfake-raw".
func (Raw) Name() string { return RawName }

// Start starts a fakebroker cluster answering as kfake does. ctx is unused.
func (Raw) Start(_ context.Context, cfg harness.TargetConfig) (harness.Cluster, error) {
	return start(RawName, cfg, true)
}

// start starts a fakebroker cluster for the target name; raw turns off
// fakebroker's Kafka-faithful answers.
func start(name string, cfg harness.TargetConfig, raw bool) (harness.Cluster, error) {
	hb := cfg.HeartbeatInterval
	if hb == 0 {
		hb = harness.DefaultHeartbeatInterval
	}
	b, err := fakebroker.Start(fakebroker.Config{
		Brokers:           cfg.Brokers,
		Topics:            cfg.Topics,
		HeartbeatInterval: hb,
		SessionTimeout:    cfg.SessionTimeout,
		BrokerConfigs:     shareBrokerConfigs(cfg),
		Logger:            cfg.Logger,
		KfakeAnswers:      raw,
	})
	if err != nil {
		return nil, err
	}
	return &cluster{b: b, name: name}, nil
}

// shareBrokerConfigs lowers the share groups' acquisition lock and its sweep
// so lock-expiry specs take seconds.
func shareBrokerConfigs(cfg harness.TargetConfig) map[string]string {
	lock := cfg.ShareLockDuration
	if lock == 0 {
		lock = harness.DefaultShareLockDuration
	}
	return map[string]string{
		"group.share.record.lock.duration.ms": strconv.FormatInt(lock.Milliseconds(), 10),
		"share.record.lock.sweep.interval.ms": strconv.FormatInt(max(lock.Milliseconds()/10, 10), 10),
	}
}

// cluster is one spec's fakebroker cluster.
type cluster struct {
	b    *fakebroker.Broker
	name string // the target that started it
}

var (
	_ harness.Cluster      = (*cluster)(nil)
	_ harness.LogTrimmer   = (*cluster)(nil)
	_ harness.TopicCreator = (*cluster)(nil)
)

func (k *cluster) Target() string             { return k.name }
func (k *cluster) Addrs() []string            { return k.b.Addrs() }
func (k *cluster) Brokers() int               { return k.b.Config().Brokers }
func (k *cluster) Recorder() harness.Recorder { return k.b.Recorder() }

func (k *cluster) HeartbeatInterval() time.Duration { return k.b.Config().HeartbeatInterval }

func (k *cluster) Produce(ctx context.Context, topic string, n int, fn func(i int) (key, value []byte)) (map[int32]int, error) {
	return k.b.Produce(ctx, topic, n, fn)
}

// GroupInfo reads the group from kfake's coordinator state.
func (k *cluster) GroupInfo(_ context.Context, group string) (harness.GroupInfo, error) {
	gi := k.b.GroupInfo(group)
	if gi == nil {
		return harness.GroupInfo{}, nil
	}
	out := harness.GroupInfo{Exists: true, State: gi.State, Epoch: gi.Epoch, Commits: map[managers.TopicPartition]int64{}}
	for i := range gi.Members {
		m := &gi.Members[i]
		out.Members = append(out.Members, harness.GroupMember{MemberID: m.MemberID, ClientID: m.ClientID, Assigned: m.NumAssigned()})
	}
	for topic, ps := range gi.Commits {
		for p, c := range ps {
			out.Commits[managers.TopicPartition{Topic: topic, Partition: p}] = c.Offset
		}
	}
	return out, nil
}

func (k *cluster) SetGroupConfigs(_ context.Context, group string, configs map[string]string) error {
	k.b.Cluster().SetGroupConfigs(group, configs)
	return nil
}

func (k *cluster) Coordinator(_ context.Context, group string) (int32, error) {
	return k.b.CoordinatorFor(group), nil
}

func (k *cluster) StopBroker(_ context.Context, node int32) (harness.Fault, error) {
	h, err := k.b.StopNode(node)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// DeleteRecords implements harness.LogTrimmer with kfake's DeleteRecords.
// ctx is unused: the cluster goroutine answers in microseconds.
func (k *cluster) DeleteRecords(_ context.Context, topic string, partition int32, offset int64) error {
	return k.b.Cluster().DeleteRecords(topic, partition, offset)
}

// CreateTopic implements harness.TopicCreator with kfake's CreateTopic. ctx
// is unused: the cluster goroutine answers in microseconds.
func (k *cluster) CreateTopic(_ context.Context, topic string, partitions int32, configs map[string]string) error {
	return k.b.Cluster().CreateTopic(topic, partitions, configs)
}

func (k *cluster) Close() error {
	k.b.Close()
	return nil
}
