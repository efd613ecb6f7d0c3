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
