// Package broker starts kreactor broker (a fake Kafka cluster with the
// HTTP control API of package fakebroker/control) in Docker with
// testcontainers-go, for a Go test that wants the broker as a container
// (the same image a Java Testcontainers test runs: see images/broker).
//
// Each broker port is published on the same port of the host's loopback
// and advertised as 127.0.0.1, so clients on the host reach every broker;
// the control API's port is published on a free loopback port.
package broker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/moby/moby/api/types/container"
	mobynet "github.com/moby/moby/api/types/network"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/kreactor/kreactor/containers/internal/freeport"
)

// DefaultImage is the image make broker-image builds.
const DefaultImage = "kreactor/broker:dev"

// controlPort is the control API's port inside the container.
const controlPort = "8080/tcp"

// Options configures Start; the zero value runs DefaultImage with 3
// brokers and no topics.
type Options struct {
	Image   string           // "" means DefaultImage
	Brokers int              // 0 means 3
	Topics  map[string]int32 // topic -> partitions, created at start
	Token   string           // the control API's bearer token; "" none
	// StartupTimeout bounds the wait for the control API; 0 means 60 s.
	StartupTimeout time.Duration
}

// Broker is a running kreactor broker container.
type Broker struct {
	ctr       *testcontainers.DockerContainer
	bootstrap []string
	control   string
}

// Bootstrap is the brokers' bootstrap addresses on the host.
func (b *Broker) Bootstrap() []string { return b.bootstrap }

// ControlURL is the control API's URL on the host (http://127.0.0.1:P/v1).
func (b *Broker) ControlURL() string { return b.control }

// Terminate stops (SIGTERM, then 10 s) and removes the container.
func (b *Broker) Terminate(ctx context.Context) error {
	timeout := 10 * time.Second
	return b.ctr.Terminate(ctx, testcontainers.StopTimeout(timeout))
}

// Start runs the image and returns once GET /v1 answers. Errors: Docker or
// the image is missing, the ports, or the API did not answer in time (the
// container is removed).
func Start(ctx context.Context, o Options) (*Broker, error) {
	if o.Image == "" {
		o.Image = DefaultImage
	}
	if o.Brokers == 0 {
		o.Brokers = 3
	}
	if o.Brokers < 1 || o.Brokers > 64 {
		return nil, fmt.Errorf("broker: Options.Brokers = %d: want 1..64", o.Brokers)
	}
	if o.StartupTimeout == 0 {
		o.StartupTimeout = 60 * time.Second
	}
	ports, err := freeport.Ports(o.Brokers + 1)
	if err != nil {
		return nil, fmt.Errorf("broker: %w", err)
	}
	kafkaPorts, ctlHost := ports[:o.Brokers], ports[o.Brokers]
	var ps, exposed []string
	bindings := mobynet.PortMap{}
	lo := netip.MustParseAddr("127.0.0.1")
	for _, p := range kafkaPorts {
		ps = append(ps, strconv.Itoa(p))
		port := mobynet.MustParsePort(fmt.Sprintf("%d/tcp", p))
		exposed = append(exposed, port.String())
		bindings[port] = []mobynet.PortBinding{{HostIP: lo, HostPort: strconv.Itoa(p)}}
	}
	bindings[mobynet.MustParsePort(controlPort)] = []mobynet.PortBinding{{HostIP: lo, HostPort: strconv.Itoa(ctlHost)}}
	cmd := []string{"-brokers", strconv.Itoa(o.Brokers), "-ports", strings.Join(ps, ","), "-advertise", "127.0.0.1", "-topics", topicsArg(o.Topics)}
	env := map[string]string{}
	if o.Token != "" {
		env["KREACTOR_TOKEN"] = o.Token
	}
	ctr, err := testcontainers.Run(ctx, o.Image,
		testcontainers.WithCmd(cmd...),
		testcontainers.WithEnv(env),
		testcontainers.WithExposedPorts(append(exposed, controlPort)...),
		testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) { hc.PortBindings = bindings }),
		testcontainers.WithWaitStrategyAndDeadline(o.StartupTimeout, wait.ForLog("control: ")),
	)
	if err != nil {
		if ctr != nil {
			_ = ctr.Terminate(context.Background())
		}
		return nil, fmt.Errorf("broker: start %s: %w", o.Image, err)
	}
	b := &Broker{ctr: ctr, control: fmt.Sprintf("http://127.0.0.1:%d/v1", ctlHost)}
	for _, p := range kafkaPorts {
		b.bootstrap = append(b.bootstrap, net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
	}
	if err := waitAPI(ctx, b.control, o.Token, o.StartupTimeout); err != nil {
		_ = b.Terminate(context.Background())
		return nil, err
	}
	return b, nil
}

func topicsArg(ts map[string]int32) string {
	var out []string
	for t, p := range ts {
		out = append(out, fmt.Sprintf("%s:%d", t, p))
	}
	return strings.Join(out, ",")
}

// waitAPI waits until GET url answers 200.
func waitAPI(ctx context.Context, url, token string, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
			err = errors.New(resp.Status)
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("broker: control API %s did not answer: %v", url, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
