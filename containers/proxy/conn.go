package proxy

import (
	"bufio"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/kreactor/kreactor/wire"
)

// Per-connection bounds. A connection holds at most queueDepth parsed
// requests waiting for the forwarder, slotDepth requests waiting for their
// response, plus the frame each goroutine is working on; each frame is at
// most Config.MaxFrame bytes.
const (
	queueDepth = 16
	slotDepth  = 64
	bufSize    = 32 << 10 // bufio size for each direction
)

// conn is one client connection and its upstream connection.
type conn struct {
	p      *Proxy
	id     uint64 // from 1, unique within the proxy
	node   int32  // the listener's node
	client net.Conn

	queue chan *request // reader -> forwarder
	slots chan *slot    // forwarder -> responder, in request order
	done  chan struct{} // closed by close
	once  sync.Once

	mu sync.Mutex
	up net.Conn // guarded by mu; nil until dialed
}

// slot is one request awaiting its answer, in the order the client sent it.
type slot struct {
	rq *request
	// local, if non-nil, is the complete response frame the proxy answers
	// with; the request was not forwarded.
	local []byte
	// errRules are error faults to apply to the broker's answer (in
	// priority order: the first one wins on an entity).
	errRules []*rule
	// fetchParts are the partitions a faulted Fetch covers (named in the
	// request or in its fetch session).
	fetchParts []wire.FetchPart
}

func newConn(p *Proxy, node int32, nc net.Conn) *conn {
	return &conn{
		p:      p,
		id:     p.connSeq.Add(1),
		node:   node,
		client: nc,
		queue:  make(chan *request, queueDepth),
		slots:  make(chan *slot, slotDepth),
		done:   make(chan struct{}),
	}
}

// close closes both connections once; every goroutine of c then exits.
func (c *conn) close() {
	c.once.Do(func() {
		close(c.done)
		c.client.Close()
		c.mu.Lock()
		if c.up != nil {
			c.up.Close()
		}
		c.mu.Unlock()
	})
}

// setUp records the dialed upstream connection, or closes it and reports
// false if c closed meanwhile.
func (c *conn) setUp(up net.Conn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.done:
		up.Close()
		return false
	default:
	}
	c.up = up
	return true
}

// serve dials the node's broker, starts the forwarder and responder, and
// reads requests until the client connection ends.
func (c *conn) serve() {
	defer c.p.forget(c)
	defer c.close()
	addr := c.p.upstreamOf(c.node)
	up, err := c.p.dial(c.p.ctx, "tcp", addr)
	if err != nil {
		c.p.dialFailures.Add(1)
		c.p.log.Warn("dial broker", "node", c.node, "addr", addr, "err", err)
		return
	}
	if !c.setUp(up) {
		return
	}
	// serve runs under p.wg, so these Adds cannot race Close's Wait.
	c.p.wg.Add(2)
	go func() { defer c.p.wg.Done(); c.forwardLoop() }()
	go func() { defer c.p.wg.Done(); c.respondLoop(up) }()
	c.readLoop()
}

// readLoop reads, records and observes request frames and queues them for
// the forwarder. A malformed frame is counted and ends the connection.
func (c *conn) readLoop() {
	br := bufio.NewReaderSize(c.client, bufSize)
	for {
		rq, err := readRequest(br, c.p.cfg.MaxFrame)
		if err != nil {
			if errors.Is(err, wire.ErrMalformed) {
				c.p.rec.AddMalformed()
				c.p.log.Warn("malformed client frame; closing connection", "node", c.node, "conn", c.id, "err", err)
			}
			return
		}
		q := rq.Record(rq.at, c.node, c.id)
		if c.p.rec.WantsBody(rq.Key) {
			q.Body = rq.Body
		}
		c.p.rec.Add(q)
		c.p.observe(c.node, rq)
		select {
		case c.queue <- rq:
		case <-c.done:
			return
		}
	}
}

// forwardLoop handles queued requests in order.
func (c *conn) forwardLoop() {
	defer c.close()
	for {
		select {
		case rq := <-c.queue:
			if !c.handle(rq) {
				return
			}
		case <-c.done:
			return
		}
	}
}

// handle applies the installed faults to rq in order (drop, hold, delay,
// error) and then forwards it or answers it locally. It reports false when
// the connection must close.
func (c *conn) handle(rq *request) bool {
	rules := c.p.activeRules()
	for _, r := range rules {
		if r.kind == ruleDrop && r.selects(c.node, rq) && r.f.hit() {
			c.p.dropped.Add(1)
			c.p.log.Debug("dropping connection", "fault", r.f.name, "node", c.node, "conn", c.id, "key", rq.Key)
			return false
		}
	}
	for _, r := range rules {
		if (r.kind == ruleHold || r.kind == ruleDelay) && r.selects(c.node, rq) && r.f.hit() {
			if !c.wait(r) {
				return false
			}
		}
	}
	s := &slot{rq: rq}
	c.p.applyErrors(c.node, rq, s, rules)
	if s.local != nil {
		c.p.local.Add(1)
		return c.enqueue(s)
	}
	if rq.ExpectsResponse() && !c.enqueue(s) {
		return false
	}
	c.mu.Lock()
	up := c.up
	c.mu.Unlock()
	if _, err := up.Write(rq.Raw); err != nil {
		return false
	}
	return true
}

// wait parks the forwarder for hold / delay rule r until r's fault heals or
// (delay) its duration passes. It reports false if the connection closed.
func (c *conn) wait(r *rule) bool {
	var timeout <-chan time.Time
	if r.kind == ruleDelay {
		t := time.NewTimer(r.delay)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-timeout:
	case <-r.f.healed:
	case <-c.done:
		return false
	}
	return true
}

// enqueue hands s to the responder.
func (c *conn) enqueue(s *slot) bool {
	select {
	case c.slots <- s:
		return true
	case <-c.done:
		return false
	}
}

// respondLoop writes each slot's answer to the client in request order:
// the local answer, or the broker's next response (which must carry the
// slot's correlation id), rewritten as needed.
func (c *conn) respondLoop(up net.Conn) {
	defer c.close()
	br := bufio.NewReaderSize(up, bufSize)
	for {
		var s *slot
		select {
		case s = <-c.slots:
		case <-c.done:
			return
		}
		out := s.local
		if out == nil {
			var err error
			if out, err = c.upstreamAnswer(br, s); err != nil {
				if errors.Is(err, wire.ErrMalformed) {
					c.p.upstreamMalformed.Add(1)
					c.p.log.Warn("malformed broker frame; closing connection", "node", c.node, "conn", c.id, "err", err)
				}
				return
			}
		}
		if _, err := c.client.Write(out); err != nil {
			return
		}
	}
}

// upstreamAnswer reads the broker's response to s and processes it.
func (c *conn) upstreamAnswer(br *bufio.Reader, s *slot) ([]byte, error) {
	raw, _, err := wire.ReadFrame(br, wire.MinResponseSize, c.p.cfg.MaxFrame)
	if err != nil {
		return nil, err
	}
	corr, err := wire.ResponseCorrelationID(raw)
	if err != nil {
		return nil, err
	}
	if corr != s.rq.CorrelationID {
		return nil, malformed("response correlation id %d, expected %d (key %d)", corr, s.rq.CorrelationID, s.rq.Key)
	}
	return c.p.processResponse(c.node, s, raw)
}
