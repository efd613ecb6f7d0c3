package consumer_test

import (
	"context"
	"testing"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/fakebroker"
)

// BenchmarkConsume measures end-to-end consumption from an in-process kfake
// cluster: records/s through Poll for a KIP-848 group member, per subject.
// One op is one record; the figures to compare are ns/op and records/s.
func BenchmarkConsume(b *testing.B) {
	for _, tc := range []struct {
		name string
		make func(consumer.Config) (*consumer.Consumer, error)
	}{{"reactor", consumer.New}, {"baseline", consumer.NewBaseline}} {
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
			b.ReportMetric(float64(c.Stats().Steps)/float64(n), "steps/record")
		})
	}
}
