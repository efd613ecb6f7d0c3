package java

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kreactor/kreactor/fakebroker"
	"github.com/kreactor/kreactor/managers"
)

// assignOnly returns properties for a consumer without a group (manual
// assignment, no commits).
func assignOnly(b *fakebroker.Broker, id string) map[string]string {
	return map[string]string{
		"bootstrap.servers": strings.Join(b.Addrs(), ","),
		"client.id":         id,
		"auto.offset.reset": "earliest",
	}
}

// BenchmarkDriverStart: exec to the driver's ready line (JVM start), and
// the KafkaConsumer constructor inside Java, per driver.
func BenchmarkDriverStart(b *testing.B) {
	requireJava(b)
	br := startBroker(b, map[string]int32{"t": 1})
	ctx := context.Background()
	var start, create time.Duration
	for i := 0; i < b.N; i++ {
		c, err := NewConsumer(ctx, DefaultOptions(), assignOnly(br, "bench-start"))
		if err != nil {
			b.Fatal(err)
		}
		start += c.Info().Start
		create += c.Info().Create
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if err := c.Close(cctx); err != nil {
			b.Fatal(err)
		}
		cancel()
	}
	b.ReportMetric(float64(start.Milliseconds())/float64(b.N), "start-ms/op")
	b.ReportMetric(float64(create.Milliseconds())/float64(b.N), "create-ms/op")
}

// BenchmarkPollEmpty: the protocol's per-call overhead: poll(0) of an
// assigned empty partition, round trip from Go, with the time inside
// Java's poll reported apart.
func BenchmarkPollEmpty(b *testing.B) {
	requireJava(b)
	br := startBroker(b, map[string]int32{"empty": 1})
	c := newConsumer(b, DefaultOptions(), assignOnly(br, "bench-poll"))
	if err := c.Assign(managers.TopicPartition{Topic: "empty", Partition: 0}); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	for i := 0; i < 200; i++ { // warm up (JIT, metadata, position)
		if _, err := c.Poll(ctx); err != nil {
			b.Fatal(err)
		}
	}
	before := len(c.CallLog())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Poll(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var java time.Duration
	log := c.CallLog()
	n := 0
	for _, l := range log[min(before, len(log)):] {
		if l.Cmd == "poll" {
			java += l.Java
			n++
		}
	}
	if n > 0 {
		b.ReportMetric(float64(java.Nanoseconds())/float64(n), "java-ns/poll")
	}
}

// BenchmarkRecords: records per second through the driver: 100,000
// records of ~10 B on one partition, read from the beginning (seek) by one
// consumer per iteration (max.poll.records 500, Java's default). The first
// pass, in a fresh JVM (class loading, JIT warm-up on 2 cores), is reported
// apart as cold-records/s; records/s is the warm rate.
func BenchmarkRecords(b *testing.B) {
	requireJava(b)
	const n = 100_000
	br := startBroker(b, map[string]int32{"bulk": 1})
	produce(b, br, "bulk", n)
	c := newConsumer(b, DefaultOptions(), assignOnly(br, "bench-records"))
	tp := managers.TopicPartition{Topic: "bulk", Partition: 0}
	if err := c.Assign(tp); err != nil {
		b.Fatal(err)
	}
	readAll := func() time.Duration {
		if err := c.SeekToBeginning(tp); err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		for got := 0; got < n; {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			recs, err := c.Poll(ctx)
			cancel()
			if err != nil {
				b.Fatal(err)
			}
			got += len(recs)
		}
		return time.Since(t0)
	}
	cold := readAll()
	b.ResetTimer()
	var warm time.Duration
	for i := 0; i < b.N; i++ {
		warm += readAll()
	}
	b.StopTimer()
	b.ReportMetric(n/cold.Seconds(), "cold-records/s")
	b.ReportMetric(float64(n*b.N)/warm.Seconds(), "records/s")
}
