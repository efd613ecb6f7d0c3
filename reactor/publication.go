package reactor

// Publication pairs a Decision with the application-visible snapshot built
// from the same state version. A driver replaces the current publication
// atomically; Changed is closed when a newer one exists.
//
// Invariant 5 (docs/design.md): a waiter loads the publication, which carries its
// own Changed channel, before it evaluates its release condition, so a
// publication made between the check and the wait closes the very channel it
// waits on and cannot be missed. Only the Engine makes publications, and it
// closes each one's channel exactly once, when it replaces it.
type Publication struct {
	Decision *Decision
	// Snapshot is whatever the Snapshot function built; nil without one.
	Snapshot any

	next chan struct{} // closed by Engine.publish when superseded; never nil
}

// Changed returns a channel closed once a newer publication replaces p.
func (p *Publication) Changed() <-chan struct{} { return p.next }
