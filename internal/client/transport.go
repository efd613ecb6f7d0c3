package client

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kreactor/kreactor/internal/mutant"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// sender is what a consumer's machinery needs of its transport: Send, the
// number of requests in flight (for the snapshot), and close.
type sender interface {
	reactor.Transport
	inFlight() int
	close()
}

// foreign is a caller's transport (NewGroupOn) with the in-flight count
// the snapshot reads; the caller owns it, so close does nothing.
type foreign struct {
	tr     reactor.Transport
	flight atomic.Int64
}

func (f *foreign) Send(req *reactor.Request, done func(any, error)) {
	f.flight.Add(1)
	f.tr.Send(req, func(resp any, err error) {
		f.flight.Add(-1)
		done(resp, err)
	})
}

func (f *foreign) inFlight() int { return int(f.flight.Load()) }
func (f *foreign) close()        {}

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
	if mutant.On("transport-never-sends") {
		return // accepted, never sent, never completed
	}
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
