package java

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/fakebroker"
)

// testTimeout bounds every wait in these tests.
const testTimeout = 60 * time.Second

func startBroker(t testing.TB, topics map[string]int32) *fakebroker.Broker {
	t.Helper()
	b, err := fakebroker.Start(fakebroker.Config{Topics: topics, BrokerConfigs: map[string]string{
		"group.share.record.lock.duration.ms": "2000",
		"share.record.lock.sweep.interval.ms": "100",
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

func produce(t testing.TB, b *fakebroker.Broker, topic string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if _, err := b.Produce(ctx, topic, n, nil); err != nil {
		t.Fatal(err)
	}
}

// props returns consumer properties for b with a unique client id.
func props(t testing.TB, b *fakebroker.Broker, group, protocol string) map[string]string {
	p := map[string]string{
		"bootstrap.servers":  strings.Join(b.Addrs(), ","),
		"client.id":          clientID(t),
		"auto.offset.reset":  "earliest",
		"enable.auto.commit": "false",
	}
	if group != "" {
		p["group.id"] = group
	}
	if protocol != "" {
		p["group.protocol"] = protocol
	}
	return p
}

var clientSeq int

func clientID(t testing.TB) string {
	clientSeq++
	return fmt.Sprintf("kreactor-java-%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), clientSeq)
}

func newConsumer(t testing.TB, o Options, p map[string]string) *Consumer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout+DefaultStartTimeout)
	defer cancel()
	c, err := NewConsumer(ctx, o, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeQuietly(t, c.base) })
	t.Cleanup(func() { logOnFailure(t, c.base) })
	return c
}

// logOnFailure logs the driver's calls and stderr tail when t failed.
func logOnFailure(t testing.TB, b *base) {
	if !t.Failed() {
		return
	}
	for _, c := range b.CallLog() {
		t.Logf("call %-14s java=%-14s round-trip=%-14s %s", c.Cmd, c.Java, c.RoundTrip, c.Err)
	}
	t.Logf("driver stderr (tail):\n%s", b.Stderr())
}

// closeQuietly closes b if a test has not (a second Close only returns
// ErrClosed), so no driver outlives its test.
func closeQuietly(t testing.TB, b *base) {
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if closed {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := b.close(ctx); err != nil {
		t.Logf("cleanup close: %v", err)
	}
}

func pollCtx(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}

// pollN polls with poll(200 ms) until n records came or testTimeout passed.
func pollN(t testing.TB, c *Consumer, n int) []consumer.Record {
	t.Helper()
	var out []consumer.Record
	deadline := time.Now().Add(testTimeout)
	for len(out) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d records within %s; driver stderr:\n%s", len(out), n, testTimeout, c.Stderr())
		}
		ctx, cancel := pollCtx(200 * time.Millisecond)
		recs, err := c.Poll(ctx)
		cancel()
		if err != nil {
			t.Fatalf("poll after %d records: %v\nstderr:\n%s", len(out), err, c.Stderr())
		}
		out = append(out, recs...)
	}
	return out
}
