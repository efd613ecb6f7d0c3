package reactor

import "time"

// txHost is what a Tx reports to: the Core that owns the step.
type txHost interface {
	queueEffect(fn func(), version uint64)
	requestStop()
	requestRepoll()
}

// Tx is the state owner's handle while it applies one observation or polls
// one manager. A Core hands one to each Apply and each poll; it is valid
// only during that call and only on the goroutine that owns state.
type Tx struct {
	// Now is the step's time (the driver reads the clock once per step).
	Now time.Time
	// Version is the current state version (after this observation, when
	// applying one).
	Version uint64
	// RequestVersion is, for a completion, the state version at which the
	// request was produced; zero otherwise.
	RequestVersion uint64
	// Step is the step whose Decision will include this call
	// (Decision.Step): the step being computed for a poll, the next step
	// for an applied observation. Versions do not tell steps apart (a
	// timer wake applies nothing); steps do.
	Step uint64

	host txHost
}

// Effect queues fn to run after the decision of this step has been published
// (invariant 4). Effects run on the state owner in the order queued; they
// must not block (complete a future, hand over records, signal a waiter).
func (tx *Tx) Effect(fn func()) { tx.host.queueEffect(fn, tx.Version) }

// Repoll says this call changed state another manager reads (a metadata
// refresh requested, a leave started): the core polls every manager again in
// this step, within CoreConfig.MaxRounds. Call it only on an actual change,
// or the step runs out of rounds.
func (tx *Tx) Repoll() { tx.host.requestRepoll() }

// Stop asks the core to stop after this step: the step's Decision has Closed
// set, its effects still run, and the core accepts nothing afterwards. A
// Loop then exits; later completions are dropped and Submit returns
// ErrStopped.
func (tx *Tx) Stop() { tx.host.requestStop() }
