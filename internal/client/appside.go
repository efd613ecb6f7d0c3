package client

import (
	"sync"
	"sync/atomic"
)

// AppSide is the application-facing bookkeeping every consumer variant
// shares: the single-caller guard, the closed flag, callbacks waiting to run
// on the application goroutine, and the counters Diagnostics reports.
type AppSide struct {
	inUse  atomic.Bool // guards against concurrent application calls
	closed atomic.Bool
	// returns counts commit calls that returned with a completion; early
	// those released before the decision containing the completion was
	// published (P4, invariant 4 as the application sees it).
	returns, early atomic.Uint64

	cbMu      sync.Mutex // guards callbacks
	callbacks []func()
}

// Acquire guards against concurrent application calls. Errors: ErrClosed,
// ErrConcurrentUse.
func (a *AppSide) Acquire() error {
	if a.closed.Load() {
		return ErrClosed
	}
	if !a.inUse.CompareAndSwap(false, true) {
		return ErrConcurrentUse
	}
	return nil
}

// Release ends the call Acquire admitted.
func (a *AppSide) Release() { a.inUse.Store(false) }

// Closed reports whether Close started.
func (a *AppSide) Closed() bool { return a.closed.Load() }

// MarkClosed marks Close as started; false if it already was.
func (a *AppSide) MarkClosed() bool { return a.closed.CompareAndSwap(false, true) }

// Queue hands a callback to the application goroutine (from an effect).
func (a *AppSide) Queue(fn func()) {
	a.cbMu.Lock()
	a.callbacks = append(a.callbacks, fn)
	a.cbMu.Unlock()
}

// RunCallbacks runs the queued callbacks on the calling (application)
// goroutine, in the order queued.
func (a *AppSide) RunCallbacks() {
	a.cbMu.Lock()
	cbs := a.callbacks
	a.callbacks = nil
	a.cbMu.Unlock()
	for _, cb := range cbs {
		cb()
	}
}

// CommitResult is a commit's outcome as its release sees it: the state
// version at which it completed and the version published when the release
// (an effect) ran, for the P4 check that a call never returns before the
// decision containing its completion is published.
type CommitResult struct {
	Err       error
	Version   uint64 // state version at which the commit completed
	Published uint64 // version published when the release ran
}

// NoteCommitReturn counts a commit call's return with r, and whether its
// release ran before the decision containing the completion was published.
func (a *AppSide) NoteCommitReturn(r CommitResult) {
	a.returns.Add(1)
	if r.Published < r.Version {
		a.early.Add(1)
	}
}
