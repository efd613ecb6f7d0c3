package client

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kreactor/kreactor/consumer/config"
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
// Send never blocks the loop: each request runs on a goroutine of its own
// and completes through done. The goroutines stay for the next requests
// (up to maxIdleWorkers wait idle): a request does not start a goroutine,
// nor grow its stack through the client's calls again, each time (the
// idle consumer's profile: goroutine starts and stack copies).
//
// Connections back off per broker as Java's ClusterConnectionStates does
// (CONTRACT-4, KIP-580): after a failed connection attempt the
// next one to that broker waits reconnect.backoff.ms doubling to
// reconnect.backoff.max.ms with 20% jitter (managers.Reconnect); a request
// for a broker still in backoff is answered at once with a
// *managers.ReconnectBackoffError and nothing is dialed (the managers'
// retries honour its end). Each connection attempt may take
// socket.connection.setup.timeout.ms, doubling per consecutive failure to
// socket.connection.setup.timeout.max.ms (jittered likewise).
type transport struct {
	opts      []kgo.Opt
	timeout   time.Duration // request.timeout.ms
	reconnect *managers.Reconnect
	setup     managers.Backoff // socket.connection.setup.timeout.ms growing to .max.ms
	ctx       context.Context
	cancel    context.CancelFunc
	rr        atomic.Uint64
	flight    atomic.Int64 // requests sent and not yet completed

	mu      sync.Mutex // guards clients, closed, idle
	clients map[string]seeded
	closed  bool
	idle    int         // workers waiting on work, less the requests handed to them
	work    chan func() // hands a request to an idle worker, nil stops one; never full
	wg      sync.WaitGroup
}

// maxIdleWorkers bounds the request goroutines that wait for the next
// request: one per request usually in flight at once (a Fetch per broker,
// a heartbeat, a commit, metadata) and a few more.
const maxIdleWorkers = 8

func newTransport(cfg *config.Common, clientID string, rnd *randoms) *transport {
	ctx, cancel := context.WithCancel(context.Background())
	t := &transport{timeout: cfg.RequestTimeout, ctx: ctx, cancel: cancel, clients: map[string]seeded{}, work: make(chan func(), maxIdleWorkers),
		reconnect: managers.NewReconnect(rnd.transportBackoff(managers.NewBackoff(cfg.ReconnectBackoff, cfg.ReconnectBackoffMax))),
		setup:     rnd.transportBackoff(managers.NewBackoff(cfg.SocketConnectionSetupTimeout, cfg.SocketConnectionSetupTimeoutMax))}
	dial := cfg.Dial
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	t.opts = []kgo.Opt{
		kgo.ClientID(clientID),
		kgo.DisableClientMetrics(), // no KIP-714 telemetry traffic of kgo's own
		kgo.RequestRetries(0),
		kgo.Dialer(func(ctx context.Context, network, addr string) (net.Conn, error) {
			// socket.connection.setup.timeout.ms, growing with this
			// broker's consecutive connection failures (Java's
			// ClusterConnectionStates.connectionSetupTimeoutMs).
			ctx, cancel := context.WithTimeout(ctx, t.setup.Delay(t.reconnect.Failures(addr)+1))
			defer cancel()
			return dial(ctx, network, addr)
		}),
	}
	return t
}

// client returns the seed broker handle of addr's kgo client, made on
// first use. Errors: ErrClosed once the transport closed; kgo.NewClient's
// error, wrapped with addr.
func (t *transport) client(addr string) (*kgo.Broker, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, ErrClosed
	}
	if c, ok := t.clients[addr]; ok {
		return c.broker, nil
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addr)}, t.opts...)...)
	if err != nil {
		return nil, fmt.Errorf("consumer: client for broker %q: %w", addr, err)
	}
	// The seed broker handle is fixed for the client's life; looked up
	// once, not per request (kgo's SeedBrokers builds a new slice and
	// handle on every call).
	c := seeded{client: cl, broker: cl.SeedBrokers()[0]}
	t.clients[addr] = c
	return c.broker, nil
}

// seeded is the kgo client of one broker address and its seed broker
// handle, through which every request to that address goes.
type seeded struct {
	client *kgo.Client
	broker *kgo.Broker
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
	run := func() {
		defer t.wg.Done()
		finish := func(resp any, err error) {
			t.flight.Add(-1) // before done: the step applying it sees the count without it
			done(resp, err)
		}
		if addr == "" {
			finish(nil, fmt.Errorf("consumer: no address for node %d", call.Node))
			return
		}
		if err := t.reconnect.Wait(addr, time.Now()); err != nil {
			finish(nil, err) // reconnect.backoff.ms: no attempt before it ends
			return
		}
		br, err := t.client(addr)
		if err != nil {
			finish(nil, err)
			return
		}
		ctx, cancel := context.WithTimeout(t.ctx, t.timeout)
		resp, err := br.Request(ctx, call.Req)
		// Cancelled before the completion, not deferred past it: done
		// readies the loop on this goroutine's P, where it runs only once
		// this goroutine parks, so work left after done delays the step
		// that applies the answer.
		cancel()
		err = t.reconnect.Observe(addr, time.Now(), err)
		if err == nil && call.Decode != nil {
			finish(call.Decode(resp), nil) // off the loop (managers.Call.Decode)
			return
		}
		finish(resp, err)
	}
	if t.idle > 0 {
		t.idle--
		t.mu.Unlock()
		t.work <- run // no wait: each value in work has an idle worker to take it
		return
	}
	t.mu.Unlock()
	go t.worker(run)
}

// worker runs run, then waits as an idle worker for the next request while
// fewer than maxIdleWorkers wait and the transport is open.
func (t *transport) worker(run func()) {
	for run != nil {
		run()
		t.mu.Lock()
		if t.closed || t.idle >= maxIdleWorkers {
			t.mu.Unlock()
			return
		}
		t.idle++
		t.mu.Unlock()
		run = <-t.work
	}
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
	idle := t.idle
	t.idle = 0
	t.mu.Unlock()
	t.cancel()
	for range idle {
		t.work <- nil // stops an idle worker
	}
	t.wg.Wait()
	for _, c := range clients {
		c.client.Close()
	}
}
