package containers

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/api/types/container"
	mobynet "github.com/moby/moby/api/types/network"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
	tcnetwork "github.com/testcontainers/testcontainers-go/network"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kreactor/kreactor/containers/internal/freeport"
)

// LabelCluster is the Docker label on every container of a cluster; its
// value is the cluster id.
const LabelCluster = "org.kreactor.cluster"

// NodeState is what a node is doing, as the cluster last made it.
type NodeState string

const (
	NodeRunning NodeState = "running"
	NodeStopped NodeState = "stopped"
	NodePaused  NodeState = "paused"
)

// Broker describes one node of a cluster.
type Broker struct {
	// ID is the node id (1..n), broker and controller alike.
	ID int32
	// Addr is the advertised client address, 127.0.0.1:<host port>.
	Addr string
	// Container is the Docker container id.
	Container string
	// State is the node's state.
	State NodeState
}

// Cluster is a running Kafka cluster in Docker. Methods are safe for
// concurrent use; operations on one node are serialized.
type Cluster struct {
	image     string
	clusterID string
	timeout   time.Duration
	log       *slog.Logger
	docker    *testcontainers.DockerClient
	network   *testcontainers.DockerNetwork

	mu         sync.Mutex // guards node states and terminated
	nodes      []*node    // nodes[i] has id i+1
	terminated bool
}

type node struct {
	id    int32
	addr  string
	ctr   *testcontainers.DockerContainer
	op    sync.Mutex // serializes Stop/Start/Pause/Unpause of the node
	state NodeState  // guarded by Cluster.mu
}

// StartSingle starts one KRaft node (broker and controller) and returns once
// it serves. Options.Brokers is ignored. Errors: see StartCluster.
func StartSingle(ctx context.Context, opts Options) (*Cluster, error) {
	opts.Brokers = 1
	return StartCluster(ctx, opts)
}

// StartCluster starts opts.Brokers KRaft nodes (0 means 3), each broker and
// controller, on a new Docker network, and returns once every broker serves
// Metadata on its advertised address listing all the brokers, within
// opts.StartupTimeout. On error nothing is left running. Errors wrap
// ErrNoDocker (no engine answers), ErrNoImage (the image is absent), or say
// which node failed, with the end of its log.
func StartCluster(ctx context.Context, opts Options) (*Cluster, error) {
	n := opts.Brokers
	if n == 0 {
		n = 3
	}
	if n < 0 {
		return nil, fmt.Errorf("containers: Brokers %d < 0", n)
	}
	began := time.Now()
	c := &Cluster{
		image:     ResolveImage(opts.Image),
		clusterID: newClusterID(),
		timeout:   opts.StartupTimeout,
		log:       opts.Logger,
	}
	if c.timeout <= 0 {
		c.timeout = DefaultStartupTimeout
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	ports, err := freeport.Ports(n)
	if err != nil {
		return nil, fmt.Errorf("containers: %w", err)
	}
	envs := make([]map[string]string, n)
	for i := range n {
		if envs[i], err = nodeEnv(int32(i+1), n, ports[i], c.clusterID, opts.Config, opts.Env); err != nil {
			return nil, err
		}
	}
	if c.docker, err = dockerClient(ctx); err != nil {
		return nil, err
	}
	if err := imagePresent(ctx, c.docker, c.image); err != nil {
		_ = c.docker.Close()
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancel()
			_ = c.Terminate(cctx)
		}
	}()
	c.network, err = tcnetwork.New(ctx, tcnetwork.WithLabels(map[string]string{LabelCluster: c.clusterID}))
	if err != nil {
		return nil, fmt.Errorf("containers: create network: %w", err)
	}

	sctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	c.nodes = make([]*node, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		c.nodes[i] = &node{id: int32(i + 1), addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[i])), state: NodeStopped}
		// All at once: a node serves only once a majority of the
		// controller quorum runs.
		wg.Go(func() { errs[i] = c.run(sctx, c.nodes[i], ports[i], envs[i]) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := waitView(sctx, c.addrs()); err != nil {
		return nil, fmt.Errorf("containers: %w", err)
	}
	ok = true
	c.log.Info("kafka cluster started", "image", c.image, "brokers", n, "addrs", c.BootstrapAddrs(),
		"cluster_id", c.clusterID, "elapsed", time.Since(began).Round(time.Millisecond))
	return c, nil
}

// run creates and starts node's container, waiting until the node serves.
func (c *Cluster) run(ctx context.Context, nd *node, hostPort int, env map[string]string) error {
	port := mobynet.MustParsePort(fmt.Sprintf("%d/tcp", clientPort))
	ctr, err := testcontainers.Run(ctx, c.image,
		testcontainers.WithLogger(tcLogger{c.log}),
		testcontainers.WithName(fmt.Sprintf("kreactor-%s-%s", strings.ToLower(c.clusterID[:8]), nodeAlias(nd.id))),
		testcontainers.WithLabels(map[string]string{LabelCluster: c.clusterID, "org.kreactor.node": strconv.Itoa(int(nd.id))}),
		testcontainers.WithEnv(env),
		testcontainers.WithExposedPorts(port.String()),
		testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			hc.PortBindings = mobynet.PortMap{port: {{HostIP: netip.MustParseAddr("127.0.0.1"), HostPort: strconv.Itoa(hostPort)}}}
		}),
		tcnetwork.WithNetwork([]string{nodeAlias(nd.id)}, c.network),
		testcontainers.WithWaitStrategyAndDeadline(c.timeout, serving{node: nd.id, addr: nd.addr}),
	)
	if ctr != nil {
		c.mu.Lock()
		nd.ctr = ctr
		c.mu.Unlock()
	}
	if err != nil {
		return fmt.Errorf("containers: node %d (%s): %w%s", nd.id, c.image, err, c.logTail(nd))
	}
	c.setState(nd, NodeRunning)
	return nil
}

// BootstrapAddrs are the brokers' advertised addresses (127.0.0.1:<port>),
// by node id; they stay the same across Stop and Start.
func (c *Cluster) BootstrapAddrs() []string {
	addrs := make([]string, len(c.nodes))
	for i, nd := range c.nodes {
		addrs[i] = nd.addr
	}
	return addrs
}

// Brokers describes every node, by node id.
func (c *Cluster) Brokers() []Broker {
	c.mu.Lock()
	defer c.mu.Unlock()
	bs := make([]Broker, len(c.nodes))
	for i, nd := range c.nodes {
		bs[i] = Broker{ID: nd.id, Addr: nd.addr, State: nd.state}
		if nd.ctr != nil {
			bs[i].Container = nd.ctr.GetContainerID()
		}
	}
	return bs
}

// ClusterID is the KRaft cluster id.
func (c *Cluster) ClusterID() string { return c.clusterID }

// Image is the image the nodes run.
func (c *Cluster) Image() string { return c.image }

// Client returns a franz-go client seeded with BootstrapAddrs, then opts.
// The caller closes it.
func (c *Cluster) Client(opts ...kgo.Opt) (*kgo.Client, error) {
	return kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(c.BootstrapAddrs()...)}, opts...)...)
}

// Terminate stops and removes every container and the network. It is
// idempotent; later calls return nil.
func (c *Cluster) Terminate(ctx context.Context) error {
	c.mu.Lock()
	if c.terminated {
		c.mu.Unlock()
		return nil
	}
	c.terminated = true
	ctrs := make([]*testcontainers.DockerContainer, 0, len(c.nodes))
	for _, nd := range c.nodes {
		if nd != nil && nd.ctr != nil {
			ctrs = append(ctrs, nd.ctr)
		}
	}
	c.mu.Unlock()
	errs := make([]error, len(ctrs))
	var wg sync.WaitGroup
	for i, ctr := range ctrs {
		// Removal kills the container (its data goes with it): no
		// graceful shutdown is needed.
		wg.Go(func() { errs[i] = ctr.Terminate(ctx, testcontainers.StopTimeout(0)) })
	}
	wg.Wait()
	if c.network != nil {
		errs = append(errs, c.network.Remove(ctx))
	}
	if c.docker != nil {
		errs = append(errs, c.docker.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("containers: terminate: %w", err)
	}
	return nil
}

func (c *Cluster) node(id int32) (*node, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.terminated {
		return nil, fmt.Errorf("containers: cluster terminated")
	}
	if id < 1 || int(id) > len(c.nodes) {
		return nil, fmt.Errorf("containers: no node %d (nodes are 1..%d)", id, len(c.nodes))
	}
	return c.nodes[id-1], nil
}

func (c *Cluster) state(nd *node) NodeState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return nd.state
}

func (c *Cluster) setState(nd *node, s NodeState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	nd.state = s
}

// addrs maps every node id to its address.
func (c *Cluster) addrs() map[int32]string {
	m := make(map[int32]string, len(c.nodes))
	for _, nd := range c.nodes {
		m[nd.id] = nd.addr
	}
	return m
}

// runningAddrs maps the running nodes' ids to their addresses.
func (c *Cluster) runningAddrs() map[int32]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := make(map[int32]string, len(c.nodes))
	for _, nd := range c.nodes {
		if nd.state == NodeRunning {
			m[nd.id] = nd.addr
		}
	}
	return m
}

// logTailLines is how much of a failed node's log an error carries.
const logTailLines = 40

// logTail is "\n<last lines of node's log>" for an error message, or "".
func (c *Cluster) logTail(nd *node) string {
	c.mu.Lock()
	ctr := nd.ctr
	c.mu.Unlock()
	if ctr == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rc, err := ctr.Logs(ctx)
	if err != nil {
		return ""
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > logTailLines {
		lines = lines[len(lines)-logTailLines:]
	}
	return fmt.Sprintf("\nlast %d lines of node %d's log:\n%s", len(lines), nd.id, strings.Join(lines, "\n"))
}

// newClusterID is a random KRaft cluster id: a UUID's 16 bytes, base64 URL
// encoded without padding (22 characters), as `kafka-storage random-uuid`;
// like Kafka's, never starting with '-' (a command line would read an option).
func newClusterID() string {
	for {
		var b [16]byte
		_, _ = rand.Read(b[:])
		b[6] = b[6]&0x0f | 0x40 // version 4
		b[8] = b[8]&0x3f | 0x80 // variant
		if id := base64.RawURLEncoding.EncodeToString(b[:]); id[0] != '-' {
			return id
		}
	}
}

// tcLogger forwards testcontainers-go's messages to slog at Debug.
type tcLogger struct{ l *slog.Logger }

var _ tclog.Logger = tcLogger{}

func (t tcLogger) Printf(format string, v ...any) {
	t.l.Debug(strings.TrimSpace(fmt.Sprintf(format, v...)), "source", "testcontainers")
}
