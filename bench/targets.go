package bench

import (
	"context"
	"encoding/binary"
	"fmt"
	"iter"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kreactor/kreactor/containers"
	"github.com/kreactor/kreactor/fakebroker"
)

// Targets the benchmark runs on.
const (
	TargetKfake = "kfake" // one in-process kfake broker (fakebroker), in the parent
	TargetKafka = "kafka" // one Apache Kafka 4.4.0 node in Docker (containers)
)

// Targets lists the targets, in the order Run measures them.
var Targets = []string{TargetKfake, TargetKafka}

// cluster is a running target with its topics.
type cluster struct {
	name  string
	addrs []string
	close func()
}

// kafkaBrokerJVM are the Kafka node's JVM options in the benchmark: Kafka's
// own defaults (G1, full JIT), not the containers package's start-up
// oriented C1 and serial collector, so the broker is not what limits the
// rate.
var kafkaBrokerJVM = map[string]string{
	"KAFKA_HEAP_OPTS":            "-Xmx1G -Xms1G",
	"KAFKA_JVM_PERFORMANCE_OPTS": "-server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -Djava.awt.headless=true",
}

// startTarget starts one broker of target name with topics (name ->
// partitions).
func startTarget(ctx context.Context, name string, topics map[string]int32, log *slog.Logger) (*cluster, error) {
	switch name {
	case TargetKfake:
		b, err := fakebroker.Start(fakebroker.Config{Brokers: 1, Topics: topics})
		if err != nil {
			return nil, err
		}
		return &cluster{name: name, addrs: b.Addrs(), close: b.Close}, nil
	case TargetKafka:
		c, err := containers.StartSingle(ctx, containers.Options{Env: kafkaBrokerJVM, Logger: log})
		if err != nil {
			return nil, err
		}
		stop := func() {
			tctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_ = c.Terminate(tctx)
		}
		for t, p := range topics {
			if err := c.CreateTopic(ctx, t, p, nil); err != nil {
				stop()
				return nil, err
			}
		}
		return &cluster{name: name, addrs: c.BootstrapAddrs(), close: stop}, nil
	}
	return nil, fmt.Errorf("bench: unknown target %q (want one of %v)", name, Targets)
}

// produceChunk bounds the records one ProduceSync call holds in memory.
const produceChunk = 50_000

// Value contents of the produced records.
const (
	// ValuesRandom are incompressible bytes sent without compression (the
	// Java producer's default compression.type=none): a fetch of
	// max.partition.fetch.bytes carries about 1 MiB / (value + overhead)
	// records per partition, so fetch round trips and pipelining count.
	ValuesRandom = "random"
	// ValuesZero are zero bytes compressed with snappy (kgo's default):
	// a fetch carries most of a partition, so the figures are decoding
	// and delivery alone (the workload of the first probe).
	ValuesZero = "zero"
)

// produce writes n records of valueBytes bytes to topic, record i to
// partition i mod partitions, acks=all, values as the values kind says.
func produce(ctx context.Context, addrs []string, topic string, partitions int32, n, valueBytes int, values string) error {
	opts := []kgo.Opt{kgo.SeedBrokers(addrs...), kgo.ClientID(fakebroker.ProducerClientID),
		kgo.RecordPartitioner(kgo.ManualPartitioner())}
	zero := make([]byte, valueBytes)
	switch values {
	case ValuesRandom:
		opts = append(opts, kgo.ProducerBatchCompression(kgo.NoCompression()))
	case ValuesZero:
		opts = append(opts, kgo.ProducerBatchCompression(kgo.SnappyCompression()))
	default:
		return fmt.Errorf("bench: values %q: want %s or %s", values, ValuesRandom, ValuesZero)
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	defer cl.Close()
	rng := rand.New(rand.NewPCG(uint64(n), uint64(partitions)))
	for done := 0; done < n; done += produceChunk {
		rs := make([]*kgo.Record, min(produceChunk, n-done))
		for i := range rs {
			v := zero
			if values == ValuesRandom {
				v = make([]byte, valueBytes)
				for k := 0; k < len(v); k += 8 {
					var w [8]byte
					binary.LittleEndian.PutUint64(w[:], rng.Uint64())
					copy(v[k:], w[:])
				}
			}
			rs[i] = &kgo.Record{Topic: topic, Partition: int32(done+i) % partitions, Value: v}
		}
		if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
			return fmt.Errorf("produce %d records to %s: %w", n, topic, err)
		}
	}
	return nil
}

// stampedProducer produces records whose value starts with the produce
// time (8-byte big-endian Unix nanoseconds) at a fixed rate.
type stampedProducer struct {
	cl *kgo.Client
}

func newStampedProducer(addrs []string) (*stampedProducer, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.ClientID(fakebroker.ProducerClientID), kgo.ProducerLinger(0),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		return nil, err
	}
	return &stampedProducer{cl: cl}, nil
}

// run produces rate records/s for d to topic (record i to partition i
// mod partitions), each stamped just before it is handed to the client,
// and waits for every acknowledgement. It returns how many were produced.
func (p *stampedProducer) run(ctx context.Context, topic string, partitions int32, rate int, d time.Duration, valueBytes int) (int, error) {
	n := int(float64(rate) * d.Seconds())
	return p.runTurns(ctx, turns([]string{topic}, n, n), partitions, rate, valueBytes)
}

// turns yields each turn of the alternating job as (topic, records): every
// one of topics gets records records in turns of every records (a topic's
// last turn may be shorter), the topics taking their turns in order: with
// topics a, b, c, a b c a b c ... One topic with every = records is one
// turn.
func turns(topics []string, records, every int) iter.Seq2[string, int] {
	return func(yield func(string, int) bool) {
		for done := 0; done < records; done += every {
			for _, t := range topics {
				if !yield(t, min(every, records-done)) {
					return
				}
			}
		}
	}
}

// runTurns produces the turns one after the other at rate records/s
// throughout (the gap between two turns is one record's), a topic's
// record i (counted across its turns) to partition i mod partitions, each
// stamped just before it is handed to the client, and waits for every
// acknowledgement. It returns how many were produced.
func (p *stampedProducer) runTurns(ctx context.Context, seq iter.Seq2[string, int], partitions int32, rate int, valueBytes int) (int, error) {
	interval := time.Second / time.Duration(rate)
	start := time.Now()
	errs := make(chan error, 1)
	n := 0
	next := map[string]int{} // a topic's next record number
	for topic, records := range seq {
		for range records {
			i := next[topic]
			next[topic]++
			if wait := time.Until(start.Add(time.Duration(n) * interval)); wait > 0 {
				time.Sleep(wait)
			}
			if err := ctx.Err(); err != nil {
				return n, err
			}
			v := make([]byte, max(valueBytes, 8))
			putStamp(v, time.Now())
			p.cl.Produce(ctx, &kgo.Record{Topic: topic, Partition: int32(i) % partitions, Value: v}, func(r *kgo.Record, err error) {
				if err != nil {
					select {
					case errs <- fmt.Errorf("produce to %s: %w", r.Topic, err):
					default:
					}
				}
			})
			n++
		}
	}
	if err := p.cl.Flush(ctx); err != nil {
		return n, err
	}
	select {
	case err := <-errs:
		return n, err
	default:
		return n, nil
	}
}

func (p *stampedProducer) close() { p.cl.Close() }
