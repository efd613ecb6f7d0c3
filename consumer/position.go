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
