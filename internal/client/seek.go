package client

import (
	"errors"
	"fmt"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// ErrNegativeOffset is returned by Seek for an offset below 0 (Java's
// IllegalArgumentException).
var ErrNegativeOffset = errors.New("seek offset must be >= 0")

// Seek moves tp's fetch position to offset (Java's seek): the next Poll
// delivers from offset, and a commit with no Poll in between commits it.
// The fetch manager drops tp's buffered records; OnSeek (the baseline's
// application-side buffer) drops its own. Errors: ErrNegativeOffset, a
// *group.PartitionError wrapping group.ErrNotAssigned, ErrClosed,
// ErrConcurrentUse.
func (g *Group) Seek(tp managers.TopicPartition, offset int64) error {
	if err := g.Acquire(); err != nil {
		return err
	}
	defer g.Release()
	if offset < 0 {
		return fmt.Errorf("seek %s to %d: %w", tp, offset, ErrNegativeOffset)
	}
	pos := managers.Position{Offset: offset, LeaderEpoch: -1}
	err := g.Call("seek", func(tx *reactor.Tx, reply func(error)) {
		g.syncFetch()
		if err := g.Fetch.Seek(tp, offset); err != nil {
			reply(err)
			return
		}
		if g.OnSeek != nil {
			g.OnSeek(tp, pos)
		}
		reply(nil)
	})
	if err != nil {
		return err
	}
	g.appMu.Lock()
	g.received[tp] = pos
	g.appMu.Unlock()
	return nil
}
