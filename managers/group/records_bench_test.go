package group

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// benchBatchRecords is the records in the batch BenchmarkDecodePartition
// decodes: one max.poll.records' worth at the default (500).
const benchBatchRecords = 500

// benchBatch is one magic-2 batch of n records with a 10-byte key and a
// 100-byte value each, compressed with codec (none: the zero value). The
// values are half random, half text, so that snappy has something to do.
func benchBatch(b *testing.B, n int, codec kgo.CompressionCodec) []byte {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	var recs []byte
	for i := range n {
		value := make([]byte, 100)
		for j := range 50 {
			value[j] = byte(rng.Uint32())
		}
		copy(value[50:], fmt.Sprintf("record %08d of the decoder benchmark, padding..........", i))
		r := kmsg.Record{OffsetDelta: int32(i), TimestampDelta64: int64(i), Key: fmt.Appendf(nil, "key-%06d", i), Value: value}
		r.Length = int32(len(r.AppendTo(nil)) - 1) // Length 0 encodes in 1 byte
		recs = r.AppendTo(recs)
	}
	var attrs int16
	if codec != (kgo.CompressionCodec{}) {
		c, err := kgo.DefaultCompressor(codec)
		if err != nil {
			b.Fatal(err)
		}
		var typ kgo.CompressionCodecType
		recs, typ = c.Compress(new(bytes.Buffer), recs)
		if typ == kgo.CodecNone {
			b.Fatalf("codec %v left the records uncompressed", codec)
		}
		attrs |= int16(typ)
	}
	return finishBatch(kmsg.RecordBatch{FirstOffset: 0, PartitionLeaderEpoch: 3, Magic: 2, Attributes: attrs,
		LastOffsetDelta: int32(n - 1), FirstTimestamp: 1_700_000_000_000, MaxTimestamp: 1_700_000_000_000 + int64(n),
		ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1, NumRecords: int32(n), Records: recs})
}

// BenchmarkDecodePartition decodes one partition answer holding one batch
// of 500 records (uncompressed and snappy), reporting ns (wall clock and
// process CPU: on a shared machine the CPU figure is the steadier one),
// allocations and bytes allocated per record.
func BenchmarkDecodePartition(b *testing.B) {
	for _, c := range []struct {
		name  string
		codec kgo.CompressionCodec
	}{{"none", kgo.CompressionCodec{}}, {"snappy", kgo.SnappyCompression()}} {
		b.Run("codec="+c.name, func(b *testing.B) {
			rp := &kmsg.FetchResponseTopicPartition{RecordBatches: benchBatch(b, benchBatchRecords, c.codec)}
			o := decodeOpts{topic: "t", decompressor: kgo.DefaultDecompressor()}
			if d := decodePartition(o, rp); d.err != nil || len(d.records) != benchBatchRecords {
				b.Fatalf("%d records, err %v", len(d.records), d.err)
			}
			b.SetBytes(int64(len(rp.RecordBatches)))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			cpu0 := processCPU(b)
			n := 0
			for b.Loop() {
				decodePartition(o, rp)
				n++
			}
			b.StopTimer()
			cpu := processCPU(b) - cpu0
			runtime.ReadMemStats(&after)
			recs := float64(n * benchBatchRecords)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/recs, "ns/record")
			b.ReportMetric(float64(cpu.Nanoseconds())/recs, "ns-cpu/record")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/recs, "allocs/record")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/recs, "B/record")
		})
	}
}

// processCPU is the process's user and system CPU time so far (getrusage).
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
