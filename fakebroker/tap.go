package fakebroker

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kreactor/kreactor/wire"
)

// tap is the kfake.ListenFn that wraps every broker listener so each accepted
// connection's request bytes are decoded (wire.RequestStream) into the
// Recorder.
//
// kfake calls ListenFn once per broker: in node order 0..n-1 from NewCluster,
// and from AddNode on its cluster goroutine. The node a listener belongs to
// is therefore assigned here: sequentially while starting, and by expect just
// before fakebroker calls AddNode. A listener kfake opens any other way (a
// direct Cluster().AddNode) records Node -1.
type tap struct {
	rec *wire.Recorder
	// listenFn opens a broker's listener: net.Listen, or a
	// kfake.VirtualNetwork's Listen. Set before the cluster starts.
	listenFn func(network, address string) (net.Listener, error)
	conns    atomic.Uint64 // connection counter
	// answers, if set, makes each connection's Kafka-faithful response
	// corrections (answers.go); nil when the Broker answers as kfake does.
	// Set before the cluster starts; read-only after.
	answers func(node int32) *connAnswers

	mu        sync.Mutex
	next      int32                  // guarded by mu; node for the next listener, -1 if unknown
	starting  bool                   // guarded by mu; while true, next increments per listener
	listeners map[int32]*tapListener // guarded by mu; each node's latest listener
}

func newTap(rec *wire.Recorder, listen func(network, address string) (net.Listener, error)) *tap {
	return &tap{rec: rec, listenFn: listen, starting: true}
}

// expect sets the node id of the next listener kfake opens.
func (t *tap) expect(node int32) {
	t.mu.Lock()
	t.next, t.starting = node, false
	t.mu.Unlock()
}

// started ends sequential assignment after NewCluster returns.
func (t *tap) started() { t.expect(-1) }

// listen is the kfake.ListenFn.
func (t *tap) listen(network, address string) (net.Listener, error) {
	ln, err := t.listenFn(network, address)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	node := t.next
	if t.starting {
		t.next++
	} else {
		t.next = -1
	}
	l := &tapListener{t: t, node: node, network: network, addr: ln.Addr(), inner: ln, conns: map[*tapConn]struct{}{}}
	if t.listeners == nil {
		t.listeners = map[int32]*tapListener{}
	}
	t.listeners[node] = l
	return l, nil
}

// listenerOf is node's latest listener, or nil.
func (t *tap) listenerOf(node int32) *tapListener {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.listeners[node]
}

// tapListener is a broker's listener as kfake sees it. It can refuse
// connections for a while without kfake noticing (refuse): the socket it
// listens on is closed (connection attempts are refused by the operating
// system) and its open connections close, then it listens on the same
// address again (unrefuse) and Accept goes on.
type tapListener struct {
	t       *tap
	node    int32
	network string
	addr    net.Addr

	mu       sync.Mutex
	inner    net.Listener          // guarded by mu; nil while refusing
	refusing int                   // guarded by mu
	reopened chan struct{}         // guarded by mu; closed when inner is back or the listener closes
	closed   bool                  // guarded by mu; kfake closed the listener
	conns    map[*tapConn]struct{} // guarded by mu; open connections
}

func (l *tapListener) Addr() net.Addr { return l.addr }

// Close closes the listener for good (kfake stops the node or the cluster).
func (l *tapListener) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	if l.inner == nil {
		close(l.reopened)
		return nil
	}
	return l.inner.Close()
}

func (l *tapListener) Accept() (net.Conn, error) {
	for {
		l.mu.Lock()
		inner, wait, closed := l.inner, l.reopened, l.closed
		l.mu.Unlock()
		switch {
		case closed:
			return nil, net.ErrClosed
		case inner == nil:
			<-wait
			continue
		}
		c, err := inner.Accept()
		if err != nil {
			l.mu.Lock()
			refused := !l.closed && l.inner != inner
			l.mu.Unlock()
			if refused {
				continue // refuse closed the socket under us
			}
			return nil, err
		}
		tc := &tapConn{Conn: c, l: l}
		if l.t.answers != nil {
			tc.a = l.t.answers(l.node)
		}
		tc.s = l.t.stream(l.node, l.t.conns.Add(1), tc.a)
		l.mu.Lock()
		if l.inner == nil || l.closed {
			l.mu.Unlock()
			c.Close() // accepted just as refuse began
			continue
		}
		l.conns[tc] = struct{}{}
		l.mu.Unlock()
		return tc, nil
	}
}

// refuse closes the listening socket and every open connection; it returns
// how many connections it closed.
func (l *tapListener) refuse() int {
	l.mu.Lock()
	l.refusing++
	inner := l.inner
	if inner != nil {
		l.inner = nil
		l.reopened = make(chan struct{})
	}
	conns := make([]*tapConn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	if inner != nil {
		inner.Close()
	}
	for _, c := range conns {
		c.Conn.Close()
	}
	return len(conns)
}

// unrefuse ends one refuse; when none is left it listens on the same
// address again. Errors: the address cannot be listened on again.
func (l *tapListener) unrefuse() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refusing--
	if l.refusing > 0 || l.closed || l.inner != nil {
		return nil
	}
	ln, err := net.Listen(l.network, l.addr.String())
	if err != nil {
		return err
	}
	l.inner = ln
	close(l.reopened)
	return nil
}

// stream returns the request decoder of connection conn on node; with a,
// it keeps the requests whose responses a corrects. Requests of a key the
// Recorder keeps bodies of (wire.Recorder.KeepBodies) are held whole and
// recorded with their parsed body once their last byte arrives.
func (t *tap) stream(node int32, conn uint64, a *connAnswers) *wire.RequestStream {
	var withBody bool // the current frame is recorded with its body (set per frame in OnRequest)
	s := &wire.RequestStream{
		OnRequest: func(h wire.RequestHeader, at time.Time) {
			withBody = t.rec.WantsBody(h.Key) && h.Size <= wire.DefaultMaxFrame
			if !withBody {
				t.rec.Add(h.Record(at, node, conn))
			}
		},
		OnMalformed: func(error) { t.rec.AddMalformed() },
		Keep: func(h wire.RequestHeader) bool {
			return withBody || (a != nil && a.keep(h))
		},
		OnFrame: func(h wire.RequestHeader, frame []byte, at time.Time) {
			f, err := wire.ParseRequestFrame(frame) // once for both
			if err != nil {
				f = nil
			}
			if withBody {
				q := h.Record(at, node, conn)
				if f != nil {
					q.Body = f.Body
				}
				t.rec.Add(q)
			}
			if a != nil && a.keep(h) {
				a.onFrame(f)
			}
		},
	}
	return s
}

// tapConn decodes what kfake reads and, with a, corrects what it writes.
// kfake reads a connection from one goroutine at a time, handing over
// through a channel, so s needs no lock; it writes from one goroutine at a
// time too.
type tapConn struct {
	net.Conn
	l *tapListener
	s *wire.RequestStream
	a *connAnswers // nil: responses pass as kfake writes them
}

// Close closes the connection and forgets it.
func (c *tapConn) Close() error {
	c.l.mu.Lock()
	delete(c.l.conns, c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

func (c *tapConn) Write(b []byte) (int, error) {
	if c.a == nil {
		return c.Conn.Write(b)
	}
	return c.a.write(c.Conn, b)
}

func (c *tapConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.s.Feed(b[:n], time.Now())
	}
	return n, err
}
