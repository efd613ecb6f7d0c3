package group

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
)

// batchSpec describes one record batch to encode.
type batchSpec struct {
	base      int64
	n         int
	codec     kgo.CompressionCodec // zero: none
	control   bool
	logAppend bool
	headers   bool
	nullKey   bool
}

// encodeBatch encodes b as a v2 record batch with a valid length and CRC.
func encodeBatch(t *testing.T, b batchSpec) []byte {
	t.Helper()
	var recs []byte
	for i := range b.n {
		r := kmsg.Record{OffsetDelta: int32(i), TimestampDelta64: int64(i), Value: fmt.Appendf(nil, "v-%d", b.base+int64(i))}
		if !b.nullKey {
			r.Key = fmt.Appendf(nil, "k-%d", i)
		}
		if b.headers {
			r.Headers = []kmsg.Header{{Key: "h", Value: []byte{byte(i)}}}
		}
		r.Length = int32(len(r.AppendTo(nil)) - 1) // everything after a 1-byte length
		if r.Length >= 64 {
			t.Fatalf("record %d: %d bytes do not fit a 1-byte varint length", i, r.Length)
		}
		recs = r.AppendTo(recs)
	}
	var attrs int16
	if b.codec != (kgo.CompressionCodec{}) {
		c, err := kgo.DefaultCompressor(b.codec)
		if err != nil {
			t.Fatal(err)
		}
		var typ kgo.CompressionCodecType
		recs, typ = c.Compress(new(bytes.Buffer), recs)
		attrs |= int16(typ)
	}
	if b.logAppend {
		attrs |= attrLogAppendTime
	}
	if b.control {
		attrs |= attrControl
	}
	return finishBatch(kmsg.RecordBatch{FirstOffset: b.base, PartitionLeaderEpoch: 3, Magic: 2, Attributes: attrs, LastOffsetDelta: int32(b.n - 1),
		FirstTimestamp: 1_700_000_000_000, MaxTimestamp: 1_700_000_009_000, ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1,
		NumRecords: int32(b.n), Records: recs})
}

// finishBatch encodes kb with its Length and CRC set. The test computes
// them on its own, from the protocol guide ("Record Batch"): Length counts
// the bytes after the 8-byte base offset and itself (12 bytes), and the
// CRC-32C covers the bytes from the attributes (byte 21) to the end.
func finishBatch(kb kmsg.RecordBatch) []byte {
	kb.Length = int32(len(kb.AppendTo(nil)) - 12)
	raw := kb.AppendTo(nil)
	kb.CRC = int32(crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
	return kb.AppendTo(nil)
}

// viaKgo is what franz-go decodes from rp, as managers.Records.
func viaKgo(o decodeOpts, rp *kmsg.FetchResponseTopicPartition) ([]managers.Record, int64, error) {
	d := decodeWithKgo(o, rp)
	return d.records, d.next, d.err
}

func TestDecodePartitionAgreesWithKgo(t *testing.T) {
	snappy, zstd := kgo.SnappyCompression(), kgo.ZstdCompression()
	cases := []struct {
		name    string
		batches []batchSpec
		offset  int64
		chop    int // bytes cut from the end (a truncated last batch)
	}{
		{"one batch", []batchSpec{{base: 0, n: 5}}, 0, 0},
		{"fetch offset inside the first batch", []batchSpec{{base: 10, n: 5}, {base: 15, n: 3}}, 12, 0},
		{"first batch before the fetch offset", []batchSpec{{base: 0, n: 4}, {base: 4, n: 4}}, 4, 0},
		{"snappy and zstd", []batchSpec{{base: 0, n: 6, codec: snappy}, {base: 6, n: 2, codec: zstd}}, 0, 0},
		{"a control batch between data", []batchSpec{{base: 0, n: 2}, {base: 2, n: 1, control: true}, {base: 3, n: 2}}, 0, 0},
		{"log append time, headers, null keys", []batchSpec{{base: 7, n: 3, logAppend: true, headers: true, nullKey: true}}, 7, 0},
		{"truncated last batch", []batchSpec{{base: 0, n: 3}, {base: 3, n: 3}}, 0, 7},
		{"only a control batch", []batchSpec{{base: 5, n: 1, control: true}}, 5, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var raw []byte
			for _, b := range tc.batches {
				raw = append(raw, encodeBatch(t, b)...)
			}
			raw = raw[:len(raw)-tc.chop]
			rp := &kmsg.FetchResponseTopicPartition{Partition: 2, RecordBatches: raw}
			o := decodeOpts{topic: "t", partition: 2, offset: tc.offset, decompressor: kgo.DefaultDecompressor()}
			got := decodePartition(o, rp)
			want, wantNext, wantErr := viaKgo(o, rp)
			if got.err != nil || wantErr != nil {
				t.Fatalf("errors: ours %v, kgo %v", got.err, wantErr)
			}
			if len(got.records) != len(want) {
				t.Fatalf("%d records, kgo %d", len(got.records), len(want))
			}
			for i := range want {
				g, w := got.records[i], want[i]
				if g.Offset != w.Offset || g.LeaderEpoch != w.LeaderEpoch || !g.Timestamp.Equal(w.Timestamp) ||
					!bytes.Equal(g.Key, w.Key) || (g.Key == nil) != (w.Key == nil) || !bytes.Equal(g.Value, w.Value) ||
					g.Topic != w.Topic || g.Partition != w.Partition || len(g.Headers) != len(w.Headers) {
					t.Fatalf("record %d: ours %+v, kgo %+v", i, g, w)
				}
			}
			if got.next != wantNext && !(len(want) == 0 && got.next == -1) {
				t.Errorf("next %d, kgo %d", got.next, wantNext)
			}
			if cap(got.records) != len(got.records) && tc.offset == tc.batches[0].base && tc.chop == 0 {
				t.Errorf("slab of %d for %d records: sized by the batch headers, it should be exact", cap(got.records), len(got.records))
			}
		})
	}
}

func TestDecodePartitionCorrupt(t *testing.T) {
	good := encodeBatch(t, batchSpec{base: 0, n: 3})
	bad := encodeBatch(t, batchSpec{base: 3, n: 3})
	bad[len(bad)-1] ^= 0xff // a value byte: the CRC no longer matches
	d := decodePartition(decodeOpts{topic: "t", decompressor: kgo.DefaultDecompressor()}, &kmsg.FetchResponseTopicPartition{RecordBatches: append(good, bad...)})
	if !errors.Is(d.err, ErrCorruptRecords) || len(d.records) != 3 || d.next != 3 {
		t.Fatalf("records %d next %d err %v: want the 3 good records, next 3, ErrCorruptRecords", len(d.records), d.next, d.err)
	}
}

func TestDecodePartitionFallsBackForAbortedTransactions(t *testing.T) {
	raw := encodeBatch(t, batchSpec{base: 0, n: 2})
	rp := &kmsg.FetchResponseTopicPartition{RecordBatches: raw,
		AbortedTransactions: []kmsg.FetchResponseTopicPartitionAbortedTransaction{{ProducerID: 9, FirstOffset: 0}}}
	d := decodePartition(decodeOpts{topic: "t", readCommitted: true, decompressor: kgo.DefaultDecompressor()}, rp)
	if len(d.records) != 2 || d.err != nil { // producer 9 wrote nothing here: both records stay
		t.Fatalf("records %d err %v", len(d.records), d.err)
	}
}
