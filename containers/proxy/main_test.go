package proxy

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testTimeout bounds every wait in these tests.
const testTimeout = 20 * time.Second

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// bed is a kfake cluster with a proxy in front. It records the remote
// address of every connection kfake accepts and the local address of every
// connection the proxy dials, so a test can prove that every connection
// kfake saw came from the proxy.
type bed struct {
	kf *kfake.Cluster
	p  *Proxy

	mu       sync.Mutex
	accepted []string        // remote addresses kfake accepted
	dialed   map[string]bool // local addresses of the proxy's upstream connections
}

func newBed(t *testing.T, cfg Config, opts ...kfake.Opt) *bed {
	t.Helper()
	b := &bed{dialed: map[string]bool{}}
	opts = append([]kfake.Opt{kfake.NumBrokers(3), kfake.SeedTopics(3, "t"), kfake.ListenFn(b.listen)}, opts...)
	kf, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatalf("kfake: %v", err)
	}
	t.Cleanup(kf.Close)
	b.kf = kf
	cfg.Upstream = kf.ListenAddrs()
	cfg.Dial = b.dial
	p, err := Start(testCtx(t), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	b.p = p
	return b
}

func (b *bed) listen(network, address string) (net.Listener, error) {
	ln, err := net.Listen(network, address)
	if err != nil {
		return nil, err
	}
	return &recListener{Listener: ln, b: b}, nil
}

type recListener struct {
	net.Listener
	b *bed
}

func (l *recListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.b.mu.Lock()
		l.b.accepted = append(l.b.accepted, c.RemoteAddr().String())
		l.b.mu.Unlock()
	}
	return c, err
}

func (b *bed) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err == nil {
		b.mu.Lock()
		b.dialed[c.LocalAddr().String()] = true
		b.mu.Unlock()
	}
	return c, err
}

// foreignConns returns the connections kfake accepted that the proxy did
// not dial.
func (b *bed) foreignConns() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, a := range b.accepted {
		if !b.dialed[a] {
			out = append(out, a)
		}
	}
	return out
}

// dialLog records the addresses a kgo client dials.
type dialLog struct {
	mu    sync.Mutex
	addrs []string
}

func (d *dialLog) dial(ctx context.Context, network, host string) (net.Conn, error) {
	d.mu.Lock()
	d.addrs = append(d.addrs, host)
	d.mu.Unlock()
	var nd net.Dialer
	return nd.DialContext(ctx, network, host)
}

func (d *dialLog) list() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.addrs)
}

// rawBed is a bed with the default config, a context that ends with the
// test, and a client ("raw") for raw requests.
func rawBed(t *testing.T) (*bed, context.Context, *kgo.Client) {
	t.Helper()
	b := newBed(t, Config{})
	cl, _ := b.newClient(t, "raw")
	return b, testCtx(t), cl
}

// newClient returns a kgo client seeded with the proxy's addresses only,
// with its metadata loaded so cl.Broker(id) works for every node.
func (b *bed) newClient(t *testing.T, clientID string, opts ...kgo.Opt) (*kgo.Client, *dialLog) {
	t.Helper()
	dl := &dialLog{}
	cl, err := kgo.NewClient(append([]kgo.Opt{
		kgo.SeedBrokers(b.p.Addrs()...),
		kgo.ClientID(clientID),
		kgo.Dialer(dl.dial),
		kgo.RequestRetries(0),
	}, opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	t.Cleanup(cl.Close)
	if _, err := cl.Request(testCtx(t), kmsg.NewPtrMetadataRequest()); err != nil {
		t.Fatalf("metadata: %v", err)
	}
	return cl, dl
}

// expectProxied fails t unless node, as an answer through the proxy
// advertises it (host, port), is at the proxy's listener for it.
func (b *bed) expectProxied(t *testing.T, node int32, host string, port int32) {
	t.Helper()
	want, _ := b.p.Addr(node)
	if got := fmt.Sprintf("%s:%d", host, port); got != want {
		t.Errorf("broker %d at %s, want the proxy's %s", node, got, want)
	}
}

// findCoordinator sends a raw FindCoordinator for keys to node and returns,
// per key, the error code, node id and host:port, whichever version kgo
// negotiated (v0-3 carry only the first key).
type coordinator struct {
	code int16
	node int32
	addr string
}

func findCoordinator(ctx context.Context, cl *kgo.Client, node int32, keys ...string) ([]coordinator, error) {
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.CoordinatorKey = keys[0]
	req.CoordinatorKeys = keys
	kresp, err := cl.Broker(int(node)).Request(ctx, req)
	if err != nil {
		return nil, err
	}
	resp := kresp.(*kmsg.FindCoordinatorResponse)
	if resp.Version < 4 {
		return []coordinator{{resp.ErrorCode, resp.NodeID, net.JoinHostPort(resp.Host, itoa(resp.Port))}}, nil
	}
	var out []coordinator
	for _, c := range resp.Coordinators {
		out = append(out, coordinator{c.ErrorCode, c.NodeID, net.JoinHostPort(c.Host, itoa(c.Port))})
	}
	return out, nil
}

func itoa(i int32) string { return strconv.Itoa(int(i)) }

// testNow is an arbitrary arrival time for frames built in unit tests.
var testNow = time.Unix(1_700_000_000, 0)
