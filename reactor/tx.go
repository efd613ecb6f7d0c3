package reactor

import "time"

// Tx is the state owner's handle while it applies one observation or polls
// one manager. It is valid only during that call and only on the loop
// goroutine.
type Tx struct {
	// Now is the loop's time for this step (one clock read per step).
	Now time.Time
	// Version is the current state version (after this observation, when
	// applying one).
	Version uint64
	// RequestVersion is, for a completion, the state version at which the
	// request was produced; zero otherwise.
	RequestVersion uint64

	loop *loopCore
}

// Effect queues fn to run after the decision of this step has been published
// (invariant 4). Effects run on the loop goroutine in the order queued; they
// must not block (complete a future, hand over records, signal a waiter).
func (tx *Tx) Effect(fn func()) {
	tx.loop.effects = append(tx.loop.effects, effect{fn: fn, version: tx.Version})
}

// Repoll says this call changed state another manager reads (a metadata
// refresh requested, a leave started): the loop polls every manager again in
// this step, within Config.MaxRounds. Call it only on an actual change, or
// the step runs out of rounds.
func (tx *Tx) Repoll() { tx.loop.repoll = true }

// Stop asks the loop to stop after this step: the final decision is published
// with Closed set, the queued effects run, and the goroutine exits. Later
// completions are dropped and Submit returns ErrStopped.
func (tx *Tx) Stop() { tx.loop.stopRequested = true }

type effect struct {
	fn      func()
	version uint64
}
