package share

import (
	"errors"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

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

// Acknowledge records the application's acknowledgement of a delivered
// record. Renew keeps the record unacknowledged (its lock is extended).
// Errors: ErrNotDelivered.
func (c *Consume) Acknowledge(tp managers.TopicPartition, offset int64, typ AckType) error {
	if !typ.Valid() {
		return fmt.Errorf("%w: %d", ErrInvalidAckType, int8(typ))
	}
	d := c.delivered[tp]
	cur, ok := d[offset]
	if !ok || cur != 0 {
		return ErrNotDelivered
	}
	if typ == AckRenew {
		c.pending[tp] = append(c.pending[tp], ackEntry{offset, AckRenew})
		return nil
	}
	d[offset] = typ
	return nil
}

// Unacknowledged is the number of delivered records not yet acknowledged.
func (c *Consume) Unacknowledged() int {
	n := 0
	for _, d := range c.delivered {
		for _, t := range d {
			if t == 0 {
				n++
			}
		}
	}
	return n
}

// AcknowledgeAll gives every delivered, unacknowledged record typ (implicit
// mode accepts the previous batch; close in explicit mode releases).
func (c *Consume) AcknowledgeAll(typ AckType) {
	for _, d := range c.delivered {
		for off, t := range d {
			if t == 0 {
				d[off] = typ
			}
		}
	}
}

// Flush moves acknowledged delivered records to the acknowledgements
// awaiting sending.
func (c *Consume) Flush() {
	for tp, d := range c.delivered {
		for off, t := range d {
			if t != 0 {
				c.pending[tp] = append(c.pending[tp], ackEntry{off, t})
				delete(d, off)
			}
		}
		if len(d) == 0 {
			delete(c.delivered, tp)
		}
	}
}

func (c *Consume) outcomes(sent map[managers.TopicPartition][]ackEntry, errFor func(managers.TopicPartition) error) ([]AckOutcome, map[managers.TopicPartition]error) {
	var out []AckOutcome
	results := map[managers.TopicPartition]error{}
	for tp, es := range sent {
		var kept []ackEntry // renewals are not outcomes the application asked to know
		for _, e := range es {
			if e.typ != AckRenew {
				kept = append(kept, e)
			}
		}
		err := errFor(tp)
		results[tp] = err
		if len(kept) > 0 {
			out = append(out, AckOutcome{TP: tp, Offsets: offsetsOf(kept), Err: err})
		}
	}
	return out, results
}

// answeredOr is tp's acknowledgement outcome in an answer: its error code,
// or, when the broker left tp out, a ResponseError (an acknowledgement
// nobody confirmed is never reported accepted).
func answeredOr(perTP map[managers.TopicPartition]error, tp managers.TopicPartition, key kmsg.Key, node int32) error {
	err, ok := perTP[tp]
	if !ok {
		return &managers.ResponseError{Key: key, Node: node, Detail: "no answer for the acknowledgements of " + tp.String()}
	}
	return err
}
