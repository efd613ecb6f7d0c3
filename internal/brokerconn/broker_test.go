package brokerconn

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/wire"
)

// scripted is a broker on loopback that answers each request frame with
// what answer returns (nil: no answer) and records when each arrived.
type scripted struct {
	ln     net.Listener
	answer func(f *wire.RequestFrame) []byte
	wg     sync.WaitGroup

	mu    sync.Mutex
	got   []*wire.RequestFrame
	at    []time.Time
	conns []net.Conn
}

func newScripted(t *testing.T, answer func(f *wire.RequestFrame) []byte) *scripted {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &scripted{ln: ln, answer: answer}
	s.wg.Add(1)
	go s.accept()
	t.Cleanup(s.close)
	return s
}

func (s *scripted) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns = append(s.conns, nc)
		s.mu.Unlock()
		s.wg.Add(1)
		go s.serve(nc)
	}
}

func (s *scripted) serve(nc net.Conn) {
	defer s.wg.Done()
	for {
		frame, at, err := wire.ReadFrame(nc, wire.MinRequestSize, wire.DefaultMaxFrame)
		if err != nil {
			return
		}
		f, err := wire.ParseRequestFrame(frame)
		if err != nil {
			return
		}
		s.mu.Lock()
		s.got = append(s.got, f)
		s.at = append(s.at, at)
		s.mu.Unlock()
		if out := s.answer(f); out != nil {
			if _, err := nc.Write(out); err != nil {
				return
			}
		}
	}
}

func (s *scripted) close() {
	s.ln.Close()
	s.mu.Lock()
	for _, nc := range s.conns {
		nc.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// requests returns the frames received so far of key.
func (s *scripted) requests(key kmsg.Key) (fs []*wire.RequestFrame, at []time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.got {
		if f.Key == key {
			fs, at = append(fs, f), append(at, s.at[i])
		}
	}
	return fs, at
}

// supportAll answers ApiVersions with every key and version kmsg knows,
// except the keys in without.
func supportAll(f *wire.RequestFrame, without ...kmsg.Key) []byte {
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

// metadataAnswer answers Metadata with no brokers and throttle ms.
func metadataAnswer(f *wire.RequestFrame, throttle int32) []byte {
	resp := kmsg.NewPtrMetadataResponse()
	resp.ThrottleMillis = throttle
	return f.Response(resp)
}

func open(t *testing.T, addr string) *Conn {
	t.Helper()
	c := Open(addr, Options{
		Formatter:        kmsg.NewRequestFormatter(kmsg.FormatterClientID("test")),
		HandshakeTimeout: 5 * time.Second,
		Dial: func(ctx context.Context) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		},
	})
	t.Cleanup(func() { c.Close(context.Canceled) })
	return c
}

// result is one request's completion.
type result struct {
	resp kmsg.Response
	err  error
}

// do queues req on c with a deadline timeout from now and returns the
// channel its completion arrives on.
func do(t *testing.T, c *Conn, req kmsg.Request, timeout time.Duration) <-chan result {
	t.Helper()
	ch := make(chan result, 1)
	if err := c.Do(req, time.Now().Add(timeout), func(resp kmsg.Response, err error) { ch <- result{resp, err} }); err != nil {
		t.Fatalf("Do: %v", err)
	}
	return ch
}

func wait(t *testing.T, ch <-chan result) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("request not completed in 10 s")
		return result{}
	}
}

// answerKeys returns a script: ApiVersions as supportAll, Metadata answered
// with no throttle, everything else unanswered.
func answerKeys(f *wire.RequestFrame) []byte {
	switch f.Key {
	case kmsg.ApiVersions:
		return supportAll(f)
	case kmsg.Metadata:
		return metadataAnswer(f, 0)
	}
	return nil
}
