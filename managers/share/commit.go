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

import (
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

type commitReq struct {
	acks     map[managers.TopicPartition][]ackEntry // not yet sent
	waiting  int                                    // requests in flight
	sent     map[managers.TopicPartition]bool       // partitions in a request in flight
	results  map[managers.TopicPartition]error
	done     func(results map[managers.TopicPartition]error, version uint64)
	finished bool // every partition has its result; done runs once the commits before it finished
}

// Commit sends every flushed acknowledgement in ShareAcknowledge requests
// now; done runs as an effect with each partition's outcome (nil error:
// accepted) and the completion's state version. Nothing to send completes at
// once with an empty map.
func (c *Consume) Commit(tx *reactor.Tx, done func(map[managers.TopicPartition]error, uint64)) {
	c.Flush()
	cr := &commitReq{acks: c.pending, sent: map[managers.TopicPartition]bool{}, results: map[managers.TopicPartition]error{}, done: done}
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
