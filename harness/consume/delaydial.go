package consume

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/internal/chans"
	"github.com/kreactor/kreactor/wire"
)

// ResponseDelay delays, on the client's side of its connections, the
// responses to requests with one API key: each such response is held for
// D() after it has been read from the socket before the client sees it (and
// the responses behind it on the same connection wait too, as they would
// behind a slow broker). Plug it into a consumer with
// consumer.Config.Dial = rd.Dial; it works against any target.
//
// It exists because the broker-side equivalent (fakebroker's
// DelayKey / DelayKeyFunc, built on kfake.SleepControl) is not safe for
// thousands of back-to-back delayed requests on one connection: kfake's
// bsleep.waitQueue can leave two goroutines serving one connection's sleep
// queue (a data race the race detector reports). The property under test
// (P4: when the completion of a request becomes visible to the
// application) is the same whichever side the delay is on.
type ResponseDelay struct {
	key kmsg.Key
	d   func() time.Duration

	hits    atomic.Int64
	dialer  net.Dialer
	mu      sync.Mutex // guards conns
	conns   map[*delayConn]struct{}
	stopped atomic.Bool
}

// DelayResponses returns a ResponseDelay for key; d is called once per
// delayed response, from the connection's reading goroutine (concurrently
// for different connections), and a negative result means no delay.
func DelayResponses(key kmsg.Key, d func() time.Duration) *ResponseDelay {
	return &ResponseDelay{key: key, d: d, conns: map[*delayConn]struct{}{}}
}

// Hits is how many responses have been delayed so far.
func (r *ResponseDelay) Hits() int { return int(r.hits.Load()) }

// Heal stops delaying: responses held now are released at once and later
// ones pass through. Idempotent.
func (r *ResponseDelay) Heal() {
	r.stopped.Store(true)
	r.mu.Lock()
	defer r.mu.Unlock()
	for c := range r.conns {
		c.stopOnce.Do(func() { close(c.stop) })
	}
}

// Dial is a consumer.Config.Dial: it dials address and wraps the
// connection.
func (r *ResponseDelay) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	conn, err := r.dialer.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	c := &delayConn{Conn: conn, r: r, keys: map[int32]kmsg.Key{}, stop: make(chan struct{})}
	c.out.OnRequest = func(h wire.RequestHeader, _ time.Time) {
		c.mu.Lock()
		c.keys[h.CorrelationID] = h.Key // before the bytes go out, so the answer finds it
		c.mu.Unlock()
	}
	r.mu.Lock()
	r.conns[c] = struct{}{}
	r.mu.Unlock()
	if r.stopped.Load() {
		c.stopOnce.Do(func() { close(c.stop) })
	}
	return c, nil
}

// delayConn decodes the request headers going out (wire.RequestStream) to
// learn each correlation id's API key, and reads the response frames coming
// in whole to hold the responses of r.key.
type delayConn struct {
	net.Conn
	r *ResponseDelay

	mu   sync.Mutex // guards keys
	keys map[int32]kmsg.Key

	// out decodes outgoing requests; only the goroutine calling Write
	// (kgo serialises writes on a connection) feeds it.
	out wire.RequestStream

	// pending is the current incoming frame, not yet handed to the
	// reader; only the goroutine calling Read touches it.
	pending []byte

	stop     chan struct{} // closed by Heal or Close: stop holding
	stopOnce sync.Once
}

func (c *delayConn) Write(p []byte) (int, error) {
	c.out.Feed(p, time.Now())
	return c.Conn.Write(p)
}

// Read hands the client the incoming frames, each one whole from the
// socket first, so a response of r.key can be held before any of it is
// seen. A malformed response frame (wire.ErrMalformed) is returned as the
// read's error, which ends the client's connection.
func (c *delayConn) Read(p []byte) (int, error) {
	if len(c.pending) == 0 {
		frame, _, err := wire.ReadFrame(c.Conn, wire.MinResponseSize, wire.DefaultMaxFrame)
		if err != nil {
			return 0, err
		}
		corr, err := wire.ResponseCorrelationID(frame)
		if err != nil {
			return 0, err
		}
		c.mu.Lock()
		key, ok := c.keys[corr]
		delete(c.keys, corr)
		c.mu.Unlock()
		if ok && key == c.r.key {
			c.hold()
		}
		c.pending = frame
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

// hold waits D() (the "network"), or until Heal or Close.
func (c *delayConn) hold() {
	d := c.r.d()
	c.r.hits.Add(1)
	chans.Sleep(d, c.stop)
}

func (c *delayConn) Close() error {
	c.stopOnce.Do(func() { close(c.stop) })
	c.r.mu.Lock()
	delete(c.r.conns, c)
	c.r.mu.Unlock()
	return c.Conn.Close()
}
