package group

// Committed look-ups: KafkaConsumer.committed(partitions, Duration).
//
// Kafka API: OffsetFetch (key 9) v8+ to the group coordinator, as for the
// positions (offsets.go), for the partitions the application names, assigned
// or not. Java's contract (AsyncKafkaConsumer.committed, kafka-clients
// 4.4.0): the look-up is retried while its answers are retriable
// (CommitRequestManager.fetchOffsetsWithRetries: coordinator errors after
// rediscovery, others after the retry backoff) until its deadline (the
// call's timeout, default.api.timeout.ms without one), then fails with a
// TimeoutException; a deadline already passed (Duration.ZERO) still lets the
// OffsetFetch go once, the call itself returning at once (the event is
// reaped after the network thread's poll). Look-ups go one at a time, in the
// order asked.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// lookup is one committed look-up.
type lookup struct {
	tps      []managers.TopicPartition
	deadline time.Time
	// done runs as an effect with the committed offsets (a partition with
	// none is absent) or the error.
	done     func(map[managers.TopicPartition]managers.Position, error)
	sent     bool // an OffsetFetch for it went
	inFlight bool
	last     error // the last retriable answer
}

// LookupCommitted queues a look-up of the committed offsets of tps that
// must end by deadline; done runs as an effect with the offsets (a
// partition without a committed offset is absent) or the error: a
// non-retriable answer (a *PartitionError for a partition's), or, past the
// deadline, one wrapping context.DeadlineExceeded and managers.ErrRetryDeadline with
// the last retriable error. Needs a group.
func (o *Offsets) LookupCommitted(tx *reactor.Tx, tps []managers.TopicPartition, deadline time.Time, done func(map[managers.TopicPartition]managers.Position, error)) {
	o.lookups = append(o.lookups, &lookup{tps: slices.Clone(tps), deadline: deadline, done: done})
	tx.Repoll()
}

// PendingLookups is the number of committed look-ups not yet answered.
func (o *Offsets) PendingLookups() int { return len(o.lookups) }

func (o *Offsets) pollLookups(tx *reactor.Tx, v View) reactor.Result {
	o.expireLookups(tx, v)
	if len(o.lookups) == 0 {
		return reactor.Idle("no committed look-up")
	}
	l := o.lookups[0]
	switch {
	case l.inFlight:
		return reactor.Await(reactor.InputResponse, "OffsetFetch for committed offsets in flight")
	case !v.CoordinatorKnown:
		return reactor.Await(reactor.InputCoordinator, "committed look-up, coordinator unknown").Until(o.lookupDeadline())
	case tx.Now.Before(o.lookupRetry.Next()):
		at := o.lookupRetry.Next()
		if d := o.lookupDeadline(); d.Before(at) {
			at = d
		}
		return reactor.RetryAt(at, "committed look-up backoff")
	}
	req := offsetFetchRequest(v, l.tps)
	l.sent, l.inFlight = true, true
	node := v.Coordinator.Node
	return reactor.Ready("committed look-up", &reactor.Request{
		Payload: &managers.Call{Node: node, Addr: v.Coordinator.Addr, Req: req},
		OnComplete: func(tx *reactor.Tx, resp any, err error) {
			l.inFlight = false
			o.onLookup(tx, node, l, resp, err)
		},
	})
}

// lookupDeadline is the earliest deadline of the look-ups.
func (o *Offsets) lookupDeadline() time.Time {
	var first time.Time
	for _, l := range o.lookups {
		if first.IsZero() || l.deadline.Before(first) {
			first = l.deadline
		}
	}
	return first
}

// expireLookups ends the look-ups past their deadline that are not in
// flight and either went once or cannot go now (no coordinator).
func (o *Offsets) expireLookups(tx *reactor.Tx, v View) {
	kept := o.lookups[:0]
	for _, l := range o.lookups {
		if !l.inFlight && !tx.Now.Before(l.deadline) && (l.sent || !v.CoordinatorKnown) {
			o.finishLookup(tx, l, nil, lookupDeadlineError(l.last))
			continue
		}
		kept = append(kept, l)
	}
	clear(o.lookups[len(kept):])
	o.lookups = kept
}

func lookupDeadlineError(last error) error {
	if last == nil {
		last = errors.New("coordinator unknown")
	}
	return fmt.Errorf("committed offsets not found by the deadline: %w (%w; last: %w)", context.DeadlineExceeded, managers.ErrRetryDeadline, last)
}

// finishLookup runs l's done as an effect.
func (o *Offsets) finishLookup(tx *reactor.Tx, l *lookup, offsets map[managers.TopicPartition]managers.Position, err error) {
	if done := l.done; done != nil {
		tx.Effect(func() { done(offsets, err) })
	}
}

// onLookup applies an OffsetFetch answer to the head look-up l by the error
// table's classes: retriable ones retry l after the backoff (coordinator
// ones after rediscovery) until its deadline; others end it.
func (o *Offsets) onLookup(tx *reactor.Tx, node int32, l *lookup, resp any, err error) {
	parts, err := offsetFetchAnswer(node, resp, err)
	out := map[managers.TopicPartition]managers.Position{}
	switch managers.Class(kmsg.OffsetFetch, managers.ScopeResponse, err) {
	case 0:
		err = o.lookupParts(l, parts, out)
		var re *managers.ResponseError
		if errors.As(err, &re) { // a partition left out: asked again after the backoff
			l.last = err
			o.lookupRetry.Fail(tx.Now, err)
			return
		}
	case managers.ClassIgnored: // GROUP_ID_NOT_FOUND: nothing committed
		err = nil
	}
	if err == nil {
		o.coord.Confirm()
		o.lookupRetry.Succeed()
		o.dropLookup(l)
		o.finishLookup(tx, l, out, nil)
		return
	}
	scope := managers.ScopeResponse
	var pe *PartitionError
	if errors.As(err, &pe) {
		scope = managers.ScopePartition
	}
	switch managers.Class(kmsg.OffsetFetch, scope, err) {
	case managers.ClassCoordinator:
		o.coord.MarkUnknown(node, err)
		fallthrough
	case managers.ClassRetriable, managers.ClassMetadata:
		l.last = err
		o.lookupRetry.Fail(tx.Now, err)
		return // expireLookups ends it at its deadline
	}
	o.lookupRetry.Succeed()
	o.dropLookup(l)
	o.finishLookup(tx, l, nil, err)
}

// lookupParts fills out from an answer's partitions, returning the first
// partition error (a *PartitionError) or a ResponseError for a partition
// asked for and not answered.
func (o *Offsets) lookupParts(l *lookup, parts []offsetFetchPart, out map[managers.TopicPartition]managers.Position) error {
	asked := map[managers.TopicPartition]bool{}
	for _, tp := range l.tps {
		asked[tp] = true
	}
	answered := map[managers.TopicPartition]bool{}
	for _, p := range parts {
		tp := o.partTP(p)
		if !asked[tp] {
			continue
		}
		answered[tp] = true
		if perr := p.err(tp); perr != nil {
			if managers.Class(kmsg.OffsetFetch, managers.ScopePartition, perr) == managers.ClassIgnored {
				continue // nothing committed
			}
			return &PartitionError{TP: tp, Err: perr}
		}
		if p.offset >= 0 {
			out[tp] = managers.Position{Offset: p.offset, LeaderEpoch: p.epoch}
		}
	}
	for _, tp := range l.tps {
		if !answered[tp] {
			return &managers.ResponseError{Key: kmsg.OffsetFetch, Node: -1, Detail: "no answer for " + tp.String()}
		}
	}
	return nil
}

func (o *Offsets) dropLookup(l *lookup) {
	if i := slices.Index(o.lookups, l); i >= 0 {
		o.lookups = slices.Delete(o.lookups, i, i+1)
	}
}
