package share

// Commits of acknowledgements: KafkaShareConsumer's commitSync and
// commitAsync.
//
// Kafka API: ShareAcknowledge (key 79) v1+ (KIP-932), one request per broker
// holding a committed partition (acknowledge.go). A commit completes when
// every partition has its outcome, and commits complete in the order made:
// a commit's done never runs before the done of a commit made earlier (a
// CommitSync after every CommitAsync before it; catalogue CONTRACT-1's
// ordering, on the share consumer). done runs as an effect, after the
// decision that includes it is published (docs/design.md, invariant 4).
//
// Every retry ends: a partition whose acknowledgements are answered with a
// retriable error (the error table's retriable class for ShareAcknowledge,
// partition or response level) is sent again after the commit's retry
// backoff (retry.backoff.ms doubling to retry.backoff.max.ms) until the
// commit's deadline (CommitSync's, else default.api.timeout.ms; CommitAsync
// default.api.timeout.ms), then reported failed with a deadline error
// wrapping kerr.RequestTimedOut (Java's REQUEST_TIMED_OUT) and
// managers.ErrRetryDeadline, as kafka-clients 4.4.0's
// ShareConsumeRequestManager does for commitSync and commitAsync
// (handlePartitionError moves them to incompleteAcknowledgements,
// maybeBuildRequest expires them: handleAcknowledgeTimedOut). A deadline
// that passed before the first attempt still lets the acknowledgements go
// once (Java's maybeExpire needs an attempt made). The close's
// acknowledgements, and those a ShareFetch carries, are not retried (Java
// neither).

import (
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

type commitReq struct {
	acks     map[managers.TopicPartition][]ackEntry // not yet sent (or taken back to send again)
	waiting  int                                    // requests in flight
	sent     map[managers.TopicPartition]bool       // partitions in a request in flight
	results  map[managers.TopicPartition]error
	done     func(results map[managers.TopicPartition]error, version uint64)
	finished bool // every partition has its result; done runs once the commits before it finished
	// deadline ends the retries (zero: none, until close); retry backs
	// the commit's next ShareAcknowledge off after a retriable answer;
	// retrying holds, per partition taken back, the error it was last
	// answered with.
	deadline time.Time
	retry    managers.Retry
	retrying map[managers.TopicPartition]error
}

// Commit sends every flushed acknowledgement in ShareAcknowledge requests
// now; done runs as an effect with each partition's outcome (nil error:
// accepted) and the completion's state version. Retriable answers are
// retried until deadline (zero: no deadline; see the file's comment).
// Nothing to send completes at once with an empty map.
func (c *Consume) Commit(tx *reactor.Tx, deadline time.Time, done func(map[managers.TopicPartition]error, uint64)) {
	c.Flush()
	cr := &commitReq{acks: c.pending, sent: map[managers.TopicPartition]bool{}, results: map[managers.TopicPartition]error{}, done: done,
		deadline: deadline, retry: managers.Retry{Backoff: c.cfg.Backoff}, retrying: map[managers.TopicPartition]error{}}
	c.pending = map[managers.TopicPartition][]ackEntry{}
	c.commits = append(c.commits, cr)
	if len(cr.acks) == 0 {
		c.finishCommit(tx, cr) // completes once the commits before it have
	}
}

// PendingCommits is the number of commits not yet answered.
func (c *Consume) PendingCommits() int { return len(c.commits) }

// finishCommit marks cr finished and completes, in the order they were
// made, every finished commit no unfinished commit precedes: a commit's
// done never runs before the done of a commit made earlier.
func (c *Consume) finishCommit(tx *reactor.Tx, cr *commitReq) {
	if cr.finished {
		return
	}
	cr.finished = true
	for len(c.commits) > 0 && c.commits[0].finished {
		head := c.commits[0]
		c.commits[0] = nil
		c.commits = c.commits[1:]
		if head.done != nil {
			done, results, v := head.done, head.results, tx.Version
			tx.Effect(func() { done(results, v) })
		}
	}
}

// retryAck decides, for one partition of a commit's ShareAcknowledge
// answered with err (scope: the answer's top level or the partition's
// code), whether the commit takes its acknowledgements es back to send
// again (kept), or which error to report: err itself, or, for a retriable
// err past the deadline, the deadline's error.
func (cr *commitReq) retryAck(tx *reactor.Tx, tp managers.TopicPartition, es []ackEntry, scope managers.Scope, err error) (report error, kept bool) {
	if err == nil || cr.finished || managers.Class(kmsg.ShareAcknowledge, scope, err) != managers.ClassRetriable {
		return err, false
	}
	if !cr.deadline.IsZero() && !tx.Now.Before(cr.deadline) {
		return ackDeadlineError(err), false
	}
	cr.acks[tp] = append(cr.acks[tp], es...)
	cr.retrying[tp] = err
	cr.retry.Fail(tx.Now, err)
	return nil, true
}

// expire reports failed, at the commit's deadline, the acknowledgements
// taken back for a retry, and completes the commit when nothing of it is
// left. It reports whether the commit is finished.
func (c *Consume) expire(tx *reactor.Tx, cr *commitReq) bool {
	if cr.finished || cr.deadline.IsZero() || tx.Now.Before(cr.deadline) || len(cr.retrying) == 0 {
		return cr.finished
	}
	var outcomes []AckOutcome
	for tp, last := range cr.retrying {
		delete(cr.retrying, tp)
		es, ok := cr.acks[tp]
		if !ok {
			continue // sent again and in flight: its answer decides
		}
		delete(cr.acks, tp)
		err := ackDeadlineError(last)
		cr.results[tp] = err
		if out, _ := c.outcomes(map[managers.TopicPartition][]ackEntry{tp: es}, func(managers.TopicPartition) error { return err }); len(out) > 0 {
			outcomes = append(outcomes, out...)
		}
	}
	c.report(tx, outcomes)
	if cr.waiting == 0 && len(cr.acks) == 0 {
		c.finishCommit(tx, cr)
	}
	return cr.finished
}

// retryDeadline is the earliest deadline of a commit with acknowledgements
// taken back for a retry (zero: none): expire must run then.
func (c *Consume) retryDeadline() time.Time {
	var first time.Time
	for _, cr := range c.commits {
		if !cr.finished && len(cr.retrying) > 0 && !cr.deadline.IsZero() && (first.IsZero() || cr.deadline.Before(first)) {
			first = cr.deadline
		}
	}
	return first
}

// ackDeadlineError is what acknowledgements retried until their commit's
// deadline are reported failed with: Java's REQUEST_TIMED_OUT
// (kerr.RequestTimedOut) and managers.ErrRetryDeadline, with the last
// error answered.
func ackDeadlineError(last error) error {
	return fmt.Errorf("ShareAcknowledge not accepted by the commit's deadline: %w (%w; last: %w)", kerr.RequestTimedOut, managers.ErrRetryDeadline, last)
}
