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
	rec   *wire.Recorder
	conns atomic.Uint64 // connection counter

	mu       sync.Mutex
	next     int32 // guarded by mu; node for the next listener, -1 if unknown
	starting bool  // guarded by mu; while true, next increments per listener
}

func newTap(rec *wire.Recorder) *tap {
	return &tap{rec: rec, starting: true}
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
	ln, err := net.Listen(network, address)
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
	return &tapConn{Conn: c, s: l.t.stream(l.node, l.t.conns.Add(1))}, nil
}

// stream returns the request decoder of connection conn on node.
func (t *tap) stream(node int32, conn uint64) *wire.RequestStream {
	return &wire.RequestStream{
		OnRequest: func(h wire.RequestHeader, at time.Time) {
			t.rec.Add(h.Record(at, node, conn))
		},
		OnMalformed: func(error) { t.rec.AddMalformed() },
	}
}

// tapConn decodes what kfake reads. kfake reads a connection from one
// goroutine at a time, handing over through a channel, so s needs no lock.
type tapConn struct {
	net.Conn
	s *wire.RequestStream
}

func (c *tapConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.s.Feed(b[:n], time.Now())
	}
	return n, err
}
