package kgo

import (
	"fmt"

	franz "github.com/twmb/franz-go/pkg/kgo"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
)

// Seek moves an assigned partition's fetch position to offset (Java's
// seek): kgo's SetOffsets, which drops what kgo buffered for the partition
// and, for a group member, makes offset the partition's uncommitted
// position (the next CommitSync commits it, as Java commits the position
// after a seek); manually assigned, offset becomes the position CommitSync
// commits. Nothing is committed by the seek itself. Errors: a
// *group.PartitionError wrapping group.ErrNotAssigned (Java's
// IllegalStateException), a negative offset, consumer.ErrClosed,
// consumer.ErrConcurrentUse.
func (c *Consumer) Seek(tp managers.TopicPartition, offset int64) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	if offset < 0 {
		return fmt.Errorf("kgo subject: seek %s to offset %d: offsets are >= 0", tp, offset)
	}
	c.mu.Lock()
	_, ok := c.assigned[tp]
	c.mu.Unlock()
	if !ok {
		return &group.PartitionError{TP: tp, Err: group.ErrNotAssigned}
	}
	eo := franz.EpochOffset{Epoch: -1, Offset: offset}
	if c.mode == modeAssigned {
		if _, pending := c.direct.pending[tp]; pending {
			// kgo's SetOffsets skips a partition it is not consuming yet:
			// a partition sought before its first Poll starts at offset
			// instead of at the group's commit or auto.offset.reset, as
			// Java's seek sets the position that Poll would otherwise fetch.
			delete(c.direct.pending, tp)
			c.direct.positions[tp] = eo
			c.cl.AddConsumePartitions(map[string]map[int32]franz.Offset{tp.Topic: {tp.Partition: franz.NewOffset().At(offset)}})
			return nil
		}
		c.direct.positions[tp] = eo
	}
	c.cl.SetOffsets(map[string]map[int32]franz.EpochOffset{tp.Topic: {tp.Partition: eo}})
	return nil
}
