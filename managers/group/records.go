package group

// Record batch decoding for Fetch answers: straight into the records Poll
// returns (managers.Record), one allocation per partition answer, so a
// record exists in one form only between the socket and the application.
//
// The fast path reads record batches of magic 2 (KIP-98, the only format
// Kafka 4 writes): the batch header, its CRC-32C, decompression (franz-go's
// decompressor), and the records with franz-go's kbin primitives. Anything
// else goes through kgo.ProcessFetchPartition: message sets of magic 0 and 1,
// and read_committed answers that list aborted transactions (the aborted
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

// Record batch v2 layout (Kafka protocol guide, "Record Batch").
const (
	batchHeaderLen   = 61 // baseOffset .. recordsCount
	batchLengthAt    = 8  // int32: bytes after this field
	batchLeaderAt    = 12 // int32 partitionLeaderEpoch
	batchMagicAt     = 16 // int8 magic
	batchCRCAt       = 17 // uint32 CRC-32C of attributes .. end
	batchAttrsAt     = 21 // int16 attributes
	batchLastDeltaAt = 23 // int32 lastOffsetDelta
	batchBaseTsAt    = 27 // int64 baseTimestamp
	batchMaxTsAt     = 35 // int64 maxTimestamp
	batchCountAt     = 57 // int32 recordsCount

	attrCompression   = 0x07
	attrLogAppendTime = 0x08
	attrControl       = 0x20
)

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

// decodePartition decodes rp's record batches for o.
func decodePartition(o decodeOpts, rp *kmsg.FetchResponseTopicPartition) decoded {
	if o.readCommitted && len(rp.AbortedTransactions) > 0 {
		return decodeWithKgo(o, rp)
	}
	in := rp.RecordBatches
	// First pass: every complete batch is magic 2 (else kgo decodes), and
	// how many records they hold, to size the one allocation.
	total := 0
	for b := in; len(b) >= batchHeaderLen; {
		end := batchLengthAt + 4 + int(int32(binary.BigEndian.Uint32(b[batchLengthAt:])))
		if end < batchHeaderLen || end > len(b) {
			break // truncated last batch (max.partition.fetch.bytes)
		}
		if b[batchMagicAt] != 2 {
			return decodeWithKgo(o, rp)
		}
		if int16(binary.BigEndian.Uint16(b[batchAttrsAt:]))&attrControl == 0 {
			total += max(int(int32(binary.BigEndian.Uint32(b[batchCountAt:]))), 0)
		}
		b = b[end:]
	}
	out := decoded{records: make([]managers.Record, 0, total), next: -1}
	for len(in) >= batchHeaderLen {
		end := batchLengthAt + 4 + int(int32(binary.BigEndian.Uint32(in[batchLengthAt:])))
		if end < batchHeaderLen || end > len(in) {
			break
		}
		batch := in[:end]
		in = in[end:]
		if crc32.Checksum(batch[batchAttrsAt:], crc32.MakeTable(crc32.Castagnoli)) != binary.BigEndian.Uint32(batch[batchCRCAt:]) {
			out.err = fmt.Errorf("%w: %s[%d] batch at offset %d: CRC mismatch", ErrCorruptRecords, o.topic, o.partition, int64(binary.BigEndian.Uint64(batch)))
			return out
		}
		if err := decodeBatch(o, batch, &out.records); err != nil {
			out.err = err
			return out
		}
		out.next = int64(binary.BigEndian.Uint64(batch)) + int64(int32(binary.BigEndian.Uint32(batch[batchLastDeltaAt:]))) + 1
	}
	return out
}

// decodeBatch appends the records of one complete magic-2 batch at or
// after o.offset to recs (none for a control batch).
func decodeBatch(o decodeOpts, batch []byte, recs *[]managers.Record) error {
	base := int64(binary.BigEndian.Uint64(batch))
	attrs := int16(binary.BigEndian.Uint16(batch[batchAttrsAt:]))
	if attrs&attrControl != 0 {
		return nil // transaction markers: never delivered
	}
	count := int(int32(binary.BigEndian.Uint32(batch[batchCountAt:])))
	corrupt := func(what string) error {
		return fmt.Errorf("%w: %s[%d] batch at offset %d: %s", ErrCorruptRecords, o.topic, o.partition, base, what)
	}
	if count < 0 {
		return corrupt(fmt.Sprintf("record count %d", count))
	}
	last := base + int64(int32(binary.BigEndian.Uint32(batch[batchLastDeltaAt:])))
	if last < o.offset {
		return nil // every record precedes the fetch offset
	}
	raw := batch[batchHeaderLen:]
	if codec := attrs & attrCompression; codec != 0 {
		var err error
		if raw, err = o.decompressor.Decompress(raw, kgo.CompressionCodecType(codec)); err != nil {
			return corrupt(fmt.Sprintf("decompressing (codec %d): %v", codec, err))
		}
	}
	leader := int32(binary.BigEndian.Uint32(batch[batchLeaderAt:]))
	baseTs := int64(binary.BigEndian.Uint64(batch[batchBaseTsAt:]))
	logAppend := attrs&attrLogAppendTime != 0
	var logAppendTs time.Time
	if logAppend {
		logAppendTs = time.UnixMilli(int64(binary.BigEndian.Uint64(batch[batchMaxTsAt:])))
	}
	for i := 0; i < count; i++ {
		length, used := kbin.Varint(raw)
		if used <= 0 || length < 0 || int(length) > len(raw)-used {
			return corrupt(fmt.Sprintf("record %d of %d: bad length", i, count))
		}
		r := kbin.Reader{Src: raw[used : used+int(length)]}
		raw = raw[used+int(length):]
		r.Int8() // record attributes: unused
		tsDelta := r.Varlong()
		offset := base + int64(r.Varint())
		key := r.VarintBytes()
		value := r.VarintBytes()
		var headers []managers.Header
		if n := int(r.VarintArrayLen()); n > 0 {
			headers = make([]managers.Header, n)
			for h := range headers {
				headers[h] = managers.Header{Key: r.VarintString(), Value: r.VarintBytes()}
			}
		}
		if !r.Ok() {
			return corrupt(fmt.Sprintf("record %d of %d: truncated", i, count))
		}
		if offset < o.offset {
			continue
		}
		ts := logAppendTs
		if !logAppend {
			ts = time.UnixMilli(baseTs + tsDelta)
		}
		*recs = append(*recs, managers.Record{Topic: o.topic, Partition: o.partition, Offset: offset, LeaderEpoch: leader,
			Timestamp: ts, Key: key, Value: value, Headers: headers})
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
