package consumer_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kreactor/kreactor/baseline"
	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/fakebroker"
)

// benchConsumer is what the benchmark needs of the reactor consumer and of
// the baseline model's.
type benchConsumer interface {
	Subscribe(topics ...string) error
	Poll(ctx context.Context) ([]consumer.Record, error)
	Close(ctx context.Context) error
	Diagnostics() consumer.Diagnostics
}

// BenchmarkConsume measures end-to-end consumption from an in-process kfake
// cluster: records/s through Poll for a KIP-848 group member, on the
// reactor and on the baseline model (a test-only import: package consumer
// itself does not depend on baseline). One op is one record; the figures to
// compare are ns/op and records/s.
func BenchmarkConsume(b *testing.B) {
	for _, tc := range []struct {
		name string
		make func(consumer.Config) (benchConsumer, error)
	}{
		{"reactor", func(cfg consumer.Config) (benchConsumer, error) { return consumer.New(cfg) }},
		{"baseline", func(cfg consumer.Config) (benchConsumer, error) { return baseline.New(cfg) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			br, err := fakebroker.Start(fakebroker.Config{Brokers: 1, Topics: map[string]int32{"t": 3}})
			if err != nil {
				b.Fatal(err)
			}
			defer br.Close()
			ctx := context.Background()
			if _, err := br.Produce(ctx, "t", b.N, func(int) ([]byte, []byte) { return nil, make([]byte, 100) }); err != nil {
				b.Fatal(err)
			}
			cfg := consumer.DefaultConfig()
			cfg.BootstrapServers = br.Addrs()
			cfg.GroupID = "bench"
			cfg.AutoOffsetReset = "earliest"
			cfg.EnableAutoCommit = false
			c, err := tc.make(cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close(ctx)
			if err := c.Subscribe("t"); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			start, n := time.Now(), 0
			for n < b.N {
				pctx, cancel := context.WithTimeout(ctx, time.Second)
				recs, err := c.Poll(pctx)
				cancel()
				if err != nil {
					b.Fatal(err)
				}
				n += len(recs)
			}
			b.StopTimer() // Close (deferred) is not consumption
			b.ReportMetric(float64(n)/time.Since(start).Seconds(), "records/s")
			b.ReportMetric(float64(c.Diagnostics().Stats().Steps)/float64(n), "steps/record")
		})
	}
}

// BenchmarkIdlePoll measures what an idle consumer's loop does per
// application Poll: a member of a KIP-848 group owning every partition of
// an empty topic (a Fetch long-polling in flight, heartbeats every 250 ms)
// calls Poll with a deadline already passed (Java's poll(Duration.ZERO)):
// the poll event and its cancel, two loop steps that poll every manager and
// publish, with no request. One op is one Poll; steps/op and allocs/op are
// the figures to compare (the in-process broker's allocations for the
// heartbeats and fetches during the run are in allocs/op too: a few per
// thousand Polls).
func BenchmarkIdlePoll(b *testing.B) {
	br, err := fakebroker.Start(fakebroker.Config{Brokers: 1, Topics: map[string]int32{"t": 3}})
	if err != nil {
		b.Fatal(err)
	}
	defer br.Close()
	cfg := consumer.DefaultConfig()
	cfg.BootstrapServers = br.Addrs()
	cfg.GroupID = "bench-idle"
	cfg.EnableAutoCommit = false
	c, err := consumer.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	defer c.Close(ctx)
	if err := c.Subscribe("t"); err != nil {
		b.Fatal(err)
	}
	for len(c.Assignment()) < 3 { // joined, positions looked up, fetching
		pctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		_, err := c.Poll(pctx)
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			b.Fatal(err)
		}
	}
	past, cancel := context.WithDeadline(ctx, time.Now())
	defer cancel()
	for range 100 { // positions and the first Fetch
		if _, err := c.Poll(past); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			b.Fatal(err)
		}
	}
	steps := c.Diagnostics().Stats().Steps
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Poll(past); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(c.Diagnostics().Stats().Steps-steps)/float64(b.N), "steps/op")
}
