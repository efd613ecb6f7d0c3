package consumer

import "github.com/kreactor/kreactor/internal/client"

// Record is one consumed record: Topic, Partition, Offset, LeaderEpoch (-1
// if unknown), Timestamp, Key, Value and Headers, as the broker's record
// batch carried them.
type Record = client.Record

// Header is a record header: a Key (string) and a Value (bytes).
type Header = client.Header

// ShareRecord is a record acquired from a share group: the Record, and
// DeliveryCount, how many times it has been delivered (this time
// included; KIP-932).
type ShareRecord = client.ShareRecord
