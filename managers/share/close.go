package share

// Close of the share sessions.
//
// Kafka APIs: ShareAcknowledge (key 79) v1+ with ShareSessionEpoch -1 to
// every broker with an open session, carrying the acknowledgements still to
// send (KIP-932), before the leave heartbeat (ShareGroupHeartbeat epoch -1,
// membership.go). At the close deadline every acknowledgement not yet
// answered is reported failed, never dropped (catalogue CONTRACT-7;
// docs/design.md, invariant 7; KAFKA-19357's shape on the share consumer).

import (
	"slices"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// Close stops fetching; acknowledgements still to send go out with each
// session's closing request (epoch -1).
func (c *Consume) Close() {
	c.closing = true
	c.Flush()
}

// Done reports whether close has nothing left: every session closed (or
// never opened), every acknowledgement answered.
func (c *Consume) Done() bool {
	if !c.closing || len(c.commits) > 0 || len(c.pending) > 0 {
		return false
	}
	for _, s := range c.sessions {
		if s.inFlight || (!s.closed && s.epoch > 0) {
			return false
		}
	}
	return true
}

// FailAll reports every acknowledgement not yet answered as failed with err
// and ends every session (close deadline): those awaiting sending, those of
// commits, and those a request in flight carries (its answer, if it still
// comes, then reports nothing). Every commit completes.
func (c *Consume) FailAll(tx *reactor.Tx, err error) {
	errFor := func(managers.TopicPartition) error { return err }
	outcomes, _ := c.outcomes(c.pending, errFor)
	c.pending = map[managers.TopicPartition][]ackEntry{}
	for _, s := range c.sessions {
		if len(s.carrying) > 0 {
			out, _ := c.outcomes(s.carrying, errFor)
			outcomes = append(outcomes, out...)
			clear(s.carrying) // the in-flight request's completion reads this map: it reports nothing now
		}
		s.closed = true
	}
	for _, cr := range slices.Clone(c.commits) {
		if cr.finished {
			continue
		}
		out, _ := c.outcomes(cr.acks, errFor)
		outcomes = append(outcomes, out...)
		for tp := range cr.acks {
			cr.results[tp] = err
		}
		for tp := range cr.sent {
			cr.results[tp] = err // reported above with the request carrying it
		}
		clear(cr.acks)
		c.finishCommit(tx, cr)
	}
	c.report(tx, outcomes)
}

// failUnsendable reports acknowledgements for a broker with no open session
// at close as failed.
func (c *Consume) failUnsendable(tx *reactor.Tx, w *nodeWork, err error) {
	var outcomes []AckOutcome
	for tp, es := range w.acks {
		delete(c.pending, tp)
		outcomes = append(outcomes, AckOutcome{TP: tp, Offsets: offsetsOf(es), Err: err})
	}
	for cr, m := range w.commit {
		for tp, es := range m {
			delete(cr.acks, tp)
			cr.results[tp] = err
			outcomes = append(outcomes, AckOutcome{TP: tp, Offsets: offsetsOf(es), Err: err})
		}
		if len(cr.acks) == 0 && cr.waiting == 0 {
			c.finishCommit(tx, cr)
		}
	}
	c.report(tx, outcomes)
}
