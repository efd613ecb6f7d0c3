package brokerconn

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/wire"
)

// Options configure a Conn.
type Options struct {
	// Formatter writes request headers; it carries client.id.
	Formatter *kmsg.RequestFormatter
	// Dial opens the socket. ctx ends when the Conn is closed; Dial bounds
	// the attempt itself (socket.connection.setup.timeout.ms). Its error
	// reaches every queued request wrapped as is, so a refused dial
	// (*net.OpError, Op "dial") stays recognisable.
	Dial func(ctx context.Context) (net.Conn, error)
	// HandshakeTimeout bounds ApiVersions after the dial (the consumer
	// gives request.timeout.ms).
	HandshakeTimeout time.Duration
	// MaxResponse is the largest response frame accepted after its size
	// prefix, bytes; 0 means wire.DefaultMaxFrame (100 MiB).
	MaxResponse int32
	// OnReady, if set, is called once per Conn from its writer goroutine
	// when the connection attempt ends: nil once ApiVersions is answered,
	// else the dial's or the handshake's error (not when Close ended the
	// attempt). It is one connection attempt, whatever the number of
	// requests queued on it (Java's ClusterConnectionStates counts attempts,
	// and resets them once a connection is ready).
	OnReady func(err error)
}

// Conn is one connection to one broker. Do queues requests; a writer
// goroutine dials, negotiates versions and writes them; a reader goroutine
// matches answers and calls each request's done. Once the connection fails
// (the dial, ApiVersions, a write, a read, a request timeout, Close) every
// request on it, and every later Do, fails with the cause: the Conn is not
// reused, the caller opens a new one (Err says when).
type Conn struct {
	addr   string
	opt    Options
	ctx    context.Context // ends on failure: stops the dial and the writer
	cancel context.CancelFunc
	wake   chan struct{} // capacity 1: Do tells the writer there is work
	wg     sync.WaitGroup
	// expiring counts expire calls completing requests; Add only under mu
	// before the Conn failed, so Close's Wait, after the failure, cannot
	// race an Add.
	expiring sync.WaitGroup

	mu        sync.Mutex // guards the fields below
	err       error      // set once, on failure
	nc        net.Conn   // nil until dialed
	ready     bool       // ApiVersions answered: the writer writes what is queued
	queue     []*pending // queued by Do, not yet written
	inflight  []*pending // written, unanswered, in write order
	throttle  time.Time  // no write before it (KIP-219)
	throttled bool       // a throttle is announced and the writer has not yet passed it
	expiry    *time.Timer
	expiryAt  time.Time // when expiry fires; zero when it is not armed
}

// pending is one request on a Conn.
type pending struct {
	req      kmsg.Request
	deadline time.Time
	done     func(kmsg.Response, error)
	corr     int32
}

// Open returns a Conn to addr and starts connecting in the background;
// requests queued with Do before the connection is ready are written once it
// is.
func Open(addr string, opt Options) *Conn {
	if opt.MaxResponse == 0 {
		opt.MaxResponse = wire.DefaultMaxFrame
	}
	c := &Conn{addr: addr, opt: opt, wake: make(chan struct{}, 1)}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.wg.Add(1)
	go c.write()
	return c
}

// Do queues req, to be sent at the highest version both kmsg and the broker
// support (Do sets req's version), and calls done exactly once, never from
// Do: from the Conn's reader, writer or expiry goroutine, or from Close's
// caller; with the answer, or with an error. done must not call Close (Close
// waits for the goroutine running done). done's errors: *UnsupportedError;
// one wrapping context.DeadlineExceeded when no answer came by deadline; the
// connection's failure for every other request on it. Do never blocks on the
// network. It returns the Conn's failure, and takes nothing, once the Conn
// failed (Err).
func (c *Conn) Do(req kmsg.Request, deadline time.Time, done func(kmsg.Response, error)) error {
	p := &pending{req: req, deadline: deadline, done: done}
	c.mu.Lock()
	if err := c.err; err != nil {
		c.mu.Unlock()
		return err
	}
	c.queue = append(c.queue, p)
	if !c.ready || c.throttled {
		c.armExpiry(p.deadline)
	}
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default: // the writer is already told
	}
	return nil
}

// Err is nil while the Conn takes requests, then why it stopped.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// ErrClosed is what requests on a Conn closed with a nil error get.
var ErrClosed = errors.New("brokerconn: connection closed")

// Close fails every request still on the Conn with err (ErrClosed when nil),
// closes the socket and waits for the Conn's goroutines. It must not be
// called from a request's done, which one of those goroutines runs.
func (c *Conn) Close(err error) {
	if err == nil {
		err = ErrClosed
	}
	c.fail(err, nil, nil)
	c.wg.Wait()
	c.expiring.Wait()
}

// write is the writer goroutine: it connects, then writes what Do queues,
// each wake-up's requests in one Write.
func (c *Conn) write() {
	defer c.wg.Done()
	nc, v, err := c.connect()
	if c.opt.OnReady != nil && !errors.Is(err, errClosedDuringConnect) {
		c.opt.OnReady(err)
	}
	if err != nil {
		c.fail(err, nil, nil)
		return
	}
	c.wg.Add(1)
	go c.read(nc)

	var (
		buf    []byte
		failed []*pending
		errs   []error
		corr   int32 = 2 // after the handshake's
		timer        = time.NewTimer(0)
	)
	defer timer.Stop()
	for {
		select {
		case <-c.wake:
		case <-timer.C: // a throttle ended
		case <-c.ctx.Done():
			return
		}
		now := time.Now()
		buf, failed, errs = buf[:0], failed[:0], errs[:0]
		var last time.Time // the latest deadline written
		c.mu.Lock()
		if c.err != nil {
			c.mu.Unlock()
			return
		}
		if wait := c.throttle.Sub(now); wait > 0 {
			// KIP-219: nothing is written until the throttle ends; the
			// expiry timer fails what waits past its deadline meanwhile.
			c.throttled = true
			if len(c.queue) > 0 {
				c.armExpiry(earliest(c.queue))
			}
			c.mu.Unlock()
			timer.Reset(wait)
			continue
		}
		c.throttled = false
		for _, p := range c.queue {
			ver, err := v.pick(p.req)
			if pr, ok := p.req.(*kmsg.ProduceRequest); ok && pr.Acks == 0 && err == nil {
				err = errNoAnswer // the broker never answers it: nothing to match
			}
			if err == nil && !now.Before(p.deadline) {
				err = c.timeout(p)
			}
			if err != nil {
				failed, errs = append(failed, p), append(errs, err)
				continue
			}
			p.req.SetVersion(ver)
			corr++
			p.corr = corr
			// AppendRequest writes the size prefix at the start of the
			// slice it is given, so each request starts a slice of its
			// own (past the ones before it in buf's array).
			at := len(buf)
			buf = append(buf[:at], c.opt.Formatter.AppendRequest(buf[at:], p.req, corr)...)
			c.inflight = append(c.inflight, p)
			last = later(last, p.deadline)
		}
		clear(c.queue)
		c.queue = c.queue[:0]
		if len(buf) > 0 {
			c.armRead(nc)
		}
		c.mu.Unlock()
		for i, p := range failed {
			p.done(nil, errs[i])
		}
		clear(failed)
		if len(buf) == 0 {
			continue
		}
		// A write still blocked when every request in it is past its
		// deadline has timed them all out; an earlier one is the
		// reader's to time out (armRead).
		nc.SetWriteDeadline(last)
		if _, err := nc.Write(buf); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				err = fmt.Errorf("%w (%w)", err, context.DeadlineExceeded)
			}
			c.fail(fmt.Errorf("brokerconn: write to %s: %w", c.addr, err), nil, nil)
			return
		}
	}
}

// errClosedDuringConnect ends a connection attempt that Close cut short.
var errClosedDuringConnect = errors.New("brokerconn: closed while connecting")

// connect dials and negotiates versions, then marks the Conn ready. Errors:
// the dial's and the handshake's, wrapped with the address;
// errClosedDuringConnect when Close came first.
func (c *Conn) connect() (net.Conn, *versions, error) {
	nc, err := c.opt.Dial(c.ctx)
	if err != nil {
		if c.ctx.Err() != nil {
			return nil, nil, errClosedDuringConnect
		}
		return nil, nil, fmt.Errorf("brokerconn: dial %s: %w", c.addr, err)
	}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		nc.Close()
		return nil, nil, errClosedDuringConnect
	}
	c.nc = nc
	c.mu.Unlock()
	v, err := handshake(nc, c.opt.Formatter, time.Now().Add(c.opt.HandshakeTimeout), c.opt.MaxResponse)
	if err != nil {
		if c.ctx.Err() != nil {
			return nil, nil, errClosedDuringConnect
		}
		return nil, nil, fmt.Errorf("brokerconn: ApiVersions with %s: %w", c.addr, err)
	}
	c.mu.Lock()
	c.ready = true
	c.mu.Unlock()
	return nc, v, nil
}

// armExpiry makes sure the expiry timer fires by d. c.mu is held.
func (c *Conn) armExpiry(d time.Time) {
	if !c.expiryAt.IsZero() && !d.Before(c.expiryAt) {
		return
	}
	c.expiryAt = d
	if c.expiry == nil {
		c.expiry = time.AfterFunc(time.Until(d), c.expire)
		return
	}
	c.expiry.Reset(time.Until(d))
}

// expire fails the queued requests past their deadline while the writer
// cannot write them (the connection is not ready, or a throttle holds it),
// with the same error as an unanswered request; ConsumerNetworkClient
// expires unsent requests likewise.
func (c *Conn) expire() {
	now := time.Now()
	var expired []*pending
	c.mu.Lock()
	if c.err != nil { // failed: fail completed the queue
		c.mu.Unlock()
		return
	}
	c.expiring.Add(1)
	defer c.expiring.Done()
	c.expiryAt = time.Time{}
	keep := c.queue[:0]
	for _, p := range c.queue {
		if now.Before(p.deadline) {
			keep = append(keep, p)
		} else {
			expired = append(expired, p)
		}
	}
	clear(c.queue[len(keep):])
	c.queue = keep
	if len(keep) > 0 && (!c.ready || c.throttled) {
		c.armExpiry(earliest(keep))
	}
	c.mu.Unlock()
	for _, p := range expired {
		p.done(nil, c.timeout(p))
	}
}

// earliest returns the earliest deadline of ps (non-empty).
func earliest(ps []*pending) time.Time {
	d := ps[0].deadline
	for _, p := range ps[1:] {
		if p.deadline.Before(d) {
			d = p.deadline
		}
	}
	return d
}

// read is the reader goroutine: it reads answers in order and completes the
// request at the head of inflight with each, under the head's deadline
// (armRead).
//
// It reads through a buffer of readBuffer bytes, so that an answer that
// fits (a Fetch with a few records, a heartbeat) costs one read syscall,
// not two (the size, then the body); kgo reads the same way. After each
// done it yields: done readied the goroutine waiting for the answer (the
// consumer's loop, on this P's next slot), which then runs at once rather
// than after this goroutine has armed the next read deadline and made the
// next read syscall. Execution traces showed both on the path from the
// socket to Poll's return (docs/bench.md, "Following an answer through
// the client").
func (c *Conn) read(nc net.Conn) {
	defer c.wg.Done()
	br := bufio.NewReaderSize(nc, readBuffer)
	for {
		c.mu.Lock()
		c.armRead(nc)
		c.mu.Unlock()
		frame, _, err := wire.ReadFrame(br, wire.MinResponseSize, c.opt.MaxResponse)
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				if late := c.takeEarliest(); late != nil {
					// Java's NetworkClient disconnects a node whose request
					// timed out; the other requests on it fail with the
					// disconnection, not with a timeout of their own.
					name := kmsg.Key(late.req.Key()).Name()
					c.fail(fmt.Errorf("brokerconn: connection to %s closed: %s timed out", c.addr, name), late, c.timeout(late))
					return
				}
			}
			c.fail(fmt.Errorf("brokerconn: read from %s: %w", c.addr, err), nil, nil)
			return
		}
		p := c.pop()
		if p == nil {
			c.fail(fmt.Errorf("brokerconn: %s answered with correlation id %d and nothing in flight: %w", c.addr, binary.BigEndian.Uint32(frame[wire.SizeLen:]), wire.ErrMalformed), nil, nil)
			return
		}

		resp, err := c.decode(p, frame)
		if err != nil {
			// The answers are out of step with the requests, or unreadable:
			// nothing later on the connection can be trusted.
			c.fail(err, p, err)
			return
		}
		if t, ok := resp.(kmsg.ThrottleResponse); ok {
			if ms, after := t.Throttle(); after && ms > 0 {
				until := time.Now().Add(time.Duration(ms) * time.Millisecond)
				c.mu.Lock()
				if until.After(c.throttle) {
					c.throttle = until
				}
				c.throttled = true
				if len(c.queue) > 0 {
					c.armExpiry(earliest(c.queue))
				}
				c.mu.Unlock()
			}
		}
		p.done(resp, nil)
		runtime.Gosched()
	}
}

// readBuffer is the reader's buffer, bytes. A larger answer is read past
// it, straight into its frame (bufio reads a request at least as large as
// its buffer without copying).
const readBuffer = 4096

// errNoAnswer fails a Produce with acks=0, which brokers never answer.
var errNoAnswer = errors.New("brokerconn: Produce with acks=0 gets no answer to complete it with; not supported")

// readGrace is the least time the reader waits for the next answer. An
// answer may sit unread in the socket past its request's deadline while
// the reader was in the previous request's done (which can wait for the
// loop's inbox); as Java's NetworkClient handles the answers it received
// before the requests that timed out, the reader still takes it.
const readGrace = time.Millisecond

// pop removes the request at the head of inflight and returns it (nil when
// none is in flight).
func (c *Conn) pop() *pending {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.inflight) == 0 {
		return nil
	}
	p := c.inflight[0]
	n := copy(c.inflight, c.inflight[1:])
	c.inflight[n] = nil
	c.inflight = c.inflight[:n]
	return p
}

// armRead sets the read deadline: the earliest deadline in flight, at least
// readGrace from now; none while nothing is in flight. The reader arms it
// before each read, the writer when it puts requests in flight. c.mu is
// held.
func (c *Conn) armRead(nc net.Conn) {
	if len(c.inflight) == 0 {
		nc.SetReadDeadline(time.Time{})
		return
	}
	nc.SetReadDeadline(later(earliest(c.inflight), time.Now().Add(readGrace)))
}

// takeEarliest removes the in-flight request with the earliest deadline and
// returns it; nil when none is in flight.
func (c *Conn) takeEarliest() *pending {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.inflight) == 0 {
		return nil
	}
	i := 0
	for j, p := range c.inflight {
		if p.deadline.Before(c.inflight[i].deadline) {
			i = j
		}
	}
	p := c.inflight[i]
	c.inflight = slices.Delete(c.inflight, i, i+1)
	return p
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// decode reads frame as the answer to p: the correlation id must be p's;
// the response header has tags when p's version is flexible (header v1),
// except ApiVersions (KIP-511). Errors wrap wire.ErrMalformed and name the
// bad value.
func (c *Conn) decode(p *pending, frame []byte) (kmsg.Response, error) {
	key, ver := kmsg.Key(p.req.Key()), p.req.GetVersion()
	if got := int32(binary.BigEndian.Uint32(frame[wire.SizeLen:])); got != p.corr {
		return nil, fmt.Errorf("brokerconn: %s answered correlation id %d, want %d (%s v%d): %w", c.addr, got, p.corr, key.Name(), ver, wire.ErrMalformed)
	}
	body := frame[wire.SizeLen+wire.MinResponseSize:]
	if p.req.IsFlexible() && key != kmsg.ApiVersions {
		r := kbin.Reader{Src: body}
		kmsg.SkipTags(&r)
		if !r.Ok() {
			return nil, fmt.Errorf("brokerconn: %s v%d answer from %s: truncated header tags: %w", key.Name(), ver, c.addr, wire.ErrMalformed)
		}
		body = r.Src
	}
	resp := p.req.ResponseKind()
	resp.SetVersion(ver)
	if err := resp.ReadFrom(body); err != nil {
		return nil, fmt.Errorf("brokerconn: %s v%d answer from %s, %d bytes: %w (%w)", key.Name(), ver, c.addr, len(body), err, wire.ErrMalformed)
	}
	return resp, nil
}

// timeout is the error of p unanswered by its deadline.
func (c *Conn) timeout(p *pending) error {
	return fmt.Errorf("brokerconn: %s to %s unanswered by its deadline (request.timeout.ms): %w", kmsg.Key(p.req.Key()).Name(), c.addr, context.DeadlineExceeded)
}

// fail marks the Conn failed with cause (the first failure wins), closes the
// socket and completes every request on it with cause, and own (the request
// that caused the failure, already taken off inflight) with ownErr.
func (c *Conn) fail(cause error, own *pending, ownErr error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		if own != nil {
			own.done(nil, ownErr) // popped before the failure was seen
		}
		return
	}
	c.err = cause
	if c.expiry != nil {
		c.expiry.Stop()
	}
	nc := c.nc
	inflight, queue := c.inflight, c.queue
	c.inflight, c.queue = nil, nil
	c.mu.Unlock()
	c.cancel()
	if nc != nil {
		nc.Close()
	}
	if own != nil {
		own.done(nil, ownErr)
	}
	for _, p := range inflight {
		p.done(nil, cause)
	}
	for _, p := range queue {
		p.done(nil, cause)
	}
}
