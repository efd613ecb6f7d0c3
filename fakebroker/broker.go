package fakebroker

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kreactor/kreactor/internal/chans"
	"github.com/kreactor/kreactor/wire"
)

// closeDrainTimeout bounds how long Close waits for released controls to
// finish on the cluster goroutine before closing kfake anyway.
const closeDrainTimeout = 5 * time.Second

// Broker is a running fake cluster with a request Recorder and fault
// helpers. Create it with Start; Close it when done. Methods are safe for
// concurrent use.
type Broker struct {
	cfg     Config // defaults applied; read-only after Start
	cluster *kfake.Cluster
	rec     *wire.Recorder
	tap     *tap
	log     *slog.Logger

	// sessions are kfake's fetch sessions as its answers show them
	// (answers_01_fetch.go); tracked only with the corrections on.
	sessions wire.FetchSessions

	// refusals are the faults refusing the ConsumerGroupHeartbeats Kafka
	// refuses (answers_68_consumer_group_heartbeat.go), kept after every
	// fault installed through the Broker; nil with Config.KfakeAnswers.
	refuseMu sync.Mutex
	refusals *kfake.FaultHandle // guarded by refuseMu

	closing   chan struct{} // closed first thing in Close
	closeOnce sync.Once

	mu      sync.Mutex
	handles map[*Handle]struct{} // guarded by mu; installed handles
	ports   map[int32]int        // guarded by mu; node -> listen port, for restarts
	nodeMu  sync.Mutex           // serializes node removal / addition

	ctlMu     sync.Mutex
	ctlActive int           // guarded by ctlMu; control fns running
	ctlIdle   chan struct{} // guarded by ctlMu; closed when ctlActive drops to 0

	// liveMu gates cluster queries from connection goroutines (lookup):
	// Close takes it for writing and sets gone before closing kfake.
	liveMu sync.RWMutex
	gone   bool // guarded by liveMu
}

// Start validates cfg, applies defaults and starts a kfake cluster with
// cfg.Brokers brokers on 127.0.0.1 random ports, or on ports
// VirtualBasePort+node of cfg.Network. It returns a *ConfigError for an
// invalid field, or kfake's error if the cluster cannot start.
func Start(cfg Config) (*Broker, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	b := &Broker{
		cfg:     cfg,
		rec:     wire.NewRecorder(cfg.MaxRecords),
		log:     log,
		closing: make(chan struct{}),
		handles: make(map[*Handle]struct{}),
		ports:   make(map[int32]int),
	}
	b.tap = newTap(b.rec, net.Listen)
	if cfg.Network != nil {
		b.tap.listenFn = cfg.Network.Listen
	} else if cfg.ListenHost != "" || cfg.AdvertiseHost != "" {
		b.tap.listenFn = hostListen(cfg.ListenHost, cfg.AdvertiseHost)
	}
	if !cfg.KfakeAnswers {
		b.tap.answers = func(node int32) *connAnswers { return newConnAnswers(b, node) }
	}
	opts := []kfake.Opt{
		kfake.NumBrokers(cfg.Brokers),
		kfake.ListenFn(b.tap.listen),
		kfake.BrokerConfigs(cfg.brokerConfigs()),
		kfake.WithLogger(slogLogger{log}),
	}
	if cfg.Network != nil {
		ports := make([]int, cfg.Brokers)
		for i := range ports {
			ports[i] = VirtualBasePort + i
		}
		opts = append(opts, kfake.Ports(ports...))
	}
	if cfg.Network == nil && len(cfg.Ports) > 0 {
		opts = append(opts, kfake.Ports(cfg.Ports...))
	}
	// In name order, so kfake draws its topic ids in the same order in
	// every run.
	for _, t := range slices.Sorted(maps.Keys(cfg.Topics)) {
		opts = append(opts, kfake.SeedTopics(cfg.Topics[t], t))
	}
	b.cluster, err = kfake.NewCluster(opts...)
	if err != nil {
		return nil, err
	}
	b.tap.started()
	if !cfg.KfakeAnswers {
		if err := b.installFetchNothingToRead(); err != nil {
			b.cluster.Close()
			return nil, err
		}
		b.installHeartbeatRefusals()
	}
	// Right after NewCluster kfake's broker order is node order.
	for i, a := range b.cluster.ListenAddrs() {
		_, p, _ := net.SplitHostPort(a)
		b.ports[int32(i)], _ = strconv.Atoi(p)
	}
	if cfg.SpreadLeaders {
		if err := b.spreadLeaders(); err != nil {
			b.cluster.Close()
			return nil, err
		}
	}
	return b, nil
}

// spreadLeaders makes node p mod Brokers lead partition p of every seeded
// topic (Config.SpreadLeaders).
func (b *Broker) spreadLeaders() error {
	for _, t := range slices.Sorted(maps.Keys(b.cfg.Topics)) {
		for p := range b.cfg.Topics[t] {
			if err := b.cluster.MoveTopicPartition(t, p, p%int32(b.cfg.Brokers)); err != nil {
				return fmt.Errorf("fakebroker: SpreadLeaders: %s[%d]: %w", t, p, err)
			}
		}
	}
	return nil
}

// Dial connects to a broker address the way clients of this Broker must:
// through Config.Network when set (kfake.VirtualNetwork.DialContext: the
// brokers listen on nothing else), else over TCP. Give it to
// consumer.Config.Dial or kgo.Dialer. Errors: the network's (no listener on
// the port, ctx done).
func (b *Broker) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	if b.cfg.Network != nil {
		return b.cfg.Network.DialContext(ctx, network, address)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, address)
}

// Addrs returns the brokers' host:port addresses, for kgo.SeedBrokers. It
// blocks until the cluster goroutine answers (microseconds).
func (b *Broker) Addrs() []string { return b.cluster.ListenAddrs() }

// Cluster returns the underlying kfake cluster for anything the helpers do
// not cover. Controls installed on it directly are not released by Close;
// nodes added on it directly record Node -1.
func (b *Broker) Cluster() *kfake.Cluster { return b.cluster }

// Recorder returns the request recorder, which keeps recording until Close.
func (b *Broker) Recorder() *wire.Recorder { return b.rec }

// Config returns the configuration with defaults applied.
func (b *Broker) Config() Config { return b.cfg }

// GroupInfo returns kfake's snapshot of the group, or nil if it does not
// exist. It blocks until the cluster goroutine answers.
func (b *Broker) GroupInfo(group string) *kfake.GroupInfo { return b.cluster.GroupInfo(group) }

// CoordinatorFor returns the node id of the group's coordinator (the node a
// FindCoordinator for the group names when no fault is installed). It blocks
// until the cluster goroutine answers.
func (b *Broker) CoordinatorFor(group string) int32 { return b.cluster.CoordinatorFor(group) }

// Close removes every installed handle (held and delayed requests are
// answered normally), waits up to 5 s for their controls to return through
// the cluster goroutine, then closes the cluster, its listeners and every
// client connection. kfake.Cluster.Close with a slept control still pending
// can leave a goroutine behind; draining first avoids that. Close is
// idempotent and safe to call concurrently.
func (b *Broker) Close() {
	b.closeOnce.Do(func() {
		close(b.closing)
		b.mu.Lock()
		hs := make([]*Handle, 0, len(b.handles))
		for h := range b.handles {
			hs = append(hs, h)
		}
		b.mu.Unlock()
		for _, h := range hs {
			h.Remove()
		}
		if !b.waitControlsIdle(closeDrainTimeout) {
			b.log.Warn("fakebroker: controls still running at close; kfake may leave goroutines", "timeout", closeDrainTimeout)
		}
		b.liveMu.Lock() // after in-flight lookups; none start from now on
		b.gone = true
		b.liveMu.Unlock()
		b.cluster.Close()
	})
}

// isClosing reports whether Close has started.
func (b *Broker) isClosing() bool {
	return chans.Closed(b.closing)
}

// remember tracks h for Close; it returns ErrClosed once Close started, in
// which case the caller must undo what it installed.
func (b *Broker) remember(h *Handle) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.isClosing() {
		return ErrClosed
	}
	b.handles[h] = struct{}{}
	return nil
}

// forget stops tracking h.
func (b *Broker) forget(h *Handle) {
	b.mu.Lock()
	delete(b.handles, h)
	b.mu.Unlock()
}

// enterControl and exitControl bracket every control fn fakebroker installs,
// so Close can wait for them.
func (b *Broker) enterControl() {
	b.ctlMu.Lock()
	if b.ctlActive == 0 {
		b.ctlIdle = make(chan struct{})
	}
	b.ctlActive++
	b.ctlMu.Unlock()
}

func (b *Broker) exitControl() {
	b.ctlMu.Lock()
	b.ctlActive--
	if b.ctlActive == 0 {
		close(b.ctlIdle)
	}
	b.ctlMu.Unlock()
}

// waitControlsIdle waits until no control fn is running, or d passes.
func (b *Broker) waitControlsIdle(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		b.ctlMu.Lock()
		active, idle := b.ctlActive, b.ctlIdle
		b.ctlMu.Unlock()
		if active == 0 {
			return true
		}
		select {
		case <-idle:
		case <-t.C:
			return false
		}
	}
}
