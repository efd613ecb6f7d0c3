package proxy

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"go.uber.org/goleak"

	"github.com/kreactor/kreactor/wire"
	"github.com/kreactor/kreactor/wire/wiretest"
)

// closeBound is how long Close may take with held requests and silent
// brokers: it waits on nothing but its own goroutines.
const closeBound = 2 * time.Second

func closeWithin(t *testing.T, p *Proxy) {
	t.Helper()
	start := time.Now()
	p.Close()
	if el := time.Since(start); el > closeBound {
		t.Errorf("Close took %s, want <= %s", el, closeBound)
	}
}

func TestCloseWithHeldRequests(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	b, ctx, cl := rawBed(t)
	f, err := b.p.Hold(kmsg.FindCoordinator)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 3)
	for node := range int32(3) {
		go func() {
			_, err := findCoordinator(ctx, cl, node, "g")
			done <- err
		}()
	}
	if err := f.Wait(ctx, 3); err != nil {
		t.Fatal(err)
	}
	closeWithin(t, b.p)
	for range 3 {
		if err := <-done; err == nil {
			t.Error("held request answered successfully after Close; want its connection closed")
		}
	}
	if _, err := b.p.Hold(kmsg.Fetch); !errors.Is(err, ErrClosed) {
		t.Errorf("Hold after Close = %v, want ErrClosed", err)
	}
	if !f.isHealed() {
		t.Error("Close did not heal the fault")
	}
	cl.Close()
	b.kf.Close()
	goleak.VerifyNone(t, leaks)
}

func TestMalformedClientFrames(t *testing.T) {
	b := newBed(t, Config{MaxFrame: 1 << 16})
	addr := b.p.Addrs()[0]
	hdr := func(key, version int16) []byte { // size placeholder, key, version, corr 1, client id "x"
		return []byte{0, 0, 0, 0, byte(key >> 8), byte(key), byte(version >> 8), byte(version), 0, 0, 0, 1, 0, 1, 'x'}
	}
	withSize := func(b []byte) []byte {
		binary.BigEndian.PutUint32(b, uint32(len(b)-4))
		return b
	}
	cases := map[string][]byte{
		"too small":        {0, 0, 0, 2, 0, 3},
		"negative size":    {0xff, 0xff, 0xff, 0xf0},
		"too large":        binary.BigEndian.AppendUint32(nil, 1<<16+1),
		"client id cut":    withSize([]byte{0, 0, 0, 0, 0, 3, 0, 1, 0, 0, 0, 1, 0, 9, 'x'}),
		"negative version": withSize(hdr(3, -1)),
		"garbage body":     withSize(append(hdr(int16(kmsg.Metadata), 12), 0, 0xff, 0xff, 0xff, 0xff, 0x0f)),
	}
	for name, frame := range cases {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write(frame); err != nil {
			t.Fatalf("%s: write: %v", name, err)
		}
		c.SetReadDeadline(time.Now().Add(testTimeout))
		var one [1]byte
		if _, err := c.Read(one[:]); err == nil || errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
			t.Errorf("%s: connection not closed by the proxy (read err %v)", name, err)
		}
		c.Close()
	}
	rec := b.p.Recorder()
	if got := rec.Malformed(); got != uint64(len(cases)) {
		t.Errorf("Malformed = %d, want %d", got, len(cases))
	}
	if n := len(rec.Filter(wire.Filter{ClientID: "x"})); n != 0 {
		t.Errorf("recorded %d malformed requests, want 0", n)
	}
	// The proxy still serves well-formed clients.
	cl, _ := b.newClient(t, "after")
	if _, err := findCoordinator(testCtx(t), cl, 0, "g"); err != nil {
		t.Errorf("request after malformed frames: %v", err)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// startFakeUpstream starts a minimal broker: it answers ApiVersions and
// Metadata (itself as node 0), answers FindCoordinator with a truncated body,
// never answers DescribeGroups, and ignores everything else.
func startFakeUpstream(t *testing.T) *wiretest.Broker {
	u := wiretest.Listen(t)
	port := u.Port()
	u.Serve(func(rq *wire.RequestFrame) []byte {
		switch req := rq.Body.(type) {
		case *kmsg.ApiVersionsRequest:
			resp := req.ResponseKind().(*kmsg.ApiVersionsResponse)
			for _, k := range []kmsg.Key{kmsg.ApiVersions, kmsg.Metadata, kmsg.FindCoordinator, kmsg.DescribeGroups} {
				ak := kmsg.NewApiVersionsResponseApiKey()
				ak.ApiKey, ak.MaxVersion = int16(k), k.Request().MaxVersion()
				resp.ApiKeys = append(resp.ApiKeys, ak)
			}
			return rq.Response(resp)
		case *kmsg.MetadataRequest:
			resp := req.ResponseKind().(*kmsg.MetadataResponse)
			br := kmsg.NewMetadataResponseBroker()
			br.NodeID, br.Host, br.Port = 0, "127.0.0.1", port
			resp.Brokers = append(resp.Brokers, br)
			return rq.Response(resp)
		case *kmsg.FindCoordinatorRequest:
			out := binary.BigEndian.AppendUint32(nil, 5)
			out = binary.BigEndian.AppendUint32(out, uint32(rq.CorrelationID))
			return append(out, 0xff) // a truncated body
		}
		return nil // never answered
	})
	return u
}

// TestUpstreamMalformedAndSilent checks that a broker frame the proxy
// cannot parse closes the connection and is counted, and that Close does
// not wait for a broker that never answers.
func TestUpstreamMalformedAndSilent(t *testing.T) {
	u := startFakeUpstream(t)
	p, err := Start(testCtx(t), Config{Upstream: []string{u.Addr()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	ctx := testCtx(t)
	cl := metadataClient(ctx, t, p, "raw")
	if _, err := findCoordinator(ctx, cl, 0, "g"); err == nil {
		t.Error("FindCoordinator with a truncated answer succeeded")
	}
	if got := p.Stats().UpstreamMalformed; got != 1 {
		t.Errorf("UpstreamMalformed = %d, want 1", got)
	}

	// A client of its own: the proxy closed the first one's connection
	// after the malformed answer, and kgo (no retries) may not have seen
	// the close before it sends the next request on it.
	silent := metadataClient(ctx, t, p, "raw-silent")
	done := make(chan error, 1)
	go func() {
		req := kmsg.NewPtrDescribeGroupsRequest()
		req.Groups = []string{"g"}
		_, err := req.RequestWith(ctx, silent.Broker(0))
		done <- err
	}()
	for p.Recorder().Count(wire.Filter{Keys: []kmsg.Key{kmsg.DescribeGroups}}) == 0 {
		select {
		case err := <-done:
			t.Fatalf("DescribeGroups returned before the proxy saw it: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	closeWithin(t, p)
	if err := <-done; err == nil {
		t.Error("unanswered request succeeded")
	}
}

// metadataClient returns a kgo client of the proxy p without retries that
// has fetched metadata once, so its Broker(0) is known; it is closed with
// the test.
func metadataClient(ctx context.Context, t *testing.T, p *Proxy, clientID string) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.Addrs()...), kgo.ClientID(clientID), kgo.RequestRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	if _, err := cl.Request(ctx, kmsg.NewPtrMetadataRequest()); err != nil {
		t.Fatal(err)
	}
	return cl
}
