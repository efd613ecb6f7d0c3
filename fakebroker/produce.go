package fakebroker

import (
	"context"
	"strconv"

	"github.com/twmb/franz-go/pkg/kgo"
)

// ProducerClientID is the client id of Produce's producer, so specs can
// exclude its requests from Recorder filters.
const ProducerClientID = "kreactor-fakebroker-producer"

// Produce writes n records to topic and returns after all are acknowledged
// (acks=all, idempotent), returning how many records went to each partition.
// Record i goes to partition i mod P (P = the topic's partition count), so
// into an empty topic record i lands at offset i / P of its partition. fn
// returns record i's key and value; nil fn gives key nil and value
// "record-<i>". Produce uses its own short-lived franz-go client with client
// id ProducerClientID, whose requests the Recorder records and fault helpers
// affect like any other client's. On a Config.Network it dials through
// Broker.Dial.
//
// It returns an *ArgError for n < 0 or an unknown topic, ErrClosed after
// Close, ctx.Err() if ctx ends first, and a *ProduceError if a record fails.
func (b *Broker) Produce(ctx context.Context, topic string, n int, fn func(i int) (key, value []byte)) (map[int32]int, error) {
	const op = "Produce"
	if n < 0 {
		return nil, &ArgError{op, "n", n, "must be >= 0"}
	}
	if b.isClosing() {
		return nil, ErrClosed
	}
	parts := int32(len(b.cluster.PartitionInfos(topic)))
	if parts == 0 {
		return nil, &ArgError{op, "topic", topic, "no such topic"}
	}
	return produceTo(ctx, b.Addrs(), topic, parts, n, fn, kgo.Dialer(b.Dial))
}

// ProduceTo is Produce against any cluster at addrs (a real one too): record
// i goes to partition i mod partitions, acks=all, client id
// ProducerClientID. Errors: ctx.Err(), or a *ProduceError for the first
// record that failed.
func ProduceTo(ctx context.Context, addrs []string, topic string, parts int32, n int, fn func(i int) (key, value []byte)) (map[int32]int, error) {
	return produceTo(ctx, addrs, topic, parts, n, fn)
}

// produceTo is ProduceTo with extra client options (a dialer).
func produceTo(ctx context.Context, addrs []string, topic string, parts int32, n int, fn func(i int) (key, value []byte), opts ...kgo.Opt) (map[int32]int, error) {
	counts := make(map[int32]int, parts)
	if n == 0 {
		return counts, nil
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{
		kgo.SeedBrokers(addrs...),
		kgo.ClientID(ProducerClientID),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.WithLogger(kgo.BasicLogger(discard{}, kgo.LogLevelNone, nil)),
	}, opts...)...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()

	rs := make([]*kgo.Record, n)
	index := make(map[*kgo.Record]int, n) // results come back in completion order
	for i := range rs {
		var k, v []byte
		if fn != nil {
			k, v = fn(i)
		} else {
			v = []byte("record-" + strconv.Itoa(i))
		}
		rs[i] = &kgo.Record{Topic: topic, Partition: int32(i) % parts, Key: k, Value: v}
		index[rs[i]] = i
	}
	var first *ProduceError
	for _, r := range cl.ProduceSync(ctx, rs...) {
		if r.Err == nil {
			counts[r.Record.Partition]++
			continue
		}
		if i := index[r.Record]; first == nil || i < first.Index {
			first = &ProduceError{Topic: topic, Index: i, Err: r.Err}
		}
	}
	if first != nil {
		if ctx.Err() != nil {
			return counts, ctx.Err()
		}
		first.Produced = sum(counts)
		return counts, first
	}
	return counts, nil
}

func sum(m map[int32]int) int {
	var n int
	for _, v := range m {
		n += v
	}
	return n
}

// discard is an io.Writer that drops everything.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
