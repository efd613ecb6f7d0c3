package bench

import (
	"context"
	"net"
	"sync/atomic"
	"time"
)

// readClock splits a produce-to-Poll latency at the client's socket. Every
// connection a Go subject dials is wrapped so that each Read returning bytes
// stores its time; at Poll's return, now minus that time is the part of the
// latency spent inside the client (the response's last bytes read, decoded,
// handed between goroutines, returned by Poll), the rest was spent before
// the bytes reached the socket (the Fetch's wait at the broker, the
// network). Each client reads through its own connections (the reactor
// and the baseline through internal/brokerconn, kgo through its own), and
// the wrapper sits under both, so the two clients' read-to-Poll figures
// compare their own paths only.
//
// The last Read of any connection is taken, which at the latency job's rate
// (one record a millisecond, heartbeats every few hundred) is almost always
// the Fetch response that carried the record.
type readClock struct{ last atomic.Int64 } // Unix ns of the last Read with bytes

// wrap is a dial function (consumer.Config.Dial, kgo.Dialer) whose
// connections tick the clock; dial nil uses net.Dialer.
func (c *readClock) wrap(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &clockedConn{Conn: conn, clock: c}, nil
	}
}

// sinceRead is the time since the last Read with bytes (0 before any).
func (c *readClock) sinceRead(now time.Time) time.Duration {
	last := c.last.Load()
	if last == 0 {
		return 0
	}
	return time.Duration(now.UnixNano() - last)
}

// clockedConn is a connection whose Reads tick its clock.
type clockedConn struct {
	net.Conn
	clock *readClock
}

func (c *clockedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.clock.last.Store(time.Now().UnixNano())
	}
	return n, err
}

// readClocked is a client whose connections tick a readClock (the Go
// subjects in the latency job).
type readClocked interface{ readClock() *readClock }
