package harness

// The "kafka" target: real Apache Kafka (KRaft) in Docker via package
// containers, behind a recording, fault-injecting proxy per spec
// (containers/proxy), so specs use the same recorder and fault vocabulary as
// on kfake. Starting three brokers takes seconds, so clusters are pooled per
// process (one per broker count and configuration): each spec gets a fresh
// proxy and its own topics, which are deleted when it closes, and unique
// group ids; CloseSharedClusters terminates the pool (call it from
// AfterSuite, before the leak check).

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/containers"
	"github.com/kreactor/kreactor/containers/proxy"
	"github.com/kreactor/kreactor/fakebroker"
	"github.com/kreactor/kreactor/managers"
)

// Kafka is the real-Kafka target (Apache Kafka 4.4.0 by default; the image
// is containers.ResolveImage's: $KREACTOR_KAFKA_IMAGE or the local build).
type Kafka struct{}

// Name is "kafka".
func (Kafka) Name() string { return "kafka" }

// topicTimeout bounds creating and deleting a spec's topics.
const topicTimeout = 60 * time.Second

type poolKey struct {
	brokers        int
	heartbeat      time.Duration
	sessionTimeout time.Duration
	lock           time.Duration
}

var kafkaPool struct {
	mu       sync.Mutex // guards clusters
	clusters map[poolKey]*containers.Cluster
}

// CloseSharedClusters terminates the clusters the kafka target pooled. Safe
// to call when none were started.
func CloseSharedClusters() error {
	kafkaPool.mu.Lock()
	defer kafkaPool.mu.Unlock()
	var errs []error
	for k, c := range kafkaPool.clusters {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		errs = append(errs, c.Terminate(ctx))
		cancel()
		delete(kafkaPool.clusters, k)
	}
	return errors.Join(errs...)
}

func sharedCluster(ctx context.Context, k poolKey, cfg TargetConfig) (*containers.Cluster, error) {
	kafkaPool.mu.Lock()
	defer kafkaPool.mu.Unlock()
	if c := kafkaPool.clusters[k]; c != nil {
		return c, nil
	}
	ms := func(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }
	conf := map[string]string{
		"group.consumer.heartbeat.interval.ms":    ms(k.heartbeat),
		"group.share.heartbeat.interval.ms":       ms(k.heartbeat),
		"group.share.record.lock.duration.ms":     ms(k.lock),
		"group.share.min.record.lock.duration.ms": ms(min(k.lock, time.Second)),
	}
	if k.sessionTimeout > 0 {
		conf["group.consumer.session.timeout.ms"] = ms(k.sessionTimeout)
		conf["group.share.session.timeout.ms"] = ms(k.sessionTimeout)
	}
	c, err := containers.StartCluster(ctx, containers.Options{Brokers: k.brokers, Config: conf, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	if kafkaPool.clusters == nil {
		kafkaPool.clusters = map[poolKey]*containers.Cluster{}
	}
	kafkaPool.clusters[k] = c
	return c, nil
}

// Start gets (or starts) a pooled cluster, creates cfg.Topics on it and puts
// a fresh proxy in front. Errors: containers.ErrNoDocker / ErrNoImage when
// Docker or the image is missing, a topic that cannot be created.
func (Kafka) Start(ctx context.Context, cfg TargetConfig) (Cluster, error) {
	k := poolKey{brokers: cfg.Brokers, heartbeat: cfg.HeartbeatInterval, sessionTimeout: cfg.SessionTimeout, lock: cfg.ShareLockDuration}
	if k.brokers == 0 {
		k.brokers = 3
	}
	if k.heartbeat == 0 {
		k.heartbeat = DefaultHeartbeatInterval
	}
	if k.lock == 0 {
		k.lock = DefaultShareLockDuration
	}
	kc, err := sharedCluster(ctx, k, cfg)
	if err != nil {
		return nil, err
	}
	tctx, cancel := context.WithTimeout(ctx, topicTimeout)
	defer cancel()
	kcl := &kafkaCluster{kc: kc, brokers: k.brokers, heartbeat: k.heartbeat, topics: map[string]int32{}}
	for _, name := range slices.Sorted(mapKeys(cfg.Topics)) {
		if err := createTopicRetrying(tctx, kc, name, cfg.Topics[name]); err != nil {
			kcl.deleteTopics()
			return nil, err
		}
		kcl.topics[name] = cfg.Topics[name]
	}
	p, err := proxy.Start(ctx, proxy.Config{Upstream: kc.BootstrapAddrs(), Logger: cfg.Logger})
	if err != nil {
		kcl.deleteTopics()
		return nil, err
	}
	kcl.p = p
	return kcl, nil
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// createTopicRetrying creates a topic whose earlier incarnation (same name,
// a previous spec) may still be being deleted.
func createTopicRetrying(ctx context.Context, kc *containers.Cluster, name string, parts int32) error {
	for {
		err := kc.CreateTopic(ctx, name, parts)
		if err == nil || !errors.Is(err, kerr.TopicAlreadyExists) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("create topic %q: still being deleted: %w", name, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

type kafkaCluster struct {
	kc        *containers.Cluster
	p         *proxy.Proxy
	brokers   int
	heartbeat time.Duration
	topics    map[string]int32
	stopped   []*stoppedBroker // healed at Close: the cluster is shared
	closeOnce sync.Once
}

func (k *kafkaCluster) Target() string                   { return Kafka{}.Name() }
func (k *kafkaCluster) Addrs() []string                  { return k.p.Addrs() }
func (k *kafkaCluster) Brokers() int                     { return k.brokers }
func (k *kafkaCluster) HeartbeatInterval() time.Duration { return k.heartbeat }
func (k *kafkaCluster) Recorder() Recorder               { return k.p.Recorder() }

// Produce writes through the proxy (so faults apply to the producer too,
// as on kfake) with fakebroker's producer.
func (k *kafkaCluster) Produce(ctx context.Context, topic string, n int, fn func(i int) (key, value []byte)) (map[int32]int, error) {
	parts, ok := k.topics[topic]
	if !ok {
		return nil, fmt.Errorf("harness: produce to %q: not a topic of this cluster", topic)
	}
	return fakebroker.ProduceTo(ctx, k.p.Addrs(), topic, parts, n, fn)
}

// admin returns a client straight to the brokers (not through the proxy: a
// spec's faults must not hide the cluster's state from the spec).
func (k *kafkaCluster) admin() (*kgo.Client, error) {
	return k.kc.Client(kgo.ClientID("kreactor-harness-admin"))
}

func (k *kafkaCluster) GroupInfo(ctx context.Context, group string) (GroupInfo, error) {
	cl, err := k.admin()
	if err != nil {
		return GroupInfo{}, err
	}
	defer cl.Close()
	out := GroupInfo{Commits: map[managers.TopicPartition]int64{}}
	names, err := topicNames(ctx, cl)
	if err != nil {
		return out, err
	}
	count := func(tps []kmsg.AssignmentTopicPartition) int {
		n := 0
		for _, t := range tps {
			n += len(t.Partitions)
		}
		return n
	}
	creq := kmsg.NewPtrConsumerGroupDescribeRequest()
	creq.Groups = []string{group}
	cresp, err := creq.RequestWith(ctx, cl)
	if err != nil {
		return out, err
	}
	if len(cresp.Groups) == 1 && cresp.Groups[0].ErrorCode == 0 {
		g := cresp.Groups[0]
		out.Exists, out.State, out.Epoch = true, g.State, g.Epoch
		for _, m := range g.Members {
			out.Members = append(out.Members, GroupMember{MemberID: m.MemberID, ClientID: m.ClientID, Assigned: count(m.Assignment.TopicPartitions)})
		}
	} else {
		sreq := kmsg.NewPtrShareGroupDescribeRequest()
		sreq.GroupIDs = []string{group}
		sresp, err := sreq.RequestWith(ctx, cl)
		if err != nil {
			return out, err
		}
		if len(sresp.Groups) == 1 && sresp.Groups[0].ErrorCode == 0 {
			g := sresp.Groups[0]
			out.Exists, out.State, out.Epoch = true, g.GroupState, g.GroupEpoch
			for _, m := range g.Members {
				n := 0
				for _, t := range m.Assignment.TopicPartitions {
					n += len(t.Partitions)
				}
				out.Members = append(out.Members, GroupMember{MemberID: m.MemberID, ClientID: m.ClientID, Assigned: n})
			}
			return out, nil
		}
	}
	oreq := kmsg.NewPtrOffsetFetchRequest()
	g := kmsg.NewOffsetFetchRequestGroup()
	g.Group = group
	oreq.Groups = []kmsg.OffsetFetchRequestGroup{g} // nil Topics: every committed partition
	oresp, err := oreq.RequestWith(ctx, cl)
	if err != nil {
		return out, err
	}
	for _, g := range oresp.Groups {
		for _, t := range g.Topics {
			name := t.Topic
			if name == "" {
				name = names[t.TopicID]
			}
			for _, p := range t.Partitions {
				if p.Offset >= 0 {
					out.Commits[managers.TopicPartition{Topic: name, Partition: p.Partition}] = p.Offset
				}
			}
		}
	}
	return out, nil
}

func topicNames(ctx context.Context, cl *kgo.Client) (map[[16]byte]string, error) {
	resp, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	out := map[[16]byte]string{}
	for _, t := range resp.Topics {
		if t.Topic != nil {
			out[t.TopicID] = *t.Topic
		}
	}
	return out, nil
}

func (k *kafkaCluster) SetGroupConfigs(ctx context.Context, group string, configs map[string]string) error {
	return k.alterConfigs(ctx, kmsg.ConfigResourceTypeGroupConfig, group, configs)
}

// alterConfigs sets configs of one resource with IncrementalAlterConfigs.
func (k *kafkaCluster) alterConfigs(ctx context.Context, typ kmsg.ConfigResourceType, name string, configs map[string]string) error {
	cl, err := k.admin()
	if err != nil {
		return err
	}
	defer cl.Close()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	r := kmsg.NewIncrementalAlterConfigsRequestResource()
	r.ResourceType = typ
	r.ResourceName = name
	for _, key := range slices.Sorted(mapKeys(configs)) {
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
			return fmt.Errorf("harness: configs of %s %q: %w", typ, name, err)
		}
	}
	return nil
}

func (k *kafkaCluster) CoordinatorUnavailable(ctx context.Context, group string) (Fault, error) {
	return k.Inject(ctx, FaultSpec{Kind: FaultCoordinatorUnavailable, Group: group})
}

func (k *kafkaCluster) Inject(_ context.Context, spec FaultSpec) (Fault, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	var f *proxy.Fault
	var err error
	switch spec.Kind {
	case FaultCoordinatorUnavailable:
		f, err = k.p.CoordinatorUnavailable(spec.Group)
	case FaultError:
		f, err = k.p.AnswerError(proxy.ErrorSpec{Key: spec.Key, Err: spec.Err, Topic: spec.Topic, When: spec.When})
	case FaultHold:
		f, err = k.p.Hold(spec.Key)
	case FaultDelay:
		f, err = k.p.Delay(spec.Key, spec.Delay)
	case FaultBrokersDown:
		f, err = k.p.BrokersDown()
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (k *kafkaCluster) Observe(_ context.Context, key kmsg.Key, fn func(Observed)) (Fault, error) {
	if fn == nil {
		return nil, errors.New("harness: Observe with a nil fn")
	}
	return k.p.Observe(key, func(at time.Time, req kmsg.Request) { fn(Observed{At: at, Req: req}) })
}

// Close closes the proxy (healing its faults) and deletes the spec's topics;
// the pooled cluster stays for the next spec.
func (k *kafkaCluster) Close() error {
	var err error
	k.closeOnce.Do(func() {
		var errs []error
		for _, s := range k.stopped {
			s.Heal()
			errs = append(errs, s.err)
		}
		err = errors.Join(append(errs, k.p.Close(), k.deleteTopics())...)
	})
	return err
}

func (k *kafkaCluster) deleteTopics() error {
	if len(k.topics) == 0 {
		return nil
	}
	cl, err := k.admin()
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), topicTimeout)
	defer cancel()
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.TimeoutMillis = int32(topicTimeout.Milliseconds())
	for _, name := range slices.Sorted(mapKeys(k.topics)) {
		t := kmsg.NewDeleteTopicsRequestTopic()
		t.Topic = kmsg.StringPtr(name)
		req.Topics = append(req.Topics, t)
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	for _, t := range resp.Topics {
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil && !errors.Is(err, kerr.UnknownTopicOrPartition) {
			return fmt.Errorf("harness: delete topic: %w", err)
		}
	}
	return nil
}

func (k *kafkaCluster) Coordinator(ctx context.Context, group string) (int32, error) {
	cl, err := k.admin()
	if err != nil {
		return -1, err
	}
	defer cl.Close()
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.CoordinatorKeys = []string{group}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return -1, err
	}
	if len(resp.Coordinators) != 1 {
		return -1, fmt.Errorf("harness: FindCoordinator for %q: %d coordinators in the answer", group, len(resp.Coordinators))
	}
	c := resp.Coordinators[0]
	if err := kerr.ErrorForCode(c.ErrorCode); err != nil {
		return -1, fmt.Errorf("harness: FindCoordinator for %q: %w", group, err)
	}
	return c.NodeID, nil
}

// StopBroker stops the container of node (controlled shutdown); healing
// starts it again and waits until it serves. The pooled cluster is shared,
// so a spec must heal what it stopped (Close does it).
func (k *kafkaCluster) StopBroker(ctx context.Context, node int32) (Fault, error) {
	if err := k.kc.Stop(ctx, node); err != nil {
		return nil, err
	}
	f := &stoppedBroker{kc: k.kc, node: node}
	k.stopped = append(k.stopped, f)
	return f, nil
}

// stoppedBroker is a StopBroker fault on a real cluster.
type stoppedBroker struct {
	kc   *containers.Cluster
	node int32
	once sync.Once
	err  error
}

// Heal restarts the node and waits until it serves (errors are kept for
// Close).
func (s *stoppedBroker) Heal() {
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), containers.DefaultStartupTimeout)
		defer cancel()
		s.err = s.kc.Start(ctx, s.node)
	})
}

// Hits is 1: the stop itself.
func (s *stoppedBroker) Hits() int { return 1 }

// DeleteRecords implements LogTrimmer with a DeleteRecords request (the
// real broker's memory is not the test process's, but trimming keeps the
// run the same on both targets).
func (k *kafkaCluster) DeleteRecords(ctx context.Context, topic string, partition int32, offset int64) error {
	cl, err := k.admin()
	if err != nil {
		return err
	}
	defer cl.Close()
	req := kmsg.NewPtrDeleteRecordsRequest()
	req.TimeoutMillis = int32(topicTimeout.Milliseconds())
	t := kmsg.NewDeleteRecordsRequestTopic()
	t.Topic = topic
	p := kmsg.NewDeleteRecordsRequestTopicPartition()
	p.Partition, p.Offset = partition, offset
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return fmt.Errorf("harness: delete records %s/%d below %d: %w", topic, partition, offset, err)
			}
		}
	}
	return nil
}

// CreateTopic implements TopicCreator: the topic is the spec's (deleted at
// Close) and its configs are set with IncrementalAlterConfigs.
func (k *kafkaCluster) CreateTopic(ctx context.Context, topic string, partitions int32, configs map[string]string) error {
	if err := createTopicRetrying(ctx, k.kc, topic, partitions); err != nil {
		return err
	}
	k.topics[topic] = partitions
	if len(configs) == 0 {
		return nil
	}
	return k.alterConfigs(ctx, kmsg.ConfigResourceTypeTopic, topic, configs)
}
