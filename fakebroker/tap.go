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
	answers func() *connAnswers

	mu       sync.Mutex
	next     int32 // guarded by mu; node for the next listener, -1 if unknown
	starting bool  // guarded by mu; while true, next increments per listener
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
	node := t.next
	if t.starting {
		t.next++
	} else {
		t.next = -1
	}
	t.mu.Unlock()
	return &tapListener{Listener: ln, t: t, node: node}, nil
}

type tapListener struct {
	net.Listener
	t    *tap
	node int32
}

func (l *tapListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &tapConn{Conn: c}
	if l.t.answers != nil {
		tc.a = l.t.answers()
	}
	tc.s = l.t.stream(l.node, l.t.conns.Add(1), tc.a)
	return tc, nil
}

// stream returns the request decoder of connection conn on node; with a,
// it keeps the requests whose responses a corrects.
func (t *tap) stream(node int32, conn uint64, a *connAnswers) *wire.RequestStream {
	s := &wire.RequestStream{
		OnRequest: func(h wire.RequestHeader, at time.Time) {
			t.rec.Add(h.Record(at, node, conn))
		},
		OnMalformed: func(error) { t.rec.AddMalformed() },
	}
	if a != nil {
		s.Keep = a.keep
		s.OnFrame = func(h wire.RequestHeader, frame []byte, _ time.Time) { a.onFrame(h, frame) }
	}
	return s
}

// tapConn decodes what kfake reads and, with a, corrects what it writes.
// kfake reads a connection from one goroutine at a time, handing over
// through a channel, so s needs no lock; it writes from one goroutine at a
// time too.
type tapConn struct {
	net.Conn
	s *wire.RequestStream
	a *connAnswers // nil: responses pass as kfake writes them
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
