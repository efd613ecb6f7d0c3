package brokerconn

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/wire"
)

// Every bound below is the request's own deadline; the slack (a second)
// only keeps a busy machine from failing the test, and is far below the
// wait each case would show if the deadline were not enforced.
const slack = time.Second

// failsByDeadline waits for ch and checks that the request failed with
// context.DeadlineExceeded no later than its deadline plus slack.
func failsByDeadline(t *testing.T, ch <-chan result, start time.Time, deadline time.Duration) {
	t.Helper()
	r := wait(t, ch)
	if took := time.Since(start); !errors.Is(r.err, context.DeadlineExceeded) || took > deadline+slack {
		t.Fatalf("after %s: %v; want context.DeadlineExceeded by %s", took, r.err, deadline)
	}
}

// A request queued behind a KIP-219 throttle still fails at its deadline,
// not when the throttle (10 s here) ends.
func TestDeadlineWhileThrottled(t *testing.T) {
	var n atomic.Int32
	b := serve(t, func(f *wire.RequestFrame) []byte {
		if f.Key == kmsg.Metadata && n.Add(1) == 1 {
			return metadataAnswer(f, 10_000)
		}
		return answerKeys(f)
	})
	c := open(t, b.Addr())
	if r := wait(t, do(t, c, kmsg.NewPtrMetadataRequest(), 5*time.Second)); r.err != nil {
		t.Fatal(r.err)
	}
	const deadline = 200 * time.Millisecond
	start := time.Now()
	failsByDeadline(t, do(t, c, kmsg.NewPtrMetadataRequest(), deadline), start, deadline)
}

// A request queued while the broker has not answered ApiVersions fails at
// its own deadline with context.DeadlineExceeded, not when the handshake
// gives up (10 s here) with the handshake's error.
func TestDeadlineWhileConnecting(t *testing.T) {
	b := serve(t, func(*wire.RequestFrame) []byte { return nil }) // ApiVersions never answered
	c := Open(b.Addr(), Options{
		Formatter:        kmsg.NewRequestFormatter(kmsg.FormatterClientID("test")),
		HandshakeTimeout: 10 * time.Second,
		Dial: func(ctx context.Context) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "tcp", b.Addr())
		},
	})
	t.Cleanup(func() { c.Close(nil) })
	const deadline = 200 * time.Millisecond
	start := time.Now()
	failsByDeadline(t, do(t, c, kmsg.NewPtrMetadataRequest(), deadline), start, deadline)
}

// A request whose deadline is earlier than the one in flight before it
// times out at its own deadline, not the other's (10 s here).
func TestEarlierDeadlineBehindLater(t *testing.T) {
	b := serve(t, answerKeys) // OffsetCommit: never answered
	c := open(t, b.Addr())
	first := do(t, c, kmsg.NewPtrOffsetCommitRequest(), 10*time.Second)
	const deadline = 200 * time.Millisecond
	start := time.Now()
	failsByDeadline(t, do(t, c, kmsg.NewPtrOffsetCommitRequest(), deadline), start, deadline)
	if r := wait(t, first); r.err == nil || errors.Is(r.err, context.DeadlineExceeded) {
		t.Fatalf("the request in flight with it: %v, want the disconnection", r.err)
	}
}

// A write takes the deadlines of the requests it carries, not that of an
// older request whose answer is already in the socket while the reader is
// still in an earlier done: nothing fails here.
func TestWriteDeadlineIsTheBatchs(t *testing.T) {
	b := serve(t, answerKeys)
	c := open(t, b.Addr())
	slow := make(chan result, 1)
	if err := c.Do(kmsg.NewPtrMetadataRequest(), time.Now().Add(time.Minute), func(resp kmsg.Response, err error) {
		time.Sleep(600 * time.Millisecond) // done waits, as for a full inbox
		slow <- result{resp, err}
	}); err != nil {
		t.Fatal(err)
	}
	second := do(t, c, kmsg.NewPtrMetadataRequest(), 200*time.Millisecond) // answered at once, read late
	time.Sleep(300 * time.Millisecond)
	third := do(t, c, kmsg.NewPtrMetadataRequest(), 5*time.Second)
	for i, ch := range []<-chan result{slow, second, third} {
		if r := wait(t, ch); r.err != nil {
			t.Fatalf("request %d: %v", i+1, r.err)
		}
	}
}

// A throttle announced while the writer already waits out a shorter one
// holds the next write until the longer one ends.
func TestThrottleExtendedWhileWaiting(t *testing.T) {
	const long = 800 // ms
	var n atomic.Int32
	b := serve(t, func(f *wire.RequestFrame) []byte {
		if f.Key == kmsg.Metadata {
			switch n.Add(1) {
			case 1:
				return metadataAnswer(f, 100)
			case 2:
				time.Sleep(50 * time.Millisecond)
				return metadataAnswer(f, long)
			}
		}
		return answerKeys(f)
	})
	c := open(t, b.Addr())
	first := do(t, c, kmsg.NewPtrMetadataRequest(), 5*time.Second)
	second := do(t, c, kmsg.NewPtrMetadataRequest(), 5*time.Second) // pipelined with the first
	wait(t, first)
	third := do(t, c, kmsg.NewPtrMetadataRequest(), 5*time.Second) // waits for the 100 ms throttle
	wait(t, second)
	announced := time.Now()
	if r := wait(t, third); r.err != nil {
		t.Fatal(r.err)
	}
	heldFor(t, b, 2, announced, long)
}

// A broker that answers UNSUPPORTED_VERSION without naming its ApiVersions
// range gets ApiVersions v0, as Java sends.
func TestApiVersionsFallbackToV0(t *testing.T) {
	b := serve(t, func(f *wire.RequestFrame) []byte {
		if f.Key == kmsg.ApiVersions && f.Version > 0 {
			return unsupportedV0(f)
		}
		return answerKeys(f)
	})
	c := open(t, b.Addr())
	if r := wait(t, do(t, c, kmsg.NewPtrMetadataRequest(), 5*time.Second)); r.err != nil {
		t.Fatalf("Metadata after the fallback: %v", r.err)
	}
	if vs, _ := b.Requests(kmsg.ApiVersions); len(vs) != 2 || vs[1].Version != 0 {
		t.Fatalf("ApiVersions sent %d times, want twice, the second at v0", len(vs))
	}
}

// Requests racing Close, some with deadlines already past (completed by the
// expiry timer while the connection is not ready): every request Do took is
// completed exactly once.
func TestDoRacingCloseCompletesEachOnce(t *testing.T) {
	for round := range 20 {
		b := serve(t, answerKeys)
		c := open(t, b.Addr())
		var accepted, completed, twice atomic.Int64
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for i := range 200 {
					var once atomic.Int32
					var req kmsg.Request = kmsg.NewPtrMetadataRequest()
					if i%3 == 0 {
						req = kmsg.NewPtrOffsetCommitRequest() // never answered
					}
					if c.Do(req, time.Now().Add(time.Duration(i%5)*time.Millisecond), func(kmsg.Response, error) {
						if once.Add(1) > 1 {
							twice.Add(1)
						}
						completed.Add(1)
					}) == nil {
						accepted.Add(1)
					}
				}
			})
		}
		time.Sleep(time.Duration(round%7) * time.Millisecond)
		c.Close(nil)
		wg.Wait()
		if accepted.Load() != completed.Load() || twice.Load() != 0 {
			t.Fatalf("round %d: %d taken, %d completed, %d twice", round, accepted.Load(), completed.Load(), twice.Load())
		}
		b.Close()
	}
}
