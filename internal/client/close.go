package client

import (
	"fmt"
	"strings"
	"time"

	"github.com/kreactor/kreactor/internal/mutant"
	"github.com/kreactor/kreactor/reactor"
)

// Close phases (CONTRACT-3; docs/design.md, invariant 7). Java's AsyncKafkaConsumer.close
// and ShareConsumerImpl.close run one close timer of min(timeout,
// request.timeout.ms) through their phases in turn (the final commit or
// acknowledgements, then the leave, then the network thread's close-time
// pass, which sends what the managers' pollOnClose produced at least once
// even when the timer has expired). Each phase is bounded by what is left of
// the timer, so a commit that never completes takes the whole budget and the
// leave heartbeat is only queued for that last network poll. The reactor
// keeps Java's order and one deadline, and gives each phase a bounded share
// of it instead:
//
//   - the work before the leave (the final commit, CommitAsync calls still
//     pending, acknowledgements and their release) runs until
//     PreLeaveDeadline: the close deadline less the leave's share,
//     max(budget/CloseLeaveDivisor, CloseLeaveFloor); what is still
//     outstanding then fails with ErrCloseDeadline (callbacks run with it);
//   - the leave heartbeat (epoch -1) starts then at the latest, whether or
//     not that work finished, and is awaited until the close deadline;
//   - a budget shorter than CloseLeaveFloor (Close(0), a context already
//     done) still sends the leave: the leave phase then runs CloseLeaveFloor
//     past the deadline at most, long enough for the heartbeat to reach a
//     connected coordinator (Java's one last network poll); it ends as soon
//     as the leave is answered.
const (
	// CloseLeaveDivisor: the leave phase gets 1/CloseLeaveDivisor of the
	// close budget.
	CloseLeaveDivisor = 4
	// CloseLeaveFloor is the least time the leave phase gets.
	CloseLeaveFloor = 50 * time.Millisecond
)

// CloseSequence is the reactor consumers' close (docs/design.md, invariant 7):
// one list of outstanding work with one deadline, run by the application
// manager's polls, in phases (see CloseLeaveDivisor). Whatever is
// outstanding at the end of its phase fails with ErrCloseDeadline, and
// Close's error lists it. Engine goroutine only.
type CloseSequence struct {
	Deadline time.Time  // the close deadline
	Done     chan error // Close's result; buffer 1

	leaveAt      time.Time // end of the phase before the leave
	leaveStarted bool
	end          time.Time // end of the leave phase: Deadline, or later by up to CloseLeaveFloor
	failed       []string  // work before the leave that failed at leaveAt
}

// NewCloseSequence starts a close at now with deadline; Close's result goes
// to done (a channel with a buffer of 1) as an effect.
func NewCloseSequence(now, deadline time.Time, done chan error) *CloseSequence {
	budget := max(deadline.Sub(now), 0)
	share := max(budget/CloseLeaveDivisor, CloseLeaveFloor)
	leaveAt := deadline.Add(-share)
	if leaveAt.Before(now) {
		leaveAt = now
	}
	return &CloseSequence{Deadline: deadline, Done: done, leaveAt: leaveAt}
}

// PreLeaveDeadline is when the work before the leave must have finished
// (the final commit's deadline).
func (cs *CloseSequence) PreLeaveDeadline() time.Time { return cs.leaveAt }

// CloseWork is what a consumer's close waits for, in order. Every field is
// required.
type CloseWork struct {
	// Pending describes the work still outstanding before the leave
	// ("2 commit(s)"), "" when there is none.
	Pending func() string
	// PendingInputs and PendingReason are the Await while it is.
	PendingInputs reactor.Input
	PendingReason string // "close: commits before leave"
	// FailPending fails that work with err (its phase ended).
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
	now := tx.Now
	if !cs.leaveStarted {
		if w.Pending() != "" && now.Before(cs.leaveAt) && !mutant.On("close-leave-before-commit") {
			return reactor.Await(w.PendingInputs, w.PendingReason).Until(cs.leaveAt)
		}
		if what := w.Pending(); what != "" {
			cs.failed = append(cs.failed, what)
			if !mutant.On("close-drops-pending-commits") {
				w.FailPending(tx, ErrCloseDeadline)
			}
		}
		cs.leaveStarted = true
		if mutant.On("close-skips-leave") {
			cs.finish(tx, w, nil) // reports the member gone without leaving
			return reactor.Idle("closed")
		}
		cs.end = cs.Deadline
		if floor := now.Add(CloseLeaveFloor); cs.end.Before(floor) {
			cs.end = floor
		}
		w.Leave()
	}
	if w.Left() {
		cs.finish(tx, w, cs.err(nil))
		return reactor.Idle("closed")
	}
	if !now.Before(cs.end) {
		cs.finish(tx, w, cs.err([]string{w.LeaveName + " (" + w.State() + ")"}))
		return reactor.Idle("closed at deadline")
	}
	return reactor.Await(reactor.InputResponse|reactor.InputCoordinator, w.LeavingReason).Until(cs.end)
}

// err is Close's error: nil when nothing failed, else ErrCloseDeadline
// listing the work that failed at the end of its phase.
func (cs *CloseSequence) err(more []string) error {
	outstanding := append(cs.failed, more...)
	if len(outstanding) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrCloseDeadline, strings.Join(outstanding, ", "))
}

func (cs *CloseSequence) finish(tx *reactor.Tx, w CloseWork, err error) {
	w.Release(tx)
	done := cs.Done
	tx.Effect(func() { done <- err })
	tx.Stop()
}
