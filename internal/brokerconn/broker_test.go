package brokerconn

import (
	"context"
	"encoding/binary"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/wire"
	"github.com/kreactor/kreactor/wire/wiretest"
)

// serve starts a scripted broker answering with answer.
func serve(t *testing.T, answer func(f *wire.RequestFrame) []byte) *wiretest.Broker {
	t.Helper()
	b := wiretest.Listen(t)
	b.Serve(answer)
	return b
}

// metadataAnswer answers Metadata with no brokers and throttle ms.
func metadataAnswer(f *wire.RequestFrame, throttle int32) []byte {
	resp := kmsg.NewPtrMetadataResponse()
	resp.ThrottleMillis = throttle
	return f.Response(resp)
}

// answerKeys is the default script: ApiVersions with every key kmsg knows,
// Metadata answered at once, everything else never answered.
func answerKeys(f *wire.RequestFrame) []byte {
	switch f.Key {
	case kmsg.ApiVersions:
		return wiretest.SupportAll(f)
	case kmsg.Metadata:
		return metadataAnswer(f, 0)
	}
	return nil
}

// doMetadata queues n Metadata requests on c at once, the i-th asking for
// topic 'a'+i, and returns their results in order.
func doMetadata(t *testing.T, c *Conn, n int) []<-chan result {
	t.Helper()
	chs := make([]<-chan result, n)
	for i := range n {
		req := kmsg.NewPtrMetadataRequest()
		req.Topics = []kmsg.MetadataRequestTopic{{Topic: kmsg.StringPtr(string(rune('a' + i)))}}
		chs[i] = do(t, c, req, 5*time.Second)
	}
	return chs
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

// heldFor checks that the i-th Metadata request (from 0) reached b no
// sooner than ms after since, the moment a throttle of ms was announced
// (10 ms of slack for clock reads on either side).
func heldFor(t *testing.T, b *wiretest.Broker, i int, since time.Time, ms int) {
	t.Helper()
	_, at := b.Requests(kmsg.Metadata)
	if len(at) <= i {
		t.Fatalf("%d Metadata requests reached the broker, want %d", len(at), i+1)
	}
	if gap := at[i].Sub(since); gap < time.Duration(ms)*time.Millisecond-10*time.Millisecond {
		t.Fatalf("request %d reached the broker %s after a %d ms throttle was announced", i+1, gap, ms)
	}
}

// unsupportedV0 answers f, an ApiVersions request, as a broker older than
// its version does (KIP-511): UNSUPPORTED_VERSION in a v0 body listing keys,
// under a v0 response header.
func unsupportedV0(f *wire.RequestFrame, keys ...kmsg.ApiVersionsResponseApiKey) []byte {
	v0 := kmsg.NewPtrApiVersionsResponse()
	v0.ErrorCode = kerr.UnsupportedVersion.Code
	v0.ApiKeys = keys
	body := v0.AppendTo(binary.BigEndian.AppendUint32(nil, uint32(f.CorrelationID)))
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}
