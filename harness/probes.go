package harness

import (
	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// Probe is what property specs read of a subject beyond the Consumer
// surface: the decision trace, the P4 return probe and the published
// snapshot. Both subjects of package consumer provide it; a subject that
// does not (a real client driven from outside) cannot run the specs that
// need it, which then skip.
type Probe interface {
	// Trace returns the retained recent decisions, oldest first.
	Trace() []*reactor.Decision
	// CommitReturns reports how many CommitSync calls returned with a
	// completion, and how many returned before the decision containing
	// their completion was published (P4: early returns).
	CommitReturns() (returns, early uint64)
	// Snapshot is the last published application-visible snapshot.
	Snapshot() *consumer.Snapshot
}

// Pauser is the pause/resume part of the application surface (Java's
// pause and resume), which not every spec needs.
type Pauser interface {
	Pause(partitions ...managers.TopicPartition) error
	Resume(partitions ...managers.TopicPartition) error
}

// unwrap looks through Tracked and the timeline's wrappers (UnwrapConsumer).
func unwrap(c Consumer) Consumer {
	for {
		switch t := c.(type) {
		case *Tracked:
			c = t.Consumer
		case UnwrapConsumer:
			c = t.Unwrap()
		default:
			return c
		}
	}
}

// ProbeOf returns c's Probe (looking through Tracked), or false if the
// subject has none.
func ProbeOf(c Consumer) (Probe, bool) {
	p, ok := unwrap(c).(Probe)
	return p, ok
}

// PauserOf returns c's Pauser (looking through Tracked), or false if the
// subject has none.
func PauserOf(c Consumer) (Pauser, bool) {
	p, ok := unwrap(c).(Pauser)
	return p, ok
}
