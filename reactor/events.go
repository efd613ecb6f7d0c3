package reactor

// EventKind names one recorded step of the publication/wait protocol
// (TraceEvent). The kinds are the actions of the protocol's model
// (model/reactor.pml), so a recorded run can be replayed against it.
type EventKind uint8

const (
	// EventPublish: the driver made Step (Version, Closed) the current
	// publication and closed the previous one's channel, in one step; N is
	// the decision's Effects.
	EventPublish EventKind = iota + 1
	// EventEffects: the driver starts running the N effects of Step.
	EventEffects
	// EventTake: a WaitFor call (Waiter) took publication Step, and so its
	// channel.
	EventTake
	// EventCheck: the waiter evaluated its condition on publication Step;
	// Held is the outcome.
	EventCheck
	// EventBlock: the waiter waits on the channel of publication Step.
	EventBlock
	// EventWake: the waiter's wait on publication Step ended: the channel
	// closed, or its context ended (Cancelled).
	EventWake
)

func (k EventKind) String() string {
	switch k {
	case EventPublish:
		return "publish"
	case EventEffects:
		return "effects"
	case EventTake:
		return "take"
	case EventCheck:
		return "check"
	case EventBlock:
		return "block"
	case EventWake:
		return "wake"
	}
	return "unknown"
}

// TraceEvent is one recorded protocol step (Engine.Events). Fields not
// meaningful for the Kind are zero.
type TraceEvent struct {
	Kind EventKind
	// Held (EventCheck), Closed (EventPublish), Cancelled (EventWake).
	Held, Closed, Cancelled bool
	// N is the number of effects (EventEffects; EventPublish: the
	// decision's Effects).
	N int32
	// Waiter identifies one WaitFor call (1, 2, ... per engine).
	Waiter uint64
	// Step and Version are the publication's Decision.Step and .Version.
	Step, Version uint64
}

// EventLog is a copy of an engine's retained events, oldest first.
type EventLog struct {
	Events []TraceEvent
	// Dropped counts the older events the bounded ring overwrote; when it
	// is not zero the log starts mid-run.
	Dropped uint64
	// DroppedMaxWaiter is the highest Waiter among the dropped events: a
	// waiter up to it may have lost its first events.
	DroppedMaxWaiter uint64
}

// event appends ev to the ring; the caller holds t.mu. No allocation.
func (t *trace) event(ev TraceEvent) {
	if len(t.events) == 0 {
		return
	}
	if t.evFull {
		old := t.events[t.evNext]
		t.evDropped++
		t.evDroppedMaxWaiter = max(t.evDroppedMaxWaiter, old.Waiter)
	}
	t.events[t.evNext] = ev
	t.evNext++
	if t.evNext == len(t.events) {
		t.evNext, t.evFull = 0, true
	}
}

func (t *trace) record(ev TraceEvent) {
	t.mu.Lock()
	t.event(ev)
	t.mu.Unlock()
}

// eventLog returns the retained events, oldest first.
func (t *trace) eventLog() EventLog {
	t.mu.Lock()
	defer t.mu.Unlock()
	log := EventLog{Dropped: t.evDropped, DroppedMaxWaiter: t.evDroppedMaxWaiter}
	if !t.evFull {
		log.Events = append([]TraceEvent(nil), t.events[:t.evNext]...)
		return log
	}
	log.Events = make([]TraceEvent, 0, len(t.events))
	log.Events = append(log.Events, t.events[t.evNext:]...)
	log.Events = append(log.Events, t.events[:t.evNext]...)
	return log
}

// Events returns the retained protocol events (publications, effects runs,
// and each WaitFor's take, check, block and wake), oldest first: at most
// four per retained decision (Config.TraceCapacity). package model's
// CheckEvents replays them against the protocol's model.
func (e *Engine) Events() EventLog { return e.trace.eventLog() }

// take loads the current publication and records the take, in one step
// with respect to publish: the log orders takes and publications as they
// happened.
func (e *Engine) take(waiter uint64) *Publication {
	e.trace.mu.Lock()
	p := e.cur.Load()
	e.trace.event(TraceEvent{Kind: EventTake, Waiter: waiter, Step: p.Decision.Step, Version: p.Decision.Version})
	e.trace.mu.Unlock()
	return p
}

// RunEffects records and runs st's Effects, in order (the effects of a
// step run after its publication: invariant 4).
func (d *Driver[V]) RunEffects(st Step) {
	if len(st.Effects) > 0 {
		d.e.trace.record(TraceEvent{Kind: EventEffects, N: int32(len(st.Effects)), Step: st.Decision.Step, Version: st.Decision.Version})
	}
	st.RunEffects()
}
