package client

import (
	"fmt"
	"strings"
	"time"

	"github.com/kreactor/kreactor/internal/mutant"
	"github.com/kreactor/kreactor/reactor"
)

// CloseSequence is the reactor consumers' close (DESIGN.md invariant 7):
// one list of outstanding work with one deadline, run by the application
// manager's polls. The work before the leave (final commits or
// acknowledgements) finishes first, then the leave; whatever is outstanding
// at the deadline fails with ErrCloseDeadline, and Close's error lists it.
// Engine goroutine only.
type CloseSequence struct {
	Deadline     time.Time
	Done         chan error // Close's result; buffer 1
	leaveStarted bool
}

// CloseWork is what a consumer's close waits for, in order. Every field is
// required.
type CloseWork struct {
	// Pending describes the work still outstanding before the leave
	// ("2 commit(s)"), "" when there is none.
	Pending func() string
	// PendingInputs and PendingReason are the Await while it is.
	PendingInputs reactor.Input
	PendingReason string // "close: commits before leave"
	// FailPending fails that work with err (the deadline passed).
	FailPending func(tx *reactor.Tx, err error)
	// Leave starts leaving the group; Left reports whether it finished;
	// State is the member state, for the error at the deadline.
	Leave func()
	Left  func() bool
	State func() string
	// LeaveName names the leave in the error ("leave group") and
	// LeavingReason is the Await while it runs ("close: leaving group").
	LeaveName, LeavingReason string
	// Release answers an application call still waiting with ErrClosed.
	Release func(tx *reactor.Tx)
}

// Poll advances the close at tx.Now and returns the application manager's
// result; when the close finishes it releases the waiting call, sends
// Close's result (an effect) and stops the engine (Tx.Stop).
func (cs *CloseSequence) Poll(tx *reactor.Tx, w CloseWork) reactor.Result {
	if !tx.Now.Before(cs.Deadline) {
		var outstanding []string
		if what := w.Pending(); what != "" {
			outstanding = append(outstanding, what)
		}
		if !w.Left() {
			outstanding = append(outstanding, w.LeaveName+" ("+w.State()+")")
		}
		if !mutant.On("close-drops-pending-commits") {
			w.FailPending(tx, ErrCloseDeadline)
		}
		var err error
		if len(outstanding) > 0 {
			err = fmt.Errorf("%w: %s", ErrCloseDeadline, strings.Join(outstanding, ", "))
		}
		cs.finish(tx, w, err)
		return reactor.Idle("closed at deadline")
	}
	if w.Pending() != "" {
		return reactor.Await(w.PendingInputs, w.PendingReason).Until(cs.Deadline)
	}
	if !cs.leaveStarted {
		cs.leaveStarted = true
		if mutant.On("close-skips-leave") {
			cs.finish(tx, w, nil) // reports the member gone without leaving
			return reactor.Idle("closed")
		}
		w.Leave()
	}
	if !w.Left() {
		return reactor.Await(reactor.InputResponse|reactor.InputCoordinator, w.LeavingReason).Until(cs.Deadline)
	}
	cs.finish(tx, w, nil)
	return reactor.Idle("closed")
}

func (cs *CloseSequence) finish(tx *reactor.Tx, w CloseWork, err error) {
	w.Release(tx)
	done := cs.Done
	tx.Effect(func() { done <- err })
	tx.Stop()
}
