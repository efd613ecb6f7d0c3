package group

// Record batch decoding for Fetch answers: straight into the records Poll
// returns (managers.Record), one allocation per partition answer, so a
// record exists in one form only between the socket and the application.
//
// The fast path reads record batches of magic 2 (KIP-98, the only format
// Kafka 4 writes) with franz-go's kmsg types: kmsg.RecordBatch for the batch
// and its CRC-32C, kgo's decompressor, and one reused kmsg.Record per answer
// for the records (its ReadFrom sub-slices keys and values from the answer,
// and keeps its header array across records). Anything else goes through
// kgo.ProcessFetchPartition: message sets of magic 0 and 1, and
// read_committed answers that list aborted transactions (the aborted
// batches and their markers must be dropped by producer).

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"time"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
)

// Bits of kmsg.RecordBatch.Attributes (KIP-98; kgo.RecordAttrs reads the
// same bits but cannot be built from a batch's attributes).
const (
	attrCompression   = 0x07 // kgo.CompressionCodecType
	attrLogAppendTime = 0x08 // timestamp type 1: every record has MaxTimestamp
	attrControl       = 0x20 // transaction markers, never delivered
)

// batchLengthEnd and batchCRCEnd are where a batch's Length and CRC fields
// end, in bytes. The fields of kmsg.RecordBatch before its records are
// fixed-width on the wire, as wide as their Go types: Length counts the
// bytes after itself, and the CRC-32C covers the bytes after the CRC field
// (attributes to the last record; what kgo checks too).
var batchLengthEnd, batchCRCEnd = func() (int, int) {
	var b kmsg.RecordBatch
	length := binary.Size(b.FirstOffset) + binary.Size(b.Length)
	return length, length + binary.Size(b.PartitionLeaderEpoch) + binary.Size(b.Magic) + binary.Size(b.CRC)
}()

// decodeOpts says what one partition's answer is decoded for.
type decodeOpts struct {
	topic         string
	partition     int32
	offset        int64 // the fetch offset: records before it are dropped
	readCommitted bool
	decompressor  kgo.Decompressor // the fetch manager's (safe for concurrent use)
}

// decoded is one partition's records from a Fetch answer.
type decoded struct {
	records []managers.Record
	// next is the offset after the last batch read, control batches and
	// aborted data included (-1 when no batch was complete).
	next int64
	// err is a decoding error (ErrCorruptRecords) met after the records.
	err error
}

// batchRead is what readBatch found at the start of a partition's bytes.
type batchRead int

const (
	batchV2      batchRead = 1 + iota // a complete batch of magic 2, read
	batchOther                        // a complete batch or message of another magic (or too short to hold one)
	batchCorrupt                      // complete by its Length, magic 2, but not a batch
	batchEnd                          // no complete batch: the end, or a truncated last batch (max.partition.fetch.bytes)
)

// readBatch reads the batch at the start of in into rb, and returns its
// length in bytes (0 for batchEnd).
func readBatch(rb *kmsg.RecordBatch, in []byte) (int, batchRead) {
	err := rb.ReadFrom(in) // the records are a sub-slice of in
	if len(in) < batchLengthEnd || rb.Length < 0 || int(rb.Length) > len(in)-batchLengthEnd {
		return 0, batchEnd
	}
	n := batchLengthEnd + int(rb.Length)
	switch {
	case rb.Magic != 2:
		return n, batchOther
	case err != nil:
		return n, batchCorrupt
	}
	return n, batchV2
}

// decodePartition decodes rp's record batches for o.
func decodePartition(o decodeOpts, rp *kmsg.FetchResponseTopicPartition) decoded {
	if o.readCommitted && len(rp.AbortedTransactions) > 0 {
		return decodeWithKgo(o, rp)
	}
	var rb kmsg.RecordBatch
	// First pass: every complete batch is magic 2 (else kgo decodes), and
	// how many records they hold, to size the one allocation.
	total := 0
	for in := rp.RecordBatches; ; {
		n, r := readBatch(&rb, in)
		if r == batchOther {
			return decodeWithKgo(o, rp)
		}
		if r != batchV2 {
			break
		}
		if rb.Attributes&attrControl == 0 {
			total += max(int(rb.NumRecords), 0)
		}
		in = in[n:]
	}
	out := decoded{records: make([]managers.Record, 0, total), next: -1}
	var rec kmsg.Record // reused: its Headers array is kept across records
	for in := rp.RecordBatches; ; {
		n, r := readBatch(&rb, in)
		if r == batchEnd {
			break
		}
		if r == batchCorrupt {
			out.err = batchError(o, &rb, fmt.Sprintf("length %d is too short for a record batch", rb.Length))
			return out
		}
		batch := in[:n]
		in = in[n:]
		if crc := crc32.Checksum(batch[batchCRCEnd:], crc32.MakeTable(crc32.Castagnoli)); crc != uint32(rb.CRC) {
			out.err = batchError(o, &rb, fmt.Sprintf("CRC mismatch (field %#x, computed %#x)", uint32(rb.CRC), crc))
			return out
		}
		if err := decodeBatch(o, &rb, &rec, &out.records); err != nil {
			out.err = err
			return out
		}
		out.next = rb.FirstOffset + int64(rb.LastOffsetDelta) + 1
	}
	return out
}

// batchError is ErrCorruptRecords for the batch rb of o's partition.
func batchError(o decodeOpts, rb *kmsg.RecordBatch, what string) error {
	return fmt.Errorf("%w: %s[%d] batch at offset %d: %s", ErrCorruptRecords, o.topic, o.partition, rb.FirstOffset, what)
}

// decodeBatch appends the records of the complete magic-2 batch rb at or
// after o.offset to recs (none for a control batch), reading each record
// into rec.
func decodeBatch(o decodeOpts, rb *kmsg.RecordBatch, rec *kmsg.Record, recs *[]managers.Record) error {
	if rb.Attributes&attrControl != 0 {
		return nil // transaction markers: never delivered
	}
	if rb.NumRecords < 0 {
		return batchError(o, rb, fmt.Sprintf("record count %d", rb.NumRecords))
	}
	if rb.FirstOffset+int64(rb.LastOffsetDelta) < o.offset {
		return nil // every record precedes the fetch offset
	}
	raw := rb.Records
	if codec := kgo.CompressionCodecType(rb.Attributes & attrCompression); codec != kgo.CodecNone {
		var err error
		if raw, err = o.decompressor.Decompress(raw, codec); err != nil {
			return batchError(o, rb, fmt.Sprintf("decompressing (codec %d): %v", codec, err))
		}
	}
	logAppend := rb.Attributes&attrLogAppendTime != 0
	var logAppendTs time.Time
	if logAppend {
		logAppendTs = time.UnixMilli(rb.MaxTimestamp)
	}
	count := int(rb.NumRecords)
	for i := range count {
		// A record starts with its length (a varint): kmsg reads one
		// record from exactly its bytes.
		length, used := kbin.Varint(raw)
		if used <= 0 || length < 0 || int(length) > len(raw)-used {
			return batchError(o, rb, fmt.Sprintf("record %d of %d: bad length", i, count))
		}
		if err := rec.ReadFrom(raw[:used+int(length)]); err != nil {
			return batchError(o, rb, fmt.Sprintf("record %d of %d: %v", i, count, err))
		}
		raw = raw[used+int(length):]
		offset := rb.FirstOffset + int64(rec.OffsetDelta)
		if offset < o.offset {
			continue
		}
		ts := logAppendTs
		if !logAppend {
			ts = time.UnixMilli(rb.FirstTimestamp + rec.TimestampDelta64)
		}
		var headers []managers.Header
		if len(rec.Headers) > 0 {
			headers = make([]managers.Header, len(rec.Headers))
			for h, kh := range rec.Headers {
				headers[h] = managers.Header{Key: kh.Key, Value: kh.Value}
			}
		}
		*recs = append(*recs, managers.Record{Topic: o.topic, Partition: o.partition, Offset: offset, LeaderEpoch: rb.PartitionLeaderEpoch,
			Timestamp: ts, Key: rec.Key, Value: rec.Value, Headers: headers})
	}
	return nil
}

// decodeWithKgo decodes rp with franz-go (the formats and cases the fast
// path leaves out) and converts the records.
func decodeWithKgo(o decodeOpts, rp *kmsg.FetchResponseTopicPartition) decoded {
	opts := kgo.ProcessFetchPartitionOpts{Offset: o.offset, Topic: o.topic, Partition: o.partition}
	if o.readCommitted {
		opts.IsolationLevel = kgo.ReadCommitted()
	}
	fp, next := kgo.ProcessFetchPartition(opts, rp, o.decompressor, nil)
	out := decoded{records: make([]managers.Record, len(fp.Records)), next: next}
	for i, r := range fp.Records {
		rec := managers.Record{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, LeaderEpoch: r.LeaderEpoch,
			Timestamp: r.Timestamp, Key: r.Key, Value: r.Value}
		for _, h := range r.Headers {
			rec.Headers = append(rec.Headers, managers.Header{Key: h.Key, Value: h.Value})
		}
		out.records[i] = rec
	}
	if fp.Err != nil {
		out.err = fp.Err
	}
	return out
}
