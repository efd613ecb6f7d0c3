package kgo

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	franz "github.com/twmb/franz-go/pkg/kgo"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/fakebroker"
)

// Benchmark workload: one kfake broker, 3 partitions, 300,000
// records of 100 B, consumed from the start by a fresh KIP-848 group.
const (
	benchPartitions = 3
	benchRecords    = 300_000
	benchValueBytes = 100
)

// BenchmarkConsume consumes the whole workload per iteration through this
// adapter ("adapter") and through a raw kgo client with the same options
// ("raw"), at two max.poll.records, to quantify what the adapter adds (the
// copy into consumer.Record, the bookkeeping per Poll). The join is not
// timed: the clock starts when kgo's OnPartitionsAssigned has given the
// member all 3 partitions (the adapter's Assignment, raw kgo's callback),
// so fetching, decoding and polling every record are timed. Figures per
// record (ns/record, cpu-ns/record from getrusage, allocs/record and
// B/record from runtime.MemStats) are process-wide, so they include the
// in-process kfake broker serving the fetches; the broker's share is the
// same in both, so adapter minus raw is the adapter's cost. Run with
// -count >= 5 and compare with benchstat.
func BenchmarkConsume(b *testing.B) {
	br, err := fakebroker.Start(fakebroker.Config{Brokers: 1, Topics: map[string]int32{"t": benchPartitions}})
	if err != nil {
		b.Fatal(err)
	}
	defer br.Close()
	value := make([]byte, benchValueBytes)
	if _, err := br.Produce(context.Background(), "t", benchRecords, func(int) ([]byte, []byte) { return nil, value }); err != nil {
		b.Fatal(err)
	}
	var groups atomic.Int64
	for _, max := range []int{500, 10_000} {
		for _, kind := range []string{"adapter", "raw"} {
			b.Run(fmt.Sprintf("%s/max.poll.records=%d", kind, max), func(b *testing.B) {
				var total benchTotals
				for i := 0; i < b.N; i++ {
					cfg := consumer.DefaultConfig()
					cfg.BootstrapServers = br.Addrs()
					cfg.GroupID = fmt.Sprintf("bench-%d", groups.Add(1))
					cfg.AutoOffsetReset = "earliest"
					cfg.EnableAutoCommit = false
					cfg.MaxPollRecords = max
					var t benchTotals
					if kind == "adapter" {
						t = benchAdapter(b, cfg)
					} else {
						t = benchRaw(b, cfg)
					}
					total.add(t)
				}
				total.report(b)
			})
		}
	}
}

// benchTotals are the timed figures of one or more consumptions.
type benchTotals struct {
	records       int
	wall, cpu     time.Duration
	allocs, bytes uint64
}

func (t *benchTotals) add(o benchTotals) {
	t.records += o.records
	t.wall += o.wall
	t.cpu += o.cpu
	t.allocs += o.allocs
	t.bytes += o.bytes
}

func (t benchTotals) report(b *testing.B) {
	n := float64(t.records)
	b.ReportMetric(float64(t.wall.Nanoseconds())/n, "ns/record")
	b.ReportMetric(float64(t.cpu.Nanoseconds())/n, "cpu-ns/record")
	b.ReportMetric(float64(t.allocs)/n, "allocs/record")
	b.ReportMetric(float64(t.bytes)/n, "B/record")
	b.ReportMetric(n/t.wall.Seconds(), "records/s")
}

// meter brackets the timed part of one consumption.
type meter struct {
	start   time.Time
	cpu     time.Duration
	mallocs uint64
	bytes   uint64
}

func startMeter(b *testing.B) meter {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.StartTimer()
	return meter{start: time.Now(), cpu: processCPU(b), mallocs: ms.Mallocs, bytes: ms.TotalAlloc}
}

func (m meter) stop(b *testing.B, records int) benchTotals {
	wall, cpu := time.Since(m.start), processCPU(b)-m.cpu
	b.StopTimer()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return benchTotals{records: records, wall: wall, cpu: cpu, allocs: ms.Mallocs - m.mallocs, bytes: ms.TotalAlloc - m.bytes}
}

// processCPU is this process's user + system CPU time (getrusage).
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchPollTimeout bounds each Poll; a Poll that times out with records
// still missing fails the benchmark.
const benchPollTimeout = 10 * time.Second

func benchAdapter(b *testing.B, cfg consumer.Config) benchTotals {
	b.StopTimer()
	c, err := Subject{}.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = c.Close(context.Background()) }()
	if err := c.Subscribe("t"); err != nil {
		b.Fatal(err)
	}
	deadline := time.Now().Add(benchPollTimeout)
	for len(c.Assignment()) < benchPartitions { // the join: not timed
		if time.Now().After(deadline) {
			b.Fatalf("not assigned within %s", benchPollTimeout)
		}
		time.Sleep(time.Millisecond)
	}
	m := startMeter(b)
	n := 0
	for n < benchRecords {
		ctx, cancel := context.WithTimeout(context.Background(), benchPollTimeout)
		recs, err := c.Poll(ctx)
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		if len(recs) == 0 {
			b.Fatalf("Poll returned no records within %s", benchPollTimeout)
		}
		for i := range recs {
			benchSink += len(recs[i].Value)
		}
		n += len(recs)
	}
	return m.stop(b, n)
}

func benchRaw(b *testing.B, cfg consumer.Config) benchTotals {
	b.StopTimer()
	opts, err := consumerOpts(cfg)
	if err != nil {
		b.Fatal(err)
	}
	opts = append(opts, groupOpts(cfg, ProtocolConsumer)...)
	assigned := make(chan struct{})
	var got atomic.Int32
	opts = append(opts, franz.ConsumeTopics("t"), franz.OnPartitionsAssigned(func(_ context.Context, _ *franz.Client, m map[string][]int32) {
		if got.Add(int32(len(m["t"]))) == benchPartitions {
			close(assigned)
		}
	}))
	cl, err := franz.NewClient(opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	select { // the join: not timed
	case <-assigned:
	case <-time.After(benchPollTimeout):
		b.Fatalf("not assigned within %s", benchPollTimeout)
	}
	m := startMeter(b)
	n := 0
	for n < benchRecords {
		ctx, cancel := context.WithTimeout(context.Background(), benchPollTimeout)
		fs := cl.PollRecords(ctx, cfg.MaxPollRecords)
		cancel()
		if err := fs.Err0(); err != nil {
			b.Fatal(err)
		}
		k := 0
		fs.EachRecord(func(r *franz.Record) {
			k++
			benchSink += len(r.Value)
		})
		if k == 0 {
			b.Fatalf("PollRecords returned no records within %s", benchPollTimeout)
		}
		n += k
	}
	return m.stop(b, n)
}

// benchSink keeps the record loops from being optimized away.
var benchSink int

// BenchmarkCollect is the adapter's own per-record cost without a broker in
// the process: turning one PollRecords result (498 records of 100 B over 3
// partitions) into []consumer.Record (one op), reported per record too.
func BenchmarkCollect(b *testing.B) {
	value := make([]byte, benchValueBytes)
	fetches := franz.Fetches{{Topics: []franz.FetchTopic{{Topic: "t"}}}}
	ft := &fetches[0].Topics[0]
	for p := range int32(benchPartitions) {
		fp := franz.FetchPartition{Partition: p}
		for o := range int64(500 / benchPartitions) {
			fp.Records = append(fp.Records, &franz.Record{Topic: "t", Partition: p, Offset: o, Value: value, Timestamp: time.Now()})
		}
		ft.Partitions = append(ft.Partitions, fp)
	}
	c := &Consumer{}
	n := fetches.NumRecords()
	b.ReportAllocs()
	for b.Loop() {
		recs, err := c.collect(fetches)
		if err != nil {
			b.Fatal(err)
		}
		benchSink += len(recs)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
}
