package client

import (
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Record is one consumed record (consumer.Record).
type Record struct {
	Topic       string
	Partition   int32
	Offset      int64
	LeaderEpoch int32 // -1 if unknown
	Timestamp   time.Time
	Key, Value  []byte
	Headers     []Header
}

// Header is a record header (consumer.Header).
type Header struct {
	Key   string
	Value []byte
}

// ShareRecord is a record acquired from a share group, with how many times
// it has been delivered, this time included (consumer.ShareRecord).
type ShareRecord struct {
	Record
	DeliveryCount int16
}

// FromKgo converts a record franz-go decoded from a Fetch or ShareFetch
// answer.
func FromKgo(r *kgo.Record) Record {
	out := Record{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, LeaderEpoch: r.LeaderEpoch,
		Timestamp: r.Timestamp, Key: r.Key, Value: r.Value}
	for _, h := range r.Headers {
		out.Headers = append(out.Headers, Header{Key: h.Key, Value: h.Value})
	}
	return out
}
