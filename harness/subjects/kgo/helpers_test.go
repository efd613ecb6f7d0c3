package kgo

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
	"go.uber.org/goleak"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/fakebroker"
	"github.com/kreactor/kreactor/internal/clienttest"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testTimeout bounds every wait in these tests (a generous count, not a
// speed target).
const testTimeout = 30 * time.Second

// pollTimeout is each Poll's deadline in the loops below.
const pollTimeout = 250 * time.Millisecond

func startBroker(t *testing.T, topics map[string]int32) *fakebroker.Broker {
	t.Helper()
	b, err := fakebroker.Start(fakebroker.Config{Topics: topics, BrokerConfigs: map[string]string{
		"group.share.record.lock.duration.ms": "1000",
		"share.record.lock.sweep.interval.ms": "100",
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

func produce(t *testing.T, b *fakebroker.Broker, topic string, n int) {
	t.Helper()
	if _, err := b.Produce(testCtx(t), topic, n, nil); err != nil {
		t.Fatal(err)
	}
}

// config is a consumer config for b with group (may be ""), reading from
// the start (clienttest.Config), auto-commit off.
func config(b *fakebroker.Broker, group, clientID string) consumer.Config {
	cfg := clienttest.Config(b, group)
	cfg.ClientID = clientID
	cfg.EnableAutoCommit = false
	return cfg
}

func startConsumer(t *testing.T, s Subject, cfg consumer.Config) *Consumer {
	t.Helper()
	c, err := s.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// startSubscribed is startConsumer subscribed to topics.
func startSubscribed(t *testing.T, s Subject, cfg consumer.Config, topics ...string) *Consumer {
	t.Helper()
	c := startConsumer(t, s, cfg)
	if err := c.Subscribe(topics...); err != nil {
		t.Fatal(err)
	}
	return c
}

// poll is one Poll with pollTimeout.
func poll(t *testing.T, c *Consumer) []consumer.Record {
	t.Helper()
	return pollOnce(t, c.Poll)
}

// pollOnce is one call of a consumer's Poll with pollTimeout; an error
// fails the test.
func pollOnce[R any](t *testing.T, poll func(context.Context) ([]R, error)) []R {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), pollTimeout)
	defer cancel()
	recs, err := poll(ctx)
	if err != nil {
		t.Fatalf("Poll: %v", err)
	}
	return recs
}

// pollN polls until n records arrived (failing after testTimeout) and
// returns them with the batch sizes Poll returned.
func pollN(t *testing.T, c *Consumer, n int) (recs []consumer.Record, batches []int) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for len(recs) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d records after %s", len(recs), n, testTimeout)
		}
		got := poll(t, c)
		if len(got) > 0 {
			batches = append(batches, len(got))
		}
		recs = append(recs, got...)
	}
	return recs, batches
}

// nextOffsets is the position after the last record of each partition.
func nextOffsets(recs []consumer.Record) map[managers.TopicPartition]int64 {
	out := map[managers.TopicPartition]int64{}
	for _, r := range recs {
		out[managers.TopicPartition{Topic: r.Topic, Partition: r.Partition}] = r.Offset + 1
	}
	return out
}

// committed reads the group's committed offsets from kfake.
func committed(b *fakebroker.Broker, group string) map[managers.TopicPartition]int64 {
	out := map[managers.TopicPartition]int64{}
	gi := b.GroupInfo(group)
	if gi == nil {
		return out
	}
	for t, ps := range gi.Commits {
		for p, c := range ps {
			out[managers.TopicPartition{Topic: t, Partition: p}] = c.Offset
		}
	}
	return out
}

// members is the number of members kfake lists for group (0 if the group
// does not exist).
func members(b *fakebroker.Broker, group string) int {
	if gi := b.GroupInfo(group); gi != nil {
		return len(gi.Members)
	}
	return 0
}

// eventually polls cond every 10 ms until it holds, failing with what after
// testTimeout.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", testTimeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// goroutineID is the running goroutine's id, parsed from its stack header
// ("goroutine N [running]:"): test-only, to check which goroutine a
// callback runs on.
func goroutineID() uint64 {
	var buf [64]byte
	s := buf[:runtime.Stack(buf[:], false)]
	s = bytes.TrimPrefix(s, []byte("goroutine "))
	s = s[:bytes.IndexByte(s, ' ')]
	id, _ := strconv.ParseUint(string(s), 10, 64)
	return id
}

// fakebrokerFilter selects one client's requests with key.
func fakebrokerFilter(key kmsg.Key, clientID string) wire.Filter {
	return wire.Filter{Keys: []kmsg.Key{key}, ClientID: clientID}
}
