package reactor

// Publication pairs a Decision with the application-visible snapshot built
// from the same state version. The loop replaces the current publication
// atomically; Changed is closed when a newer one exists.
//
// Invariant 5 (DESIGN.md): a waiter loads the publication, which carries its
// own Changed channel, before it evaluates its release condition, so a
// publication made between the check and the wait closes the very channel it
// waits on and cannot be missed.
type Publication struct {
	Decision *Decision
	// Snapshot is whatever Config.Snapshot built; nil without one.
	Snapshot any

	next chan struct{} // closed by the loop when superseded; never nil
}

// Changed returns a channel closed once a newer publication replaces p.
func (p *Publication) Changed() <-chan struct{} { return p.next }

// NewPublication returns a publication of d and snap with its own Changed
// channel, for engines other than Loop (reactor/baseline).
func NewPublication(d *Decision, snap any) *Publication {
	return &Publication{Decision: d, Snapshot: snap, next: make(chan struct{})}
}

// Supersede closes p's Changed channel: call it exactly once, after the
// publication that replaces p is visible.
func Supersede(p *Publication) { close(p.next) }
