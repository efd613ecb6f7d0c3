package fakebroker

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testTimeout bounds every wait in these tests.
const testTimeout = 10 * time.Second

func startBroker(t *testing.T, cfg Config) *Broker {
	t.Helper()
	b, err := Start(cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(b.Close)
	return b
}

// newClient returns a kgo client with clientID that has loaded metadata, so
// cl.Broker(id) works for every node.
func newClient(t *testing.T, b *Broker, clientID string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(b.Addrs()...), kgo.ClientID(clientID)}, opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	t.Cleanup(cl.Close)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if _, err := cl.Request(ctx, kmsg.NewPtrMetadataRequest()); err != nil {
		t.Fatalf("metadata: %v", err)
	}
	return cl
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// brokerClient starts a broker with cfg and returns it with a client
// (newClient) and a context that ends with the test (testCtx).
func brokerClient(t *testing.T, cfg Config, clientID string) (*Broker, *kgo.Client, context.Context) {
	t.Helper()
	b := startBroker(t, cfg)
	return b, newClient(t, b, clientID), testCtx(t)
}

// awaitAnswer waits for a request sent in the background (its error on
// done) to be answered without an error; when ctx ends first it fails the
// test with what.
func awaitAnswer(t *testing.T, ctx context.Context, done <-chan error, what string) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal(what)
	}
}

// findCoordinator sends a FindCoordinator for group to node with a raw
// request and returns the error code and node id for the group's key,
// whichever FindCoordinator version kgo negotiated.
func findCoordinator(ctx context.Context, cl *kgo.Client, node int32, group string) (int16, int32, error) {
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.CoordinatorKey = group
	req.CoordinatorKeys = []string{group}
	kresp, err := cl.Broker(int(node)).Request(ctx, req)
	if err != nil {
		return 0, 0, err
	}
	resp := kresp.(*kmsg.FindCoordinatorResponse)
	if len(resp.Coordinators) > 0 {
		c := resp.Coordinators[0]
		return c.ErrorCode, c.NodeID, nil
	}
	return resp.ErrorCode, resp.NodeID, nil
}
