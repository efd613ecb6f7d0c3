package group

import (
	"maps"

	"github.com/kreactor/kreactor/managers"
)

// Revoke stops fetching tps and drops their buffered records: their
// revocation has started (Java's SubscriptionState.markPendingRevocation:
// no new fetch, no answer in flight applied, no record returned). A
// revoked partition stays paused until the assignment drops it; its
// consumed position is kept for the commit before revocation.
func (f *Fetch) Revoke(tps []managers.TopicPartition) {
	for _, tp := range tps {
		p, ok := f.parts[tp]
		if !ok {
			continue
		}
		f.buffered -= p.n
		p.chunks, p.n = nil, 0
		p.paused = true
		p.gen = f.nextGen() // an answer in flight no longer applies (P3)
	}
}

// Handed returns the consumed positions with, over them, the position after
// the last record of each partition handed to the application (Take),
// completed Poll or not: what Java's SubscriptionState.allConsumed holds
// when the background thread reads it (the application thread moves a
// position as poll returns its records), which the commit before
// revocation commits.
func (f *Fetch) Handed() map[managers.TopicPartition]managers.Position {
	out := maps.Clone(f.consumed)
	for tp, pos := range f.handed {
		if _, ok := f.parts[tp]; ok {
			out[tp] = pos
		}
	}
	return out
}
