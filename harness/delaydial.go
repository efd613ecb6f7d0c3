package harness

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
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
	c := &delayConn{Conn: conn, r: r, keys: map[int32]int16{}, stop: make(chan struct{})}
	r.mu.Lock()
	r.conns[c] = struct{}{}
	r.mu.Unlock()
	if r.stopped.Load() {
		c.stopOnce.Do(func() { close(c.stop) })
	}
	return c, nil
}

// delayConn parses the Kafka frames going out (size, key, version,
// correlation id, ...) to learn each correlation id's API key, and the
// frames coming in (size, correlation id, ...) to hold the responses of
// r.key.
type delayConn struct {
	net.Conn
	r *ResponseDelay

	mu   sync.Mutex // guards keys
	keys map[int32]int16

	// writer side: only the goroutine calling Write (kgo serialises
	// writes on a connection).
	hdr  []byte // header bytes of the current outgoing frame, up to 12
	skip int    // body bytes of the current outgoing frame still to pass

	// reader side: only the goroutine calling Read.
	pending []byte // the current incoming frame, not yet handed to the reader

	stop     chan struct{} // closed by Heal or Close: stop holding
	stopOnce sync.Once
}

// requestHeader is size(4) + key(2) + version(2) + correlation id(4).
const requestHeader = 12

func (c *delayConn) Write(p []byte) (int, error) {
	for b := p; len(b) > 0; {
		if c.skip > 0 {
			n := min(c.skip, len(b))
			c.skip -= n
			b = b[n:]
			continue
		}
		n := min(requestHeader-len(c.hdr), len(b))
		c.hdr = append(c.hdr, b[:n]...)
		b = b[n:]
		if len(c.hdr) == requestHeader {
			size := int(int32(binary.BigEndian.Uint32(c.hdr[0:4])))
			key := int16(binary.BigEndian.Uint16(c.hdr[4:6]))
			corr := int32(binary.BigEndian.Uint32(c.hdr[8:12]))
			c.mu.Lock()
			c.keys[corr] = key // before the bytes go out, so the answer finds it
			c.mu.Unlock()
			c.skip = max(size-(requestHeader-4), 0)
			c.hdr = c.hdr[:0]
		}
	}
	return c.Conn.Write(p)
}

func (c *delayConn) Read(p []byte) (int, error) {
	if len(c.pending) == 0 {
		var size [4]byte
		if _, err := io.ReadFull(c.Conn, size[:]); err != nil {
			return 0, err
		}
		n := int(int32(binary.BigEndian.Uint32(size[:])))
		if n < 4 {
			return 0, errors.New("harness: delayConn: response frame shorter than its correlation id")
		}
		frame := make([]byte, 4+n)
		copy(frame, size[:])
		if _, err := io.ReadFull(c.Conn, frame[4:]); err != nil {
			return 0, err
		}
		corr := int32(binary.BigEndian.Uint32(frame[4:8]))
		c.mu.Lock()
		key, ok := c.keys[corr]
		delete(c.keys, corr)
		c.mu.Unlock()
		if ok && kmsg.Key(key) == c.r.key {
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
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.stop:
	}
}

func (c *delayConn) Close() error {
	c.stopOnce.Do(func() { close(c.stop) })
	c.r.mu.Lock()
	delete(c.r.conns, c)
	c.r.mu.Unlock()
	return c.Conn.Close()
}
