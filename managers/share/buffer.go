package share

// The record buffer: records the broker acquired for this member and the
// application has not taken yet, per assigned partition, taken round-robin.
//
// Kafka API: the AcquiredRecords of a ShareFetch (key 78) v1+ answer
// (KIP-932): only records inside an acquired range are kept, with their
// delivery count. Bounded (docs/design.md, invariant 8): at MaxBuffered
// records fetching pauses (Await "buffer drained"); records of a partition
// no longer assigned are dropped, never delivered (their acquisition locks
// expire and the broker redelivers them).

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
)

// recordBuffer holds the acquired records the application has not taken,
// per assigned partition. Loop goroutine only.
type recordBuffer struct {
	records       map[managers.TopicPartition][]Record
	n             int                              // records held
	assigned      map[managers.TopicPartition]bool // the assignment synced last
	order         []managers.TopicPartition        // the assignment's order: Take's round-robin
	rr            int                              // the partition Take starts at
	assignVersion uint64                           // View.AssignmentVersion synced last
}

func newRecordBuffer() recordBuffer {
	return recordBuffer{records: map[managers.TopicPartition][]Record{}, assigned: map[managers.TopicPartition]bool{}}
}

// Buffered is the number of acquired records not yet delivered.
func (c *Consume) Buffered() int { return c.buf.n }

// Take removes up to max buffered records, partitions round-robin, and
// records them as delivered (awaiting acknowledgement).
func (c *Consume) Take(max int) []Record {
	return c.buf.take(max, func(tp managers.TopicPartition, recs []Record) {
		d := c.delivered[tp]
		if d == nil {
			d = map[int64]AckType{}
			c.delivered[tp] = d
		}
		for _, r := range recs {
			d[r.Offset] = 0
		}
	})
}

// take removes up to max records, partitions round-robin, handing each
// partition's share to taken.
func (b *recordBuffer) take(max int, taken func(managers.TopicPartition, []Record)) []Record {
	var out []Record
	for range len(b.order) {
		if len(out) >= max {
			break
		}
		tp := b.order[b.rr%len(b.order)]
		b.rr++
		recs := b.records[tp]
		if len(recs) == 0 {
			continue
		}
		n := min(len(recs), max-len(out))
		out = append(out, recs[:n]...)
		b.records[tp] = recs[n:]
		b.n -= n
		taken(tp, recs[:n])
	}
	return out
}

// sync follows the view's assignment: records of partitions no longer
// assigned are dropped (acquired, never delivered: the lock expires and the
// broker redelivers).
func (b *recordBuffer) sync(v View) {
	if v.AssignmentVersion == b.assignVersion && len(v.Assignment) == len(b.assigned) {
		return
	}
	b.assignVersion = v.AssignmentVersion
	next := map[managers.TopicPartition]bool{}
	for _, tp := range v.Assignment {
		next[tp] = true
	}
	for tp := range b.assigned {
		if !next[tp] {
			b.n -= len(b.records[tp])
			delete(b.records, tp)
		}
	}
	b.assigned = next
	b.order = slices.Clone(v.Assignment)
	b.rr = 0
}

// acquire keeps the records of p that the broker acquired for this member.
func (b *recordBuffer) acquire(tp managers.TopicPartition, p *kmsg.ShareFetchResponseTopicPartition) {
	if len(p.AcquiredRecords) == 0 || !b.assigned[tp] {
		return
	}
	fp := kmsg.NewFetchResponseTopicPartition()
	fp.Partition = p.Partition
	fp.RecordBatches = p.Records
	parsed, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{Topic: tp.Topic, Partition: tp.Partition, Offset: p.AcquiredRecords[0].FirstOffset}, &fp, kgo.DefaultDecompressor(), nil)
	for _, rec := range parsed.Records {
		for _, a := range p.AcquiredRecords {
			if rec.Offset >= a.FirstOffset && rec.Offset <= a.LastOffset {
				b.records[tp] = append(b.records[tp], Record{Record: rec, DeliveryCount: a.DeliveryCount})
				b.n++
				break
			}
		}
	}
}
