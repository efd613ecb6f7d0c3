package share

import (
	"errors"
	"fmt"
	"slices"

	"github.com/kreactor/kreactor/managers"
)

// AckType is an acknowledgement type (KIP-932 AcknowledgeTypes; Renew is
// KIP-1222). The zero value means "not acknowledged".
type AckType int8

const (
	AckAccept  AckType = 1 // processed; never delivered again
	AckRelease AckType = 2 // give back for redelivery (delivery count grows)
	AckReject  AckType = 3 // unprocessable; never delivered again
	AckRenew   AckType = 4 // extend the acquisition lock; the record stays unacknowledged
)

func (t AckType) String() string {
	switch t {
	case AckAccept:
		return "accept"
	case AckRelease:
		return "release"
	case AckReject:
		return "reject"
	case AckRenew:
		return "renew"
	}
	return fmt.Sprintf("invalid(%d)", int8(t))
}

// Valid reports whether t is one of the four types.
func (t AckType) Valid() bool { return t >= AckAccept && t <= AckRenew }

// Errors of acknowledgement bookkeeping.
var (
	// ErrNotDelivered: the record was not delivered to the application by
	// this consumer, or was already acknowledged.
	ErrNotDelivered = errors.New("record not delivered or already acknowledged")
	// ErrUnacknowledged: in explicit mode, a Poll found records of the
	// previous batch not acknowledged (Java's IllegalStateException).
	ErrUnacknowledged = errors.New("explicit acknowledgement mode: records of the previous poll are not acknowledged")
	// ErrInvalidAckType: an acknowledgement type other than Accept,
	// Release, Reject and Renew.
	ErrInvalidAckType = errors.New("invalid acknowledgement type")
	// ErrSessionClosed: acknowledgements that could not be sent because
	// the share session on their broker was closed or never opened; the
	// broker releases the records when their acquisition lock expires.
	ErrSessionClosed = errors.New("share session closed before the acknowledgement was sent")
)

// AckOutcome is the broker's answer to one partition's acknowledgements.
type AckOutcome struct {
	TP      managers.TopicPartition
	Offsets []int64 // sorted
	Err     error   // nil: accepted by the broker
}

type ackEntry struct {
	offset int64
	typ    AckType
}

// batches turns sorted acknowledgements into wire batches: runs of
// consecutive offsets with one type each.
type ackBatch struct {
	first, last int64
	typ         AckType
}

func toBatches(entries []ackEntry) []ackBatch {
	es := slices.Clone(entries)
	slices.SortFunc(es, func(a, b ackEntry) int {
		switch {
		case a.offset < b.offset:
			return -1
		case a.offset > b.offset:
			return 1
		}
		return 0
	})
	var out []ackBatch
	for _, e := range es {
		if n := len(out); n > 0 && out[n-1].last+1 == e.offset && out[n-1].typ == e.typ {
			out[n-1].last = e.offset
			continue
		}
		out = append(out, ackBatch{first: e.offset, last: e.offset, typ: e.typ})
	}
	return out
}

func offsetsOf(entries []ackEntry) []int64 {
	out := make([]int64, len(entries))
	for i, e := range entries {
		out[i] = e.offset
	}
	slices.Sort(out)
	return out
}

func hasRenew(acks map[managers.TopicPartition][]ackEntry) bool {
	for _, es := range acks {
		for _, e := range es {
			if e.typ == AckRenew {
				return true
			}
		}
	}
	return false
}
