package reactor

import "time"

// Host is what a Tx reports to: the execution engine that owns the step.
// The reactor Loop is one; reactor/baseline and tests provide others.
type Host interface {
	// QueueEffect takes an effect queued at state version version.
	QueueEffect(fn func(), version uint64)
	// RequestStop asks the engine to stop after this step.
	RequestStop()
	// RequestRepoll asks the engine to poll every manager again in this
	// step.
	RequestRepoll()
}

// Tx is the state owner's handle while it applies one observation or polls
// one manager. It is valid only during that call and only on the goroutine
// that owns state.
type Tx struct {
	// Now is the engine's time for this step (one clock read per step).
	Now time.Time
	// Version is the current state version (after this observation, when
	// applying one).
	Version uint64
	// RequestVersion is, for a completion, the state version at which the
	// request was produced; zero otherwise.
	RequestVersion uint64

	host Host
}

// NewTx returns a Tx reporting to host, for engines other than Loop and for
// tests (see RecordingHost). host must not be nil.
func NewTx(now time.Time, version, requestVersion uint64, host Host) *Tx {
	if host == nil {
		panic("reactor: NewTx with a nil Host")
	}
	return &Tx{Now: now, Version: version, RequestVersion: requestVersion, host: host}
}

// Effect queues fn to run after the decision of this step has been published
// (invariant 4). Effects run on the loop goroutine in the order queued; they
// must not block (complete a future, hand over records, signal a waiter).
func (tx *Tx) Effect(fn func()) { tx.host.QueueEffect(fn, tx.Version) }

// Repoll says this call changed state another manager reads (a metadata
// refresh requested, a leave started): the loop polls every manager again in
// this step, within Config.MaxRounds. Call it only on an actual change, or
// the step runs out of rounds.
func (tx *Tx) Repoll() { tx.host.RequestRepoll() }

// Stop asks the loop to stop after this step: the final decision is published
// with Closed set, the queued effects run, and the goroutine exits. Later
// completions are dropped and Submit returns ErrStopped.
func (tx *Tx) Stop() { tx.host.RequestStop() }

// RecordingHost is a Host for tests: it keeps effects until RunEffects and
// records stop and repoll requests. Not safe for concurrent use.
type RecordingHost struct {
	Effects []func()
	Stopped bool
	Repolls int
}

// QueueEffect keeps fn.
func (h *RecordingHost) QueueEffect(fn func(), _ uint64) { h.Effects = append(h.Effects, fn) }

// RequestStop records the stop.
func (h *RecordingHost) RequestStop() { h.Stopped = true }

// RequestRepoll counts the request.
func (h *RecordingHost) RequestRepoll() { h.Repolls++ }

// RunEffects runs and clears the kept effects, in order.
func (h *RecordingHost) RunEffects() {
	effects := h.Effects
	h.Effects = nil
	for _, fn := range effects {
		fn()
	}
}
