package kafka

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kreactor/kreactor/containers"
	"github.com/kreactor/kreactor/containers/proxy"
	"github.com/kreactor/kreactor/harness"
)

// Name is the target's name in `target:` labels and KREACTOR_TARGET.
const Name = "kafka"

// Target is the real-Kafka target (Apache Kafka 4.4.0 by default; the image
// is containers.ResolveImage's: $KREACTOR_KAFKA_IMAGE or the local build).
type Target struct{}

var _ harness.Target = Target{}

// Name is "kafka".
func (Target) Name() string { return Name }

// Versions implements harness.Versioned for the run's provenance: the Kafka
// image the clusters run ($KREACTOR_KAFKA_IMAGE or containers.DefaultImage),
// under harness.VersionKafkaImage.
func (Target) Versions() map[string]string {
	return map[string]string{harness.VersionKafkaImage: containers.ResolveImage("")}
}

// topicTimeout bounds creating and deleting a spec's topics.
const topicTimeout = 60 * time.Second

type poolKey struct {
	brokers        int
	heartbeat      time.Duration
	sessionTimeout time.Duration
	lock           time.Duration
}

var pool struct {
	mu       sync.Mutex // guards clusters
	clusters map[poolKey]*containers.Cluster
}

// CloseSharedClusters terminates the clusters the target pooled. Safe to
// call when none were started.
func CloseSharedClusters() error {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	var errs []error
	for k, c := range pool.clusters {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		errs = append(errs, c.Terminate(ctx))
		cancel()
		delete(pool.clusters, k)
	}
	return errors.Join(errs...)
}

func sharedCluster(ctx context.Context, k poolKey, cfg harness.TargetConfig) (*containers.Cluster, error) {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if c := pool.clusters[k]; c != nil {
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
	if pool.clusters == nil {
		pool.clusters = map[poolKey]*containers.Cluster{}
	}
	pool.clusters[k] = c
	return c, nil
}

// Start gets (or starts) a pooled cluster, creates cfg.Topics on it and puts
// a fresh proxy in front. Errors: containers.ErrNoDocker / ErrNoImage when
// Docker or the image is missing, a topic that cannot be created.
func (Target) Start(ctx context.Context, cfg harness.TargetConfig) (harness.Cluster, error) {
	k := poolKey{brokers: cfg.Brokers, heartbeat: cfg.HeartbeatInterval, sessionTimeout: cfg.SessionTimeout, lock: cfg.ShareLockDuration}
	if k.brokers == 0 {
		k.brokers = 3
	}
	if k.heartbeat == 0 {
		k.heartbeat = harness.DefaultHeartbeatInterval
	}
	if k.lock == 0 {
		k.lock = harness.DefaultShareLockDuration
	}
	kc, err := sharedCluster(ctx, k, cfg)
	if err != nil {
		return nil, err
	}
	tctx, cancel := context.WithTimeout(ctx, topicTimeout)
	defer cancel()
	c := &cluster{kc: kc, brokers: k.brokers, heartbeat: k.heartbeat, topics: map[string]int32{}}
	for _, name := range slices.Sorted(maps.Keys(cfg.Topics)) {
		if err := createTopicRetrying(tctx, kc, name, cfg.Topics[name], nil); err != nil {
			c.deleteTopics()
			return nil, err
		}
		c.topics[name] = cfg.Topics[name]
	}
	p, err := proxy.Start(ctx, proxy.Config{Upstream: kc.BootstrapAddrs(), Logger: cfg.Logger})
	if err != nil {
		c.deleteTopics()
		return nil, err
	}
	c.p = p
	return c, nil
}

// createTopicRetrying creates a topic whose earlier incarnation (same name,
// a previous spec) may still be being deleted.
func createTopicRetrying(ctx context.Context, kc *containers.Cluster, name string, parts int32, configs map[string]string) error {
	for {
		err := kc.CreateTopic(ctx, name, parts, configs)
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
