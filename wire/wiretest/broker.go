// Package wiretest is a scripted Kafka broker on loopback, for tests of
// clients and proxies that speak the protocol themselves: every request
// frame a connection sends is parsed with wire.ParseRequestFrame, recorded
// with the time its size prefix was read, and answered with what the test's
// function returns (nothing, when it returns nil).
package wiretest

import (
	"net"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/wire"
)

// Broker is a scripted broker listening on 127.0.0.1.
type Broker struct {
	ln net.Listener
	wg sync.WaitGroup

	mu    sync.Mutex // guards the fields below
	got   []*wire.RequestFrame
	at    []time.Time
	conns []net.Conn
}

// Listen opens a Broker's listener; nothing is accepted until Serve. The
// Broker closes at the test's cleanup.
func Listen(t testing.TB) *Broker {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &Broker{ln: ln}
	t.Cleanup(b.Close)
	return b
}

// Serve accepts connections and answers each request frame with
// answer(frame); a nil answer leaves the request unanswered (the requests
// behind it on the connection are still read). A connection ends at the
// first frame that does not parse or at a failed write.
func (b *Broker) Serve(answer func(f *wire.RequestFrame) []byte) {
	b.wg.Go(func() {
		for {
			nc, err := b.ln.Accept()
			if err != nil {
				return
			}
			b.mu.Lock()
			b.conns = append(b.conns, nc)
			b.mu.Unlock()
			b.wg.Go(func() { b.serve(nc, answer) })
		}
	})
}

func (b *Broker) serve(nc net.Conn, answer func(f *wire.RequestFrame) []byte) {
	for {
		frame, at, err := wire.ReadFrame(nc, wire.MinRequestSize, wire.DefaultMaxFrame)
		if err != nil {
			return
		}
		f, err := wire.ParseRequestFrame(frame)
		if err != nil {
			return
		}
		b.mu.Lock()
		b.got, b.at = append(b.got, f), append(b.at, at)
		b.mu.Unlock()
		if out := answer(f); out != nil {
			if _, err := nc.Write(out); err != nil {
				return
			}
		}
	}
}

// Addr is the listener's host:port.
func (b *Broker) Addr() string { return b.ln.Addr().String() }

// Port is the listener's port.
func (b *Broker) Port() int32 { return int32(b.ln.Addr().(*net.TCPAddr).Port) }

// Requests returns the frames of key received so far and when each arrived.
func (b *Broker) Requests(key kmsg.Key) (fs []*wire.RequestFrame, at []time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, f := range b.got {
		if f.Key == key {
			fs, at = append(fs, f), append(at, b.at[i])
		}
	}
	return fs, at
}

// Close stops accepting, closes every connection and waits for their
// goroutines. Safe to call more than once.
func (b *Broker) Close() {
	b.ln.Close()
	b.mu.Lock()
	for _, nc := range b.conns {
		nc.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
}

// SupportAll answers f, an ApiVersions request, with every key kmsg knows at
// every version it knows, except the keys in without.
func SupportAll(f *wire.RequestFrame, without ...kmsg.Key) []byte {
	resp := kmsg.NewPtrApiVersionsResponse()
outer:
	for k := int16(0); k <= kmsg.MaxKey; k++ {
		req := kmsg.RequestForKey(k)
		if req == nil {
			continue
		}
		for _, w := range without {
			if kmsg.Key(k) == w {
				continue outer
			}
		}
		resp.ApiKeys = append(resp.ApiKeys, kmsg.ApiVersionsResponseApiKey{ApiKey: k, MaxVersion: req.MaxVersion()})
	}
	return f.Response(resp)
}
