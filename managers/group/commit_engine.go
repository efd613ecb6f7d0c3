package group

import (
	"maps"
	"time"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// EnqueueInEngine queues a commit of offsets (non-empty) like Enqueue, but
// done runs on the engine goroutine in the step that completes the commit,
// with nil or a *CommitError: for a manager waiting on the commit (the
// auto-commit before revocation), which must not wait for publication.
func (c *Commit) EnqueueInEngine(offsets map[managers.TopicPartition]managers.Position, deadline time.Time, done func(tx *reactor.Tx, err error)) {
	c.pending = append(c.pending, &commit{offsets: maps.Clone(offsets), deadline: deadline, inEngine: done})
}
