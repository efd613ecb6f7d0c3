package client

import (
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kreactor/kreactor/managers"
)

// Record is one consumed record (consumer.Record); the regular fetch
// manager decodes into it directly.
type Record = managers.Record

// Header is a record header (consumer.Header).
type Header = managers.Header

// ShareRecord is a record acquired from a share group, with how many times
// it has been delivered, this time included (consumer.ShareRecord).
type ShareRecord struct {
	Record
	DeliveryCount int16
}

// FromKgo converts a record franz-go decoded from a ShareFetch answer.
func FromKgo(r *kgo.Record) Record {
	out := Record{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, LeaderEpoch: r.LeaderEpoch,
		Timestamp: r.Timestamp, Key: r.Key, Value: r.Value}
	for _, h := range r.Headers {
		out.Headers = append(out.Headers, Header{Key: h.Key, Value: h.Value})
	}
	return out
}
