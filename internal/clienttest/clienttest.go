// Package clienttest holds the fixtures the unit tests of every consumer
// variant share (package consumer's and package baseline's): in-process
// brokers set up for a test, and checks of what the broker kept.
package clienttest

import (
	"context"
	"testing"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/fakebroker"
)

// StartBroker starts a fake cluster with topic (partitions) holding records
// records, closed when t ends.
func StartBroker(t testing.TB, topic string, partitions int32, records int) *fakebroker.Broker {
	t.Helper()
	b, err := fakebroker.Start(fakebroker.Config{Topics: map[string]int32{topic: partitions}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	if records > 0 {
		if _, err := b.Produce(context.Background(), topic, records, nil); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// StartShareBroker starts a fake cluster with topic "s" (2 partitions), an
// acquisition lock of 1000 ms swept every 100 ms, and share group group
// reading from the earliest offset; closed when t ends.
func StartShareBroker(t testing.TB, group string) *fakebroker.Broker {
	t.Helper()
	b, err := fakebroker.Start(fakebroker.Config{Topics: map[string]int32{"s": 2}, BrokerConfigs: map[string]string{
		"group.share.record.lock.duration.ms": "1000",
		"share.record.lock.sweep.interval.ms": "100",
	}})
	if err != nil {
		t.Fatal(err)
	}
	b.Cluster().SetGroupConfigs(group, map[string]string{"share.auto.offset.reset": "earliest"})
	t.Cleanup(b.Close)
	return b
}

// CheckLeftAndCommitted fails t unless group has no member left and has
// committed, for each partition of topic in last, the offset after it.
func CheckLeftAndCommitted(t testing.TB, b *fakebroker.Broker, group, topic string, last map[int32]int64) {
	t.Helper()
	gi := b.GroupInfo(group)
	if gi == nil || len(gi.Members) != 0 {
		t.Fatalf("group info after close: %+v", gi)
	}
	for p, off := range last {
		if got := gi.Commits[topic][p].Offset; got != off+1 {
			t.Fatalf("partition %d committed %d, want %d", p, got, off+1)
		}
	}
}

// Config is consumer.DefaultConfig pointed at b, in group, reading from the
// earliest offset.
func Config(b *fakebroker.Broker, group string) consumer.Config {
	cfg := consumer.DefaultConfig()
	cfg.BootstrapServers = b.Addrs()
	cfg.GroupID = group
	cfg.AutoOffsetReset = "earliest"
	return cfg
}

// ShareConfig is consumer.DefaultShareConfig pointed at b, in share group
// group.
func ShareConfig(b *fakebroker.Broker, group string) consumer.ShareConfig {
	cfg := consumer.DefaultShareConfig()
	cfg.BootstrapServers = b.Addrs()
	cfg.GroupID = group
	return cfg
}

// PollUntil calls poll (with a 200 ms deadline each) until it returned n
// records, handing each to each (may be nil), and returns them; it fails t
// on a Poll error or after 20 s, with diagnose's text.
func PollUntil[R any](t testing.TB, n int, poll func(ctx context.Context) ([]R, error), each func(R), diagnose func() string) []R {
	t.Helper()
	var out []R
	deadline := time.Now().Add(20 * time.Second)
	for len(out) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d records after 20 s; %s", len(out), n, diagnose())
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		recs, err := poll(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if each != nil {
				each(r)
			}
		}
		out = append(out, recs...)
	}
	return out
}
