package client

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// transport sends each managers.Call to its broker with franz-go: one kgo
// client per broker address (seeded with that address only, so kgo never
// routes or retries on its own), raw requests through the seed broker
// handle. kgo supplies connections, ApiVersions negotiation, SASL/TLS.
// Send never blocks the loop: each request runs on its own goroutine and
// completes through done.
type transport struct {
	opts    []kgo.Opt
	timeout time.Duration // request.timeout.ms
	ctx     context.Context
	cancel  context.CancelFunc
	rr      atomic.Uint64
	flight  atomic.Int64 // requests sent and not yet completed

	mu      sync.Mutex // guards clients, closed
	clients map[string]*kgo.Client
	closed  bool
	wg      sync.WaitGroup
}

func newTransport(cfg *Config) *transport {
	opts := []kgo.Opt{
		kgo.ClientID(cfg.ClientID),
		kgo.DisableClientMetrics(), // no KIP-714 telemetry traffic of kgo's own
		kgo.RequestRetries(0),
		kgo.DialTimeout(min(cfg.RequestTimeout, 10*time.Second)),
	}
	if cfg.Dial != nil {
		opts = append(opts, kgo.Dialer(cfg.Dial))
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &transport{opts: opts, timeout: cfg.RequestTimeout, ctx: ctx, cancel: cancel, clients: map[string]*kgo.Client{}}
}

func (t *transport) client(addr string) (*kgo.Client, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, ErrClosed
	}
	if cl, ok := t.clients[addr]; ok {
		return cl, nil
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addr)}, t.opts...)...)
	if err != nil {
		return nil, fmt.Errorf("consumer: client for broker %q: %w", addr, err)
	}
	t.clients[addr] = cl
	return cl, nil
}

// Send implements reactor.Transport.
func (t *transport) Send(req *reactor.Request, done func(any, error)) {
	call, ok := req.Payload.(*managers.Call)
	if !ok {
		panic(fmt.Sprintf("consumer: manager %s returned a %T payload, want *managers.Call", req.Manager, req.Payload))
	}
	addr := call.Addr
	if call.Node == managers.AnyNode && len(call.Addrs) > 0 {
		addr = call.Addrs[int(t.rr.Add(1)-1)%len(call.Addrs)]
	}
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		go done(nil, ErrClosed)
		return
	}
	t.wg.Add(1)
	t.flight.Add(1)
	t.mu.Unlock()
	go func() {
		defer t.wg.Done()
		finish := func(resp any, err error) {
			t.flight.Add(-1) // before done: the step applying it sees the count without it
			done(resp, err)
		}
		if addr == "" {
			finish(nil, fmt.Errorf("consumer: no address for node %d", call.Node))
			return
		}
		cl, err := t.client(addr)
		if err != nil {
			finish(nil, err)
			return
		}
		ctx, cancel := context.WithTimeout(t.ctx, t.timeout)
		defer cancel()
		resp, err := cl.SeedBrokers()[0].Request(ctx, call.Req)
		if err == nil && call.Decode != nil {
			finish(call.Decode(resp), nil) // off the loop (managers.Call.Decode)
			return
		}
		finish(resp, err)
	}()
}

// inFlight is the number of requests sent and not yet completed.
func (t *transport) inFlight() int { return int(t.flight.Load()) }

// close cancels in-flight requests, waits for their goroutines and closes
// every client.
func (t *transport) close() {
	t.mu.Lock()
	t.closed = true
	clients := t.clients
	t.clients = nil
	t.mu.Unlock()
	t.cancel()
	t.wg.Wait()
	for _, cl := range clients {
		cl.Close()
	}
}
