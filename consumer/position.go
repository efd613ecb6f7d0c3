package consumer

import (
	"context"

	"github.com/kreactor/kreactor/internal/client"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// Position returns the offset of the next record Poll will return for the
// assigned partition tp (Java's position(tp, Duration)): at once when it
// is known, else once the consumer found it (committed offset or
// auto.offset.reset), until ctx is done. A ctx already done answers what
// is known without waiting. Errors: a *group.PartitionError wrapping
// group.ErrNotAssigned, ctx.Err() when it is not known by then, ErrClosed.
func (c *Consumer) Position(ctx context.Context, tp managers.TopicPartition) (int64, error) {
	for {
		var (
			pos   managers.Position
			known bool
		)
		err := c.g.Call("position", func(tx *reactor.Tx, reply func(error)) {
			var err error
			pos, known, err = c.g.Fetch.Position(tp)
			reply(err)
		})
		switch {
		case err != nil:
			return 0, err
		case known:
			return pos.Offset, nil
		case ctx.Err() != nil:
			return 0, ctx.Err()
		}
		// Wait for the next published decision: a position is found by
		// an answer, which publishes one.
		seen := c.g.Diagnostics().Snapshot()
		if err := c.g.WaitFor(ctx, func(s *client.Snapshot) bool { return s != seen }); err != nil {
			return 0, err
		}
	}
}

// Committed returns the group's committed offsets for partitions, assigned
// or not (Java's committed(partitions, Duration)): it sends an OffsetFetch
// to the group coordinator and waits for the answer until ctx's deadline
// (default.api.timeout.ms without one), retrying retriable answers
// meanwhile. A partition without a committed offset is absent from the
// map. A ctx whose deadline has already passed still lets the OffsetFetch
// go once and returns ctx.Err() at once (Java's TimeoutException for
// Duration.ZERO). Errors: ErrNoGroup, a *group.PartitionError or kerr error
// the coordinator answered, ErrClosed, ErrConcurrentUse, ctx.Err().
func (c *Consumer) Committed(ctx context.Context, partitions ...managers.TopicPartition) (map[managers.TopicPartition]managers.Position, error) {
	return c.g.Committed(ctx, partitions...)
}
