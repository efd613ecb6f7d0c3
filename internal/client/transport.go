package client

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/consumer/config"
	"github.com/kreactor/kreactor/internal/brokerconn"
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

// transport sends each managers.Call to its broker on the consumer's own
// connections (internal/brokerconn): one per broker address and lane, so a
// Fetch long-poll holds no heartbeat behind it. Send never blocks the loop:
// it queues the request on the connection, whose writer goroutine writes it
// and whose reader goroutine completes it, running Call.Decode first. A
// connection that failed is replaced by a new one on the next request to its
// broker and lane.
//
// Connections back off per broker as Java's ClusterConnectionStates does
// (CONTRACT-4, KIP-580): after a failed connection attempt (the dial or
// ApiVersions failed; one attempt however many requests wait on it) the
// next one to that broker waits reconnect.backoff.ms doubling to
// reconnect.backoff.max.ms with 20% jitter (managers.Reconnect); a request
// for a broker still in backoff is answered at once with a
// *managers.ReconnectBackoffError and nothing is dialed (the managers'
// retries honour its end). Each connection attempt may take
// socket.connection.setup.timeout.ms, doubling per consecutive failure to
// socket.connection.setup.timeout.max.ms (jittered likewise). A request
// unanswered after request.timeout.ms fails with an error wrapping
// context.DeadlineExceeded and closes its connection, as Java's
// NetworkClient does.
type transport struct {
	formatter *kmsg.RequestFormatter // client.id
	dial      func(ctx context.Context, network, address string) (net.Conn, error)
	timeout   time.Duration // request.timeout.ms
	reconnect *managers.Reconnect
	setup     managers.Backoff // socket.connection.setup.timeout.ms growing to .max.ms
	rr        atomic.Uint64
	flight    atomic.Int64 // requests sent and not yet completed

	mu     sync.Mutex // guards conns, closed
	conns  map[connKey]*brokerconn.Conn
	closed bool
	wg     sync.WaitGroup // completions of requests that never reached a connection
}

// connKey names one connection: a broker address and a lane.
type connKey struct {
	addr string
	lane brokerconn.Lane
}

func newTransport(cfg *config.Common, clientID string, rnd *randoms) *transport {
	t := &transport{timeout: cfg.RequestTimeout, conns: map[connKey]*brokerconn.Conn{},
		formatter: kmsg.NewRequestFormatter(kmsg.FormatterClientID(clientID)),
		dial:      cfg.Dial,
		reconnect: managers.NewReconnect(rnd.transportBackoff(managers.NewBackoff(cfg.ReconnectBackoff, cfg.ReconnectBackoffMax))),
		setup:     rnd.transportBackoff(managers.NewBackoff(cfg.SocketConnectionSetupTimeout, cfg.SocketConnectionSetupTimeoutMax))}
	if t.dial == nil {
		t.dial = (&net.Dialer{}).DialContext
	}
	return t
}

// conn returns the open connection for addr and lane, opening one when there
// is none or the last one failed. Errors: ErrClosed once the transport
// closed.
func (t *transport) conn(k connKey) (*brokerconn.Conn, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, ErrClosed
	}
	if c, ok := t.conns[k]; ok && c.Err() == nil {
		return c, nil
	} else if ok {
		t.wg.Add(1)
		go func() { // failed: Close only waits for its goroutines to end
			defer t.wg.Done()
			c.Close(nil)
		}()
	}
	c := brokerconn.Open(k.addr, brokerconn.Options{
		Formatter:        t.formatter,
		HandshakeTimeout: t.timeout,
		// One outcome per connection attempt, not per request queued on
		// it: a failed dial or ApiVersions starts or extends the broker's
		// backoff, a ready connection ends it (Java's
		// ClusterConnectionStates: disconnected before READY, ready).
		OnReady: func(err error) {
			if err != nil {
				t.reconnect.Failed(k.addr, time.Now(), err)
				return
			}
			t.reconnect.Succeeded(k.addr)
		},
		Dial: func(ctx context.Context) (net.Conn, error) {
			// socket.connection.setup.timeout.ms, growing with this
			// broker's consecutive connection failures (Java's
			// ClusterConnectionStates.connectionSetupTimeoutMs).
			ctx, cancel := context.WithTimeout(ctx, t.setup.Delay(t.reconnect.Failures(k.addr)+1))
			defer cancel()
			return t.dial(ctx, "tcp", k.addr)
		},
	})
	t.conns[k] = c
	return c, nil
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
	t.flight.Add(1)
	finish := func(resp any, err error) {
		t.flight.Add(-1) // before done: the step applying it sees the count without it
		done(resp, err)
	}
	now := time.Now()
	var c *brokerconn.Conn
	var err error
	if addr == "" {
		err = fmt.Errorf("consumer: no address for node %d", call.Node)
	} else {
		err = t.reconnect.Wait(addr, now) // reconnect.backoff.ms: no attempt before it ends
	}
	if err == nil {
		c, err = t.conn(connKey{addr, brokerconn.LaneOf(call.Req)})
	}
	if err == nil {
		err = c.Do(call.Req, now.Add(t.timeout), func(resp kmsg.Response, err error) {
			if err == nil && call.Decode != nil {
				finish(call.Decode(resp), nil) // off the loop (managers.Call.Decode)
				return
			}
			if err != nil {
				finish(nil, err)
				return
			}
			finish(resp, nil)
		})
	}
	if err != nil {
		// Never from Send itself: done may wait for the loop's inbox,
		// and the loop is the caller.
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			finish(nil, err)
		}()
	}
}

// inFlight is the number of requests sent and not yet completed.
func (t *transport) inFlight() int { return int(t.flight.Load()) }

// close fails every request still in flight with context.Canceled, closes
// every connection and waits for their goroutines.
func (t *transport) close() {
	t.mu.Lock()
	t.closed = true
	conns := t.conns
	t.conns = nil
	t.mu.Unlock()
	for _, c := range conns {
		c.Close(context.Canceled)
	}
	t.wg.Wait()
}
