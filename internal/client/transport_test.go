package client

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/consumer/config"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
	"github.com/kreactor/kreactor/wire"
	"github.com/kreactor/kreactor/wire/wiretest"
)

// send sends one Metadata request to addr through tr and returns its error.
func send(t *testing.T, tr *transport, addr string) error {
	t.Helper()
	done := make(chan error, 1)
	tr.Send(&reactor.Request{Payload: &managers.Call{Node: 1, Addr: addr, Req: kmsg.NewPtrMetadataRequest()}},
		func(_ any, err error) { done <- err })
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("request not completed in 10 s")
		return nil
	}
}

// A backoff that grows (KIP-580), transport part: a failed connection to a
// broker starts its reconnect backoff (reconnect.backoff.ms doubling to
// reconnect.backoff.max.ms); requests for it within the backoff are answered
// at once with a *managers.ReconnectBackoffError and dial nothing; after it,
// the next attempt dials again and, failing, doubles the backoff.
func TestTransportReconnectBackoff(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nobody listens: every dial is refused
	var dials atomic.Int32
	cfg := config.DefaultConsumer()
	cfg.ReconnectBackoff, cfg.ReconnectBackoffMax = 200*time.Millisecond, time.Second
	cfg.Dial = func(ctx context.Context, network, address string) (net.Conn, error) {
		dials.Add(1)
		return (&net.Dialer{}).DialContext(ctx, network, address)
	}
	tr := newTransport(&cfg.Common, cfg.ClientID, nil)
	defer tr.close()

	if err := send(t, tr, addr); !managers.IsConnectError(err) {
		t.Fatalf("first request: %v, want a connection error", err)
	}
	first := dials.Load()
	if first == 0 {
		t.Fatal("the first request dialed nothing")
	}
	var rb *managers.ReconnectBackoffError
	err = send(t, tr, addr)
	if !errors.As(err, &rb) || dials.Load() != first {
		t.Fatalf("request inside the backoff: %v after %d dial(s), want a ReconnectBackoffError and no dial", err, dials.Load()-first)
	}
	if wait := time.Until(rb.Until); wait > 240*time.Millisecond {
		t.Fatalf("first backoff %s, want <= reconnect.backoff.ms + 20%%", wait)
	}
	time.Sleep(time.Until(rb.Until))
	if err := send(t, tr, addr); !managers.IsConnectError(err) || dials.Load() == first {
		t.Fatalf("request after the backoff: %v, %d new dial(s); want a new attempt", err, dials.Load()-first)
	}
	if n := tr.reconnect.Failures(addr); n != 2 {
		t.Fatalf("%d consecutive failures recorded, want 2", n)
	}
	err = send(t, tr, addr)
	if !errors.As(err, &rb) || time.Until(rb.Until) < 300*time.Millisecond {
		t.Fatalf("second backoff: %v, want about 2 x reconnect.backoff.ms", err)
	}
}

// A connection attempt is one failure for the reconnect backoff, however
// many requests waited on it: six requests queued on one refused dial leave
// one failure, so the next attempt waits reconnect.backoff.ms (+20%), not
// the sixth step of the doubling.
func TestTransportBackoffPerAttempt(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var dials atomic.Int32
	cfg := config.DefaultConsumer()
	cfg.ReconnectBackoff, cfg.ReconnectBackoffMax = 100*time.Millisecond, 10*time.Second
	cfg.Dial = func(ctx context.Context, network, address string) (net.Conn, error) {
		dials.Add(1)
		time.Sleep(50 * time.Millisecond) // the requests queue on this attempt
		return (&net.Dialer{}).DialContext(ctx, network, address)
	}
	tr := newTransport(&cfg.Common, cfg.ClientID, nil)
	defer tr.close()
	errs := make(chan error, 6)
	for range 6 {
		tr.Send(&reactor.Request{Payload: &managers.Call{Node: 1, Addr: addr, Req: kmsg.NewPtrMetadataRequest()}},
			func(_ any, err error) { errs <- err })
	}
	for range 6 {
		<-errs
	}
	if n := tr.reconnect.Failures(addr); dials.Load() != 1 || n != 1 {
		t.Fatalf("%d dial(s) counted as %d failure(s), want 1 and 1", dials.Load(), n)
	}
	var rb *managers.ReconnectBackoffError
	if err := send(t, tr, addr); !errors.As(err, &rb) || time.Until(rb.Until) > 120*time.Millisecond {
		t.Fatalf("next request: %v, want a backoff of at most reconnect.backoff.ms + 20%%", err)
	}
}

// A broker that accepts the connection and closes it before answering
// ApiVersions is a failed connection attempt, as in Java's
// ClusterConnectionStates: the next request waits out the backoff instead
// of dialing again.
func TestTransportHandshakeFailureBacksOff(t *testing.T) {
	b := wiretest.Listen(t)
	var conns atomic.Int32
	b.Serve(func(*wire.RequestFrame) []byte {
		conns.Add(1)
		return []byte{0, 0, 0, 1} // a truncated answer: the connection fails
	})
	cfg := config.DefaultConsumer()
	cfg.ReconnectBackoff, cfg.ReconnectBackoffMax = time.Second, 10*time.Second
	tr := newTransport(&cfg.Common, cfg.ClientID, nil)
	defer tr.close()
	if err := send(t, tr, b.Addr()); err == nil {
		t.Fatal("request over a failed ApiVersions succeeded")
	}
	var rb *managers.ReconnectBackoffError
	for range 5 {
		if err := send(t, tr, b.Addr()); !errors.As(err, &rb) {
			t.Fatalf("request after a failed ApiVersions: %v, want a ReconnectBackoffError", err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("%d ApiVersions requests reached the broker, want 1", n)
	}
}

// request.timeout.ms bounds a request from Send, the connection setup
// included: behind a slow dial and a broker that never answers ApiVersions,
// it fails with context.DeadlineExceeded at about request.timeout.ms (plus
// a second of slack for a busy machine), not after the dial plus a whole
// request.timeout.ms of handshake.
func TestTransportTimeoutDuringSetup(t *testing.T) {
	b := wiretest.Listen(t)
	b.Serve(func(*wire.RequestFrame) []byte { return nil })
	cfg := config.DefaultConsumer()
	cfg.RequestTimeout = 300 * time.Millisecond
	cfg.Dial = func(ctx context.Context, network, address string) (net.Conn, error) {
		time.Sleep(200 * time.Millisecond)
		return (&net.Dialer{}).DialContext(ctx, network, address)
	}
	tr := newTransport(&cfg.Common, cfg.ClientID, nil)
	defer tr.close()
	start := time.Now()
	err := send(t, tr, b.Addr())
	if took := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || took > cfg.RequestTimeout+time.Second {
		t.Fatalf("after %s: %v; want context.DeadlineExceeded by request.timeout.ms", took, err)
	}
}
