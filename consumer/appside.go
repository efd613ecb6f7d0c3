package consumer

import (
	"sync"
	"sync/atomic"
)

// appSide is the application-facing bookkeeping both consumers share: the
// single-caller guard, the closed flag, callbacks waiting to run on the
// application goroutine, and the probes specs read.
type appSide struct {
	inUse      atomic.Bool // guards against concurrent application calls
	closed     atomic.Bool
	appWakeups atomic.Uint64
	probe      returnProbe

	cbMu      sync.Mutex // guards callbacks
	callbacks []func()
}

// acquire guards against concurrent application calls.
func (a *appSide) acquire() error {
	if a.closed.Load() {
		return ErrClosed
	}
	if !a.inUse.CompareAndSwap(false, true) {
		return ErrConcurrentUse
	}
	return nil
}

func (a *appSide) release() { a.inUse.Store(false) }

// queue hands a callback to the application goroutine (from an effect).
func (a *appSide) queue(fn func()) {
	a.cbMu.Lock()
	a.callbacks = append(a.callbacks, fn)
	a.cbMu.Unlock()
}

// runCallbacks runs the queued callbacks on the calling (application)
// goroutine, in the order queued.
func (a *appSide) runCallbacks() {
	a.cbMu.Lock()
	cbs := a.callbacks
	a.callbacks = nil
	a.cbMu.Unlock()
	for _, cb := range cbs {
		cb()
	}
}

// noteCommitReturn counts a commit call's return and whether its release ran
// before the decision containing its completion was published: published is
// the version published when the releasing effect ran, completed the state
// version of the completion.
func (a *appSide) noteCommitReturn(published, completed uint64) {
	a.probe.returns.Add(1)
	if published < completed {
		a.probe.early.Add(1)
	}
}

// AppWakeups is the number of times an application call woke from a
// blocking wait (records, an error, a wakeup, a timer or a fetch-buffer
// signal): the application side of a ping-pong (KAFKA-20854).
func (a *appSide) AppWakeups() uint64 { return a.appWakeups.Load() }

// CommitReturns reports how many commit calls returned with a completion,
// and how many of them were released before the decision containing the
// completion was published (early returns: a P4 violation, measured when the
// release runs, so it does not depend on goroutine scheduling).
func (a *appSide) CommitReturns() (returns, early uint64) {
	return a.probe.returns.Load(), a.probe.early.Load()
}
