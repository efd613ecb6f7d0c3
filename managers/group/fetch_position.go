package group

import "github.com/kreactor/kreactor/managers"

// Position returns tp's position as Java's position(tp) reports it: the
// offset of the next record Poll will return (after the last one handed
// to the application, or where fetching starts before any), and whether
// it is known yet (an OffsetFetch or ListOffsets may still be finding it).
// Errors: a *PartitionError wrapping ErrNotAssigned.
func (f *Fetch) Position(tp managers.TopicPartition) (managers.Position, bool, error) {
	if _, ok := f.parts[tp]; !ok {
		return managers.Position{}, false, &PartitionError{TP: tp, Err: ErrNotAssigned}
	}
	if pos, ok := f.handed[tp]; ok {
		return pos, true, nil
	}
	pos, ok := f.consumed[tp]
	return pos, ok, nil
}
