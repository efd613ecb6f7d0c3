package control

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/containers/proxy"
	"github.com/kreactor/kreactor/fakebroker"
)

// BenchmarkServe measures the requests per second a kreactor broker (a
// fakebroker cluster, recording every request, with the control API's
// default log bodies) and a kreactor proxy (the recording proxy, here in
// front of a fakebroker cluster, so its figure includes that cluster's
// work) sustain under a mix of Fetch (one partition, MaxWait 0) and
// ConsumerGroupHeartbeat (a joined member's steady heartbeat), half each,
// from b.RunParallel's clients (8 x GOMAXPROCS of them, each its own kgo
// client and connection). Figures: req/s (ns/op is per request).
// Run with -cpu 2 for the 2-core figure.
func BenchmarkServe(b *testing.B) {
	for _, mode := range []string{"broker", "proxy"} {
		b.Run(mode, func(b *testing.B) {
			fb, err := fakebroker.Start(fakebroker.Config{Brokers: 1, Topics: map[string]int32{"t": 1}})
			if err != nil {
				b.Fatal(err)
			}
			defer fb.Close()
			addrs := fb.Addrs()
			var backend Backend = FakeBroker(fb)
			if mode == "proxy" {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				p, err := proxy.Start(ctx, proxy.Config{Upstream: addrs})
				cancel()
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				pb, err := Proxy(p, addrs)
				if err != nil {
					b.Fatal(err)
				}
				defer pb.Close()
				backend, addrs = pb, p.Addrs()
			}
			s, err := New(Config{Backend: backend})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if _, err := fb.Produce(context.Background(), "t", 10, nil); err != nil {
				b.Fatal(err)
			}
			var worker atomic.Int64
			b.SetParallelism(8) // 8 clients per core: enough in flight to keep the brokers busy
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				id := worker.Add(1)
				cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.ClientID(fmt.Sprintf("bench-%d", id)))
				if err != nil {
					b.Error(err)
					return
				}
				defer cl.Close()
				ctx := context.Background()
				hb := kmsg.NewPtrConsumerGroupHeartbeatRequest()
				hb.Group = fmt.Sprintf("bench-%d", id)
				hb.MemberEpoch = 0
				hb.RebalanceTimeoutMillis = 30_000
				hb.SubscribedTopicNames = []string{"t"}
				hb.MemberID = fmt.Sprintf("member-%d-0000000000", id)
				hresp, err := hb.RequestWith(ctx, cl)
				if err != nil {
					b.Error(err)
					return
				}
				hb.MemberEpoch = hresp.MemberEpoch
				hb.SubscribedTopicNames, hb.RebalanceTimeoutMillis = nil, -1
				fetch := kmsg.NewPtrFetchRequest()
				fetch.MaxWaitMillis, fetch.MinBytes, fetch.MaxBytes = 0, 1, 1<<20
				ft := kmsg.NewFetchRequestTopic()
				ft.Topic = "t"
				fp := kmsg.NewFetchRequestTopicPartition()
				fp.PartitionMaxBytes = 1 << 20
				ft.Partitions = []kmsg.FetchRequestTopicPartition{fp}
				fetch.Topics = []kmsg.FetchRequestTopic{ft}
				i := 0
				for pb.Next() {
					var err error
					if i%2 == 0 {
						_, err = fetch.RequestWith(ctx, cl)
					} else {
						var r *kmsg.ConsumerGroupHeartbeatResponse
						r, err = hb.RequestWith(ctx, cl)
						if err == nil && r.MemberEpoch > hb.MemberEpoch {
							hb.MemberEpoch = r.MemberEpoch
						}
					}
					if err != nil {
						b.Error(err)
						return
					}
					i++
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
		})
	}
}
