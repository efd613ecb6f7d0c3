package control

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"go.uber.org/goleak"

	"github.com/kreactor/kreactor/fakebroker"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testTimeout = 10 * time.Second

// env is a fakebroker cluster behind the API on an httptest server.
type env struct {
	b   *fakebroker.Broker
	s   *Server
	url string
	hc  *http.Client
}

func newEnv(t *testing.T, cfg Config) *env {
	t.Helper()
	b, err := fakebroker.Start(fakebroker.Config{Brokers: 3, Topics: map[string]int32{"t": 3}})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Backend = FakeBroker(b)
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		s.Close()
		hs.CloseClientConnections()
		hs.Close()
		b.Close()
	})
	return &env{b: b, s: s, url: hs.URL, hc: hs.Client()}
}

// do sends method path with body (a string is sent as is, anything else as
// JSON) and returns the status and body.
func (e *env) do(t *testing.T, method, path string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, e.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := e.hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

// client is a kgo client of the env's cluster.
func (e *env) client(t *testing.T, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(e.b.Addrs()...), kgo.ClientID("control-test")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// findCoordinator asks node for group's coordinator and returns the error
// code.
func findCoordinator(t *testing.T, cl *kgo.Client, group string) int16 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.CoordinatorKey = group
	req.CoordinatorKeys = []string{group}
	kresp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("FindCoordinator: %v", err)
	}
	if len(kresp.Coordinators) > 0 {
		return kresp.Coordinators[0].ErrorCode
	}
	return kresp.ErrorCode
}
