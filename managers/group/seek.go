package group

import "github.com/kreactor/kreactor/managers"

// Seek sets tp's fetch position to offset (Java's KafkaConsumer.seek): the
// records buffered for tp are dropped, the answer to a Fetch already sent
// for it is ignored (a new generation, P3), and the consumed position
// becomes offset, so a commit with no Poll in between commits it. The
// leader epoch is unknown (-1), as after Java's seek(tp, long). Errors: a
// *PartitionError wrapping ErrNotAssigned; nothing changes then.
func (f *Fetch) Seek(tp managers.TopicPartition, offset int64) error {
	p, ok := f.parts[tp]
	if !ok {
		return &PartitionError{TP: tp, Err: ErrNotAssigned}
	}
	f.buffered -= p.n
	p.chunks, p.n = nil, 0
	pos := managers.Position{Offset: offset, LeaderEpoch: -1}
	p.pos, p.hasPos, p.reset = pos, true, false
	p.gen = f.nextGen()
	f.consumed[tp] = pos
	delete(f.handed, tp)
	return nil
}
