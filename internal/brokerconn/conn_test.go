package brokerconn

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/wire"
	"github.com/kreactor/kreactor/wire/wiretest"
)

// Requests are pipelined and answered in order: three Metadata requests
// queued at once are all answered, each with its own version and
// correlation id, and arrive in the order Do queued them.
func TestPipelinedInOrder(t *testing.T) {
	b := serve(t, answerKeys)
	c := open(t, b.Addr())
	chs := doMetadata(t, c, 3)
	for i, ch := range chs {
		r := wait(t, ch)
		if r.err != nil {
			t.Fatalf("request %d: %v", i, r.err)
		}
		if r.resp.Key() != int16(kmsg.Metadata) || r.resp.GetVersion() != kmsg.NewPtrMetadataRequest().MaxVersion() {
			t.Fatalf("request %d: answer %s v%d", i, kmsg.NameForKey(r.resp.Key()), r.resp.GetVersion())
		}
	}
	got, _ := b.Requests(kmsg.Metadata)
	if len(got) != 3 {
		t.Fatalf("%d Metadata requests reached the broker, want 3", len(got))
	}
	for i, f := range got {
		topic := *f.Body.(*kmsg.MetadataRequest).Topics[0].Topic
		if want := string(rune('a' + i)); topic != want || f.ClientID == nil || *f.ClientID != "test" {
			t.Fatalf("request %d: topic %q client id %v, want %q and \"test\"", i, topic, f.ClientID, want)
		}
	}
	vs, _ := b.Requests(kmsg.ApiVersions)
	if len(vs) != 1 {
		t.Fatalf("%d ApiVersions requests, want 1", len(vs))
	}
	if av := vs[0].Body.(*kmsg.ApiVersionsRequest); av.Version >= 3 && av.ClientSoftwareName != "kreactor" {
		t.Fatalf("ApiVersions client software name %q, want kreactor", av.ClientSoftwareName)
	}
}

// A request unanswered by its deadline fails with context.DeadlineExceeded
// and closes the connection (Java's NetworkClient disconnects the node); the
// request behind it fails with the disconnection, not a timeout of its own,
// and the Conn takes nothing more.
func TestTimeoutClosesConnection(t *testing.T) {
	b := serve(t, answerKeys) // OffsetCommit: never answered
	c := open(t, b.Addr())
	const timeout = 200 * time.Millisecond
	start := time.Now()
	first := do(t, c, kmsg.NewPtrOffsetCommitRequest(), timeout)
	second := do(t, c, kmsg.NewPtrOffsetCommitRequest(), time.Hour)
	r := wait(t, first)
	if !errors.Is(r.err, context.DeadlineExceeded) {
		t.Fatalf("unanswered request: %v, want context.DeadlineExceeded", r.err)
	}
	if waited := time.Since(start); waited < timeout {
		t.Fatalf("timed out after %s, before its deadline %s", waited, timeout)
	}
	r = wait(t, second)
	if r.err == nil || errors.Is(r.err, context.DeadlineExceeded) || !strings.Contains(r.err.Error(), "OffsetCommit timed out") {
		t.Fatalf("request behind it: %v, want the disconnection", r.err)
	}
	if c.Err() == nil {
		t.Fatal("Err() nil after a timeout")
	}
	if err := c.Do(kmsg.NewPtrMetadataRequest(), time.Now().Add(time.Second), func(kmsg.Response, error) { t.Error("done called") }); err == nil {
		t.Fatal("Do on a failed Conn took the request")
	}
}

// A broker older than kmsg's ApiVersions answers UNSUPPORTED_VERSION with a
// v0 body naming its ApiVersions range (KIP-511); the Conn asks again at
// the highest version of that range and goes on.
func TestApiVersionsFallback(t *testing.T) {
	const brokerMax = 2
	b := serve(t, func(f *wire.RequestFrame) []byte {
		if f.Key == kmsg.ApiVersions && f.Version > brokerMax {
			return unsupportedV0(f, kmsg.ApiVersionsResponseApiKey{ApiKey: int16(kmsg.ApiVersions), MaxVersion: brokerMax})
		}
		return answerKeys(f)
	})
	c := open(t, b.Addr())
	if r := wait(t, do(t, c, kmsg.NewPtrMetadataRequest(), 5*time.Second)); r.err != nil {
		t.Fatalf("Metadata after the fallback: %v", r.err)
	}
	vs, _ := b.Requests(kmsg.ApiVersions)
	if len(vs) != 2 || vs[1].Version != brokerMax {
		t.Fatalf("ApiVersions sent %d times, last v%d; want twice, then v%d", len(vs), vs[len(vs)-1].Version, brokerMax)
	}
}

// A key the broker does not list fails with *UnsupportedError and writes
// nothing; the connection stays up for the next request.
func TestUnsupportedKey(t *testing.T) {
	b := serve(t, func(f *wire.RequestFrame) []byte {
		if f.Key == kmsg.ApiVersions {
			return wiretest.SupportAll(f, kmsg.ShareFetch)
		}
		return answerKeys(f)
	})
	c := open(t, b.Addr())
	r := wait(t, do(t, c, kmsg.NewPtrShareFetchRequest(), 5*time.Second))
	var ue *UnsupportedError
	if !errors.As(r.err, &ue) || ue.Key != kmsg.ShareFetch || ue.BrokerMax != -1 {
		t.Fatalf("ShareFetch to a broker without it: %v, want *UnsupportedError", r.err)
	}
	if r := wait(t, do(t, c, kmsg.NewPtrMetadataRequest(), 5*time.Second)); r.err != nil {
		t.Fatalf("Metadata after it: %v", r.err)
	}
	if got, _ := b.Requests(kmsg.ShareFetch); len(got) != 0 {
		t.Fatalf("%d ShareFetch requests written, want 0", len(got))
	}
}

// A throttle the broker applies after its response (KIP-219: Metadata v6+)
// holds the next write on the connection until it ends.
func TestThrottleDelaysNextWrite(t *testing.T) {
	const throttle = 300 // ms
	b := serve(t, func(f *wire.RequestFrame) []byte {
		if f.Key == kmsg.Metadata {
			return metadataAnswer(f, throttle)
		}
		return answerKeys(f)
	})
	c := open(t, b.Addr())
	first := wait(t, do(t, c, kmsg.NewPtrMetadataRequest(), 5*time.Second))
	if first.err != nil {
		t.Fatal(first.err)
	}
	answered := time.Now()
	if r := wait(t, do(t, c, kmsg.NewPtrMetadataRequest(), 5*time.Second)); r.err != nil {
		t.Fatal(r.err)
	}
	heldFor(t, b, 1, answered, throttle)
}

// An answer whose correlation id is not the oldest request's fails that
// request with an error wrapping wire.ErrMalformed that names both ids, and
// the connection closes.
func TestMismatchedCorrelationID(t *testing.T) {
	b := serve(t, func(f *wire.RequestFrame) []byte {
		if f.Key == kmsg.Metadata {
			f.CorrelationID += 100
			return metadataAnswer(f, 0)
		}
		return answerKeys(f)
	})
	c := open(t, b.Addr())
	r := wait(t, do(t, c, kmsg.NewPtrMetadataRequest(), 5*time.Second))
	if !errors.Is(r.err, wire.ErrMalformed) || !strings.Contains(r.err.Error(), "correlation id") {
		t.Fatalf("mismatched answer: %v, want wire.ErrMalformed naming the correlation id", r.err)
	}
	if c.Err() == nil {
		t.Fatal("Err() nil after a mismatched answer")
	}
}

// A refused dial reaches the queued request wrapped as the dialer returned
// it (a *net.OpError with Op "dial"), so the consumer can back off.
func TestDialRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := open(t, addr)
	r := wait(t, do(t, c, kmsg.NewPtrMetadataRequest(), 5*time.Second))
	var op *net.OpError
	if !errors.As(r.err, &op) || op.Op != "dial" {
		t.Fatalf("request to a closed port: %v, want a *net.OpError dial", r.err)
	}
}

// A broker that closes the connection fails what is in flight with the read
// error; Close fails what is queued with its error and returns once the
// Conn's goroutines ended (TestMain's goleak check).
func TestBrokerCloseAndClose(t *testing.T) {
	b := serve(t, answerKeys) // OffsetCommit: never answered
	c := open(t, b.Addr())
	ch := do(t, c, kmsg.NewPtrOffsetCommitRequest(), 5*time.Second)
	// The broker closes once the request is in flight, not while the
	// connection is still being set up.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if got, _ := b.Requests(kmsg.OffsetCommit); len(got) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the OffsetCommit did not reach the broker in 5 s")
		}
	}
	b.Close()
	r := wait(t, ch)
	if r.err == nil || errors.Is(r.err, context.DeadlineExceeded) {
		t.Fatalf("request on a closed connection: %v, want the read error", r.err)
	}

	idle := serve(t, answerKeys)
	c2 := open(t, idle.Addr())
	queued := do(t, c2, kmsg.NewPtrOffsetCommitRequest(), time.Hour)
	c2.Close(context.Canceled)
	if r := wait(t, queued); !errors.Is(r.err, context.Canceled) {
		t.Fatalf("request at Close: %v, want context.Canceled", r.err)
	}
}

// LaneOf keeps long-held requests off the connection heartbeats use.
func TestLaneOf(t *testing.T) {
	for _, tc := range []struct {
		req  kmsg.Request
		want Lane
	}{
		{kmsg.NewPtrFetchRequest(), Fetch},
		{kmsg.NewPtrShareFetchRequest(), Fetch},
		{kmsg.NewPtrShareAcknowledgeRequest(), Fetch},
		{kmsg.NewPtrConsumerGroupHeartbeatRequest(), Normal},
		{kmsg.NewPtrOffsetCommitRequest(), Normal},
		{kmsg.NewPtrListOffsetsRequest(), Normal},
		{kmsg.NewPtrJoinGroupRequest(), Group},
		{kmsg.NewPtrCreateTopicsRequest(), Slow},
		{kmsg.NewPtrProduceRequest(), Produce},
	} {
		if got := LaneOf(tc.req); got != tc.want {
			t.Errorf("%s: lane %s, want %s", kmsg.NameForKey(tc.req.Key()), got, tc.want)
		}
	}
}

// An answer that arrived while the reader was still in the previous
// request's done completes its request even though that request's deadline
// passed meanwhile: answers received are taken before timeouts, as in
// Java's NetworkClient.
func TestAnswerReadAfterItsDeadline(t *testing.T) {
	b := serve(t, answerKeys)
	c := open(t, b.Addr())
	const deadline = 100 * time.Millisecond
	slow := make(chan result, 1)
	if err := c.Do(kmsg.NewPtrMetadataRequest(), time.Now().Add(time.Minute), func(resp kmsg.Response, err error) {
		time.Sleep(3 * deadline) // done waits, as for a full inbox
		slow <- result{resp, err}
	}); err != nil {
		t.Fatal(err)
	}
	next := do(t, c, kmsg.NewPtrMetadataRequest(), deadline)
	if r := wait(t, slow); r.err != nil {
		t.Fatal(r.err)
	}
	if r := wait(t, next); r.err != nil {
		t.Fatalf("answer read after its request's deadline: %v, want the answer", r.err)
	}
}

// Produce with acks=0 has no answer to complete it with: it fails at once
// and nothing is written.
func TestProduceAcksZeroRefused(t *testing.T) {
	b := serve(t, answerKeys)
	c := open(t, b.Addr())
	req := kmsg.NewPtrProduceRequest()
	req.Acks = 0
	if r := wait(t, do(t, c, req, 5*time.Second)); !errors.Is(r.err, errNoAnswer) {
		t.Fatalf("acks=0 Produce: %v, want errNoAnswer", r.err)
	}
	if got, _ := b.Requests(kmsg.Produce); len(got) != 0 {
		t.Fatalf("%d Produce requests written, want 0", len(got))
	}
}

// Answers larger and smaller than the reader's buffer, written by the
// broker in one write after all their requests arrived (so that one read
// can hold the end of one answer and the start of the next), each reach
// their own request whole: the buffered reader neither loses nor shifts
// bytes between frames.
func TestAnswersAroundReadBuffer(t *testing.T) {
	const n = 8
	padded := 8 * readBuffer / 40 // topic entries of about 40 bytes: about 8 buffers
	answer := func(f *wire.RequestFrame, i int) []byte {
		resp := kmsg.NewPtrMetadataResponse()
		pad := 1
		if i%2 == 0 {
			pad = padded
		}
		for k := range pad {
			tp := kmsg.NewMetadataResponseTopic()
			tp.Topic = kmsg.StringPtr(*f.Body.(*kmsg.MetadataRequest).Topics[0].Topic)
			if k > 0 {
				tp.Topic = kmsg.StringPtr("padding-topic")
			}
			resp.Topics = append(resp.Topics, tp)
		}
		return f.Response(resp)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	served := make(chan error, 1)
	go func() { served <- serveBatched(ln, n, answer) }()
	c := open(t, ln.Addr().String())
	chs := doMetadata(t, c, n)
	for i, ch := range chs {
		r := wait(t, ch)
		if r.err != nil {
			t.Fatalf("request %d: %v", i, r.err)
		}
		topics := r.resp.(*kmsg.MetadataResponse).Topics
		want, wantLen := string(rune('a'+i)), 1
		if i%2 == 0 {
			wantLen = padded
		}
		if len(topics) != wantLen || *topics[0].Topic != want {
			t.Fatalf("request %d: answer with %d topics, want %d, the first %q", i, len(topics), wantLen, want)
		}
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}

// serveBatched accepts one connection, answers its ApiVersions, reads n
// more requests and writes the n answers answer gives in one write.
func serveBatched(ln net.Listener, n int, answer func(*wire.RequestFrame, int) []byte) error {
	nc, err := ln.Accept()
	if err != nil {
		return err
	}
	defer nc.Close()
	read := func() (*wire.RequestFrame, error) {
		frame, _, err := wire.ReadFrame(nc, wire.MinRequestSize, wire.DefaultMaxFrame)
		if err != nil {
			return nil, err
		}
		return wire.ParseRequestFrame(frame)
	}
	f, err := read()
	if err != nil {
		return err
	}
	if _, err := nc.Write(wiretest.SupportAll(f)); err != nil {
		return err
	}
	var out []byte
	for i := range n {
		f, err := read()
		if err != nil {
			return err
		}
		out = append(out, answer(f, i)...)
	}
	_, err = nc.Write(out)
	return err
}
