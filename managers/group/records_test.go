package group

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kbin"
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
	headers   bool // three headers per record: a byte value, a null value, an empty value
	nullKey   bool
	lastDelta int32 // LastOffsetDelta when not n-1 (a batch compacted empty, KAFKA-5443)
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
			r.Headers = []kmsg.Header{{Key: "h", Value: []byte{byte(i)}}, {Key: "null", Value: nil}, {Key: "", Value: []byte{}}}
		}
		r.Length = int32(len(r.AppendTo(nil)) - 1) // everything after the length, which is 1 byte when 0
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
		if typ == kgo.CodecNone || typ == kgo.CodecError {
			t.Fatalf("codec %v: compressed as %d", b.codec, typ)
		}
		attrs |= int16(typ)
	}
	if b.logAppend {
		attrs |= attrLogAppendTime
	}
	if b.control {
		attrs |= attrControl
	}
	last := int32(b.n - 1)
	if b.lastDelta != 0 {
		last = b.lastDelta
	}
	return finishBatch(kmsg.RecordBatch{FirstOffset: b.base, PartitionLeaderEpoch: 3, Magic: 2, Attributes: attrs, LastOffsetDelta: last,
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
	gzip, lz4 := kgo.GzipCompression(), kgo.Lz4Compression()
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
		// Added with the decoder on kmsg's types.
		{"gzip and lz4", []batchSpec{{base: 0, n: 4, codec: gzip}, {base: 4, n: 5, codec: lz4}}, 0, 0},
		{"every codec, with headers", []batchSpec{{base: 0, n: 3, codec: gzip, headers: true}, {base: 3, n: 3, codec: snappy, headers: true},
			{base: 6, n: 3, codec: lz4, headers: true}, {base: 9, n: 3, codec: zstd, headers: true}}, 0, 0},
		{"fetch offset inside a compressed batch", []batchSpec{{base: 20, n: 8, codec: zstd}, {base: 28, n: 2, codec: snappy}}, 25, 0},
		{"fetch offset after every record of the answer", []batchSpec{{base: 0, n: 3}, {base: 3, n: 3, codec: lz4}}, 6, 0},
		{"fetch offset inside the last of three batches", []batchSpec{{base: 0, n: 2}, {base: 2, n: 2}, {base: 4, n: 4}}, 6, 0},
		{"log append time alone", []batchSpec{{base: 0, n: 3, logAppend: true}, {base: 3, n: 2}}, 0, 0},
		{"log append time, compressed", []batchSpec{{base: 0, n: 4, logAppend: true, codec: snappy}}, 0, 0},
		{"a compressed control batch between compressed data", []batchSpec{{base: 0, n: 2, codec: gzip}, {base: 2, n: 1, control: true, codec: gzip},
			{base: 3, n: 2, codec: gzip}}, 0, 0},
		{"a control batch first, before the fetch offset", []batchSpec{{base: 0, n: 1, control: true}, {base: 1, n: 3}}, 1, 0},
		{"a batch compacted empty (KAFKA-5443)", []batchSpec{{base: 0, n: 2}, {base: 2, n: 0, lastDelta: 4}, {base: 7, n: 2}}, 0, 0},
		{"truncated inside the last batch's header", []batchSpec{{base: 0, n: 3}, {base: 3, n: 3}}, 0, 60},
		{"truncated inside the last batch's length", []batchSpec{{base: 0, n: 3}, {base: 3, n: 3}}, 0, -10},
		{"truncated inside the only batch", []batchSpec{{base: 0, n: 3, codec: zstd}}, 0, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var raw []byte
			for _, b := range tc.batches {
				raw = append(raw, encodeBatch(t, b)...)
			}
			if tc.chop < 0 { // keep -chop bytes of the last batch
				raw = raw[:len(raw)-len(encodeBatch(t, tc.batches[len(tc.batches)-1]))-tc.chop]
			} else {
				raw = raw[:len(raw)-tc.chop]
			}
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
				for h := range w.Headers {
					gh, wh := g.Headers[h], w.Headers[h]
					if gh.Key != wh.Key || !bytes.Equal(gh.Value, wh.Value) || (gh.Value == nil) != (wh.Value == nil) {
						t.Fatalf("record %d header %d: ours %q=%v, kgo %q=%v", i, h, gh.Key, gh.Value, wh.Key, wh.Value)
					}
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

func TestDecodePartitionCorruptBatches(t *testing.T) {
	good := encodeBatch(t, batchSpec{base: 0, n: 3})
	// record is one encoded record with offset delta i.
	record := func(i int32, headers int32) []byte {
		r := kmsg.Record{OffsetDelta: i, Value: []byte("v")}
		body := r.AppendTo(nil)[1:] // after the 1-byte length 0
		if headers != 0 {
			// a header count with no headers after it
			body = append(body[:len(body)-1], kbin.AppendVarint(nil, headers)...)
		}
		return append(kbin.AppendVarint(nil, int32(len(body))), body...)
	}
	batch := func(n int32, attrs int16, recs []byte) kmsg.RecordBatch {
		return kmsg.RecordBatch{FirstOffset: 3, Magic: 2, Attributes: attrs, LastOffsetDelta: 1, NumRecords: n, Records: recs}
	}
	cases := []struct {
		name string
		bad  []byte
		want int // records of the bad batch before the error
	}{
		{"a value byte flipped: CRC mismatch", func() []byte {
			b := encodeBatch(t, batchSpec{base: 3, n: 3})
			b[len(b)-1] ^= 0xff
			return b
		}(), 0},
		{"negative record count", finishBatch(batch(-1, 0, record(0, 0))), 0},
		{"more records counted than held", finishBatch(batch(2, 0, record(0, 0))), 1},
		{"a record longer than the batch", finishBatch(batch(1, 0, record(0, 0)[:4])), 0},
		{"a record missing its headers", finishBatch(batch(2, 0, append(record(0, 0), record(1, 3)...))), 1},
		{"a gzip batch that is not gzip", finishBatch(batch(1, int16(kgo.CodecGzip), record(0, 0))), 0},
		{"a length too short for a batch header", func() []byte {
			b := finishBatch(batch(0, 0, nil))[:40]
			binary.BigEndian.PutUint32(b[8:], uint32(len(b)-12))
			return b
		}(), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			raw := append(append([]byte(nil), good...), tc.bad...)
			d := decodePartition(decodeOpts{topic: "t", decompressor: kgo.DefaultDecompressor()}, &kmsg.FetchResponseTopicPartition{RecordBatches: raw})
			if !errors.Is(d.err, ErrCorruptRecords) || len(d.records) != 3+tc.want || d.next != 3 {
				t.Fatalf("records %d next %d err %v: want the %d records before it, next 3, ErrCorruptRecords", len(d.records), d.next, d.err, 3+tc.want)
			}
			if !strings.Contains(d.err.Error(), "t[0] batch at offset 3") {
				t.Errorf("error %q does not name the partition and the batch", d.err)
			}
		})
	}
}

// encodeMessageSet encodes n messages of magic 0 or 1 (before KIP-98) at
// offsets base.., with valid sizes and CRCs (CRC-32 of the bytes after the
// CRC field, byte 16 on).
func encodeMessageSet(magic int8, base int64, n int) []byte {
	var out []byte
	for i := range int64(n) {
		var m interface{ AppendTo([]byte) []byte }
		switch magic {
		case 0:
			v := &kmsg.MessageV0{Offset: base + i, Magic: 0, Key: fmt.Appendf(nil, "k-%d", i), Value: fmt.Appendf(nil, "v-%d", base+i)}
			v.MessageSize = int32(len(v.AppendTo(nil)) - 12)
			v.CRC = int32(crc32.ChecksumIEEE(v.AppendTo(nil)[16:]))
			m = v
		default:
			v := &kmsg.MessageV1{Offset: base + i, Magic: 1, Timestamp: 1_700_000_000_000 + i, Key: fmt.Appendf(nil, "k-%d", i), Value: fmt.Appendf(nil, "v-%d", base+i)}
			v.MessageSize = int32(len(v.AppendTo(nil)) - 12)
			v.CRC = int32(crc32.ChecksumIEEE(v.AppendTo(nil)[16:]))
			m = v
		}
		out = m.AppendTo(out)
	}
	return out
}

func TestDecodePartitionFallsBackForOldMagic(t *testing.T) {
	for _, tc := range []struct {
		name string
		raw  []byte
	}{
		// A v0 message is shorter than a batch header: kmsg.RecordBatch
		// cannot read it, the magic still sends it to kgo.
		{"magic 0", encodeMessageSet(0, 4, 3)},
		{"magic 1", encodeMessageSet(1, 4, 3)},
		{"magic 2, then magic 1", append(encodeBatch(t, batchSpec{base: 1, n: 3}), encodeMessageSet(1, 4, 3)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := decodeOpts{topic: "t", offset: 4, decompressor: kgo.DefaultDecompressor()}
			d := decodePartition(o, &kmsg.FetchResponseTopicPartition{RecordBatches: tc.raw})
			if d.err != nil || len(d.records) != 3 || d.next != 7 {
				t.Fatalf("records %d next %d err %v: want offsets 4..6, next 7", len(d.records), d.next, d.err)
			}
			for i, r := range d.records {
				if r.Offset != int64(4+i) || string(r.Value) != fmt.Sprintf("v-%d", 4+i) {
					t.Fatalf("record %d: offset %d value %q", i, r.Offset, r.Value)
				}
			}
		})
	}
}

func TestDecodePartitionSubSlicesTheAnswer(t *testing.T) {
	raw := encodeBatch(t, batchSpec{base: 0, n: 50})
	rp := &kmsg.FetchResponseTopicPartition{RecordBatches: raw}
	o := decodeOpts{topic: "t", decompressor: kgo.DefaultDecompressor()}
	d := decodePartition(o, rp)
	within := func(b []byte) bool {
		return len(b) > 0 && uintptr(unsafe.Pointer(&b[0])) >= uintptr(unsafe.Pointer(&raw[0])) &&
			uintptr(unsafe.Pointer(&b[len(b)-1])) <= uintptr(unsafe.Pointer(&raw[len(raw)-1]))
	}
	for i, r := range d.records {
		if !within(r.Key) || !within(r.Value) {
			t.Fatalf("record %d: key or value copied out of the Fetch answer", i)
		}
	}
	// One allocation per partition answer: the records (no headers here).
	const allowed = 1
	if n := testing.AllocsPerRun(20, func() { decodePartition(o, rp) }); n > allowed {
		t.Errorf("%.0f allocations to decode 50 uncompressed records, want at most %d (the slab)", n, allowed)
	}
}
