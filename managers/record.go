package managers

import "time"

// Record is one consumed record (consumer.Record): the fetch manager
// decodes Fetch answers into it directly, and Poll hands it to the
// application as is.
type Record struct {
	Topic       string
	Partition   int32
	Offset      int64
	LeaderEpoch int32 // -1 if unknown
	Timestamp   time.Time
	Key, Value  []byte // nil for a null key or value
	Headers     []Header
}

// Header is a record header (consumer.Header).
type Header struct {
	Key   string
	Value []byte
}
