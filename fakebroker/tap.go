package fakebroker

import (
	"encoding/binary"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// tap is the kfake.ListenFn that wraps every broker listener so each accepted
// connection's request bytes are parsed into the Recorder.
//
// kfake calls ListenFn once per broker: in node order 0..n-1 from NewCluster,
// and from AddNode on its cluster goroutine. The node a listener belongs to
// is therefore assigned here: sequentially while starting, and by expect just
// before fakebroker calls AddNode. A listener kfake opens any other way (a
// direct Cluster().AddNode) records Node -1.
type tap struct {
	rec   *Recorder
	conns atomic.Uint64 // connection counter

	mu       sync.Mutex
	next     int32 // guarded by mu; node for the next listener, -1 if unknown
	starting bool  // guarded by mu; while true, next increments per listener
}

func newTap(rec *Recorder) *tap {
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
	p := &frameParser{node: l.node, conn: l.t.conns.Add(1), rec: l.t.rec}
	return &tapConn{Conn: c, p: p}, nil
}

// tapConn parses what kfake reads. kfake reads a connection from one
// goroutine at a time, handing over through a channel, so p needs no lock.
type tapConn struct {
	net.Conn
	p *frameParser
}

func (c *tapConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.p.feed(b[:n], time.Now())
	}
	return n, err
}

// Request header v1/v2 layout after the 4-byte size: api key int16, api
// version int16, correlation id int32, client id nullable string (int16
// length, -1 for null, then bytes). Header v2 adds tagged fields after the
// client id, which we skip with the body.
const (
	sizeLen  = 4
	fixedLen = 2 + 2 + 4 + 2 // key, version, correlation id, client id length
)

type parseState uint8

const (
	stSize     parseState = iota // reading the 4-byte size
	stFixed                      // reading key, version, correlation id, client id length
	stClientID                   // reading the client id bytes
	stSkip                       // discarding the rest of the frame
	stBroken                     // stream unparseable; ignore everything
)

// frameParser turns a request byte stream, delivered in arbitrary pieces,
// into Requests. Only one goroutine may call feed at a time.
type frameParser struct {
	node int32
	conn uint64
	rec  *Recorder

	state parseState
	buf   []byte    // bytes of the current state's field(s) so far
	want  int       // bytes the current state needs in buf
	size  int32     // current frame size
	skip  int64     // bytes still to discard in stSkip
	at    time.Time // when the current frame's first byte arrived
	hdr   Request   // header fields decoded so far
}

// feed parses b, which arrived at now.
func (p *frameParser) feed(b []byte, now time.Time) {
	for len(b) > 0 {
		switch p.state {
		case stBroken:
			return
		case stSkip:
			k := min(int64(len(b)), p.skip)
			b = b[k:]
			p.skip -= k
			if p.skip == 0 {
				p.state = stSize
			}
			continue
		case stSize:
			if len(p.buf) == 0 {
				p.at, p.want = now, sizeLen
			}
		}
		k := min(p.want-len(p.buf), len(b))
		p.buf = append(p.buf, b[:k]...)
		b = b[k:]
		if len(p.buf) == p.want {
			p.advance()
		}
	}
}

// advance acts on a completed field in p.buf.
func (p *frameParser) advance() {
	buf := p.buf
	p.buf = p.buf[:0]
	switch p.state {
	case stSize:
		p.size = int32(binary.BigEndian.Uint32(buf))
		switch {
		case p.size < 0:
			p.rec.AddMalformed()
			p.state = stBroken
		case p.size < fixedLen:
			p.rec.AddMalformed()
			p.skipRest(0)
		default:
			p.state, p.want = stFixed, fixedLen
		}
	case stFixed:
		p.hdr = Request{
			Key:           kmsg.Key(int16(binary.BigEndian.Uint16(buf[0:]))),
			Version:       int16(binary.BigEndian.Uint16(buf[2:])),
			CorrelationID: int32(binary.BigEndian.Uint32(buf[4:])),
			Node:          p.node,
			Conn:          p.conn,
			Size:          p.size,
			At:            p.at,
		}
		n := int(int16(binary.BigEndian.Uint16(buf[8:])))
		switch {
		case n <= 0: // null (-1) or empty client id
			p.emit(fixedLen)
		case fixedLen+n > int(p.size):
			p.rec.AddMalformed()
			p.skipRest(fixedLen)
		default:
			p.state, p.want = stClientID, n
		}
	case stClientID:
		p.hdr.ClientID = string(buf)
		p.emit(fixedLen + len(buf))
	}
}

// emit records the decoded header; read bytes of the frame were consumed.
func (p *frameParser) emit(read int) {
	p.rec.Add(p.hdr)
	p.skipRest(read)
}

// skipRest discards the rest of the current frame after read body bytes.
func (p *frameParser) skipRest(read int) {
	p.skip = int64(p.size) - int64(read)
	if p.skip > 0 {
		p.state = stSkip
	} else {
		p.state = stSize
	}
}
