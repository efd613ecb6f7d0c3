package reactor

import "sync"

// trace is a bounded ring of the most recent decisions (P6: bounded,
// diagnosable). The loop goroutine appends; any goroutine may read a copy.
type trace struct {
	mu   sync.Mutex  // guards every field; publish holds it across the swap
	ring []*Decision // fixed capacity
	next int
	full bool

	// The protocol events (Engine.Events): a ring of fixed capacity,
	// eventsPerDecision per retained decision.
	events             []TraceEvent
	evNext             int
	evFull             bool
	evDropped          uint64
	evDroppedMaxWaiter uint64
}

// eventsPerDecision sizes the event ring: a step's publication and its
// effects, and room for a waiter's take and check, per retained decision;
// busier waiters shorten the window the ring covers (EventLog.Dropped).
const eventsPerDecision = 4

func newTrace(capacity int) *trace {
	return &trace{ring: make([]*Decision, capacity), events: make([]TraceEvent, capacity*eventsPerDecision)}
}

func (t *trace) add(d *Decision) {
	t.mu.Lock()
	t.ring[t.next] = d
	t.next++
	if t.next == len(t.ring) {
		t.next, t.full = 0, true
	}
	t.mu.Unlock()
}

// decisions returns the retained decisions, oldest first.
func (t *trace) decisions() []*Decision {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.full {
		return append([]*Decision(nil), t.ring[:t.next]...)
	}
	out := make([]*Decision, 0, len(t.ring))
	out = append(out, t.ring[t.next:]...)
	return append(out, t.ring[:t.next]...)
}
