package brokerconn

import (
	"context"
	"net"
	"testing"
	"time"

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
