package kafka

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/containers"
	"github.com/kreactor/kreactor/containers/proxy"
	"github.com/kreactor/kreactor/fakebroker"
	"github.com/kreactor/kreactor/harness"
)

// cluster is one spec's view of a pooled cluster: its proxy and its topics.
type cluster struct {
	kc        *containers.Cluster
	p         *proxy.Proxy
	brokers   int
	heartbeat time.Duration
	topics    map[string]int32 // the spec's topics; deleted at Close
	stopped   []*stoppedBroker // healed at Close: the cluster is shared
	closeOnce sync.Once
}

var (
	_ harness.Cluster      = (*cluster)(nil)
	_ harness.LogTrimmer   = (*cluster)(nil)
	_ harness.TopicCreator = (*cluster)(nil)
)

func (k *cluster) Target() string                   { return Name }
func (k *cluster) Addrs() []string                  { return k.p.Addrs() }
func (k *cluster) Brokers() int                     { return k.brokers }
func (k *cluster) HeartbeatInterval() time.Duration { return k.heartbeat }
func (k *cluster) Recorder() harness.Recorder       { return k.p.Recorder() }

// Produce writes through the proxy (so faults apply to the producer too,
// as on kfake) with fakebroker's producer.
func (k *cluster) Produce(ctx context.Context, topic string, n int, fn func(i int) (key, value []byte)) (map[int32]int, error) {
	parts, ok := k.topics[topic]
	if !ok {
		return nil, fmt.Errorf("kafka target: produce to %q: not a topic of this cluster", topic)
	}
	return fakebroker.ProduceTo(ctx, k.p.Addrs(), topic, parts, n, fn)
}

func (k *cluster) CoordinatorUnavailable(ctx context.Context, group string) (harness.Fault, error) {
	return k.Inject(ctx, harness.FaultSpec{Kind: harness.FaultCoordinatorUnavailable, Group: group})
}

// Inject installs spec with the proxy's helpers (proxy.Inject).
func (k *cluster) Inject(_ context.Context, spec harness.FaultSpec) (harness.Fault, error) {
	f, err := k.p.Inject(spec)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (k *cluster) Observe(_ context.Context, key kmsg.Key, fn func(harness.Observed)) (harness.Fault, error) {
	if fn == nil {
		return nil, errors.New("kafka target: Observe with a nil fn")
	}
	return k.p.Observe(key, func(at time.Time, req kmsg.Request) { fn(harness.Observed{At: at, Req: req}) })
}

// Close closes the proxy (healing its faults) and deletes the spec's topics;
// the pooled cluster stays for the next spec.
func (k *cluster) Close() error {
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

// StopBroker stops the container of node (controlled shutdown); healing
// starts it again and waits until it serves. The pooled cluster is shared,
// so a spec must heal what it stopped (Close does it).
func (k *cluster) StopBroker(ctx context.Context, node int32) (harness.Fault, error) {
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
