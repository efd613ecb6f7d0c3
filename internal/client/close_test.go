package client

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kreactor/kreactor/reactor"
)

// closeWork is a CloseWork over flags a test sets: pre-leave work that
// finishes when done is set, a leave answered when left is set.
type closeWork struct {
	pendingDone, left bool
	failedAt, leftAt  time.Time
	failErr           error
	leaveCalls        int
	now               *time.Time
}

func (w *closeWork) work() CloseWork {
	return CloseWork{
		Pending: func() string {
			if w.pendingDone {
				return ""
			}
			return "1 commit(s)"
		},
		PendingInputs: reactor.InputResponse, PendingReason: "close: commits before leave",
		FailPending: func(_ *reactor.Tx, err error) { w.pendingDone, w.failedAt, w.failErr = true, *w.now, err },
		Leave:       func() { w.leaveCalls++; w.leftAt = *w.now },
		Left:        func() bool { return w.left },
		State:       func() string { return "leaving" },
		LeaveName:   "leave group", LeavingReason: "close: leaving group",
		Release: func(*reactor.Tx) {},
	}
}

// closeManager runs a CloseSequence as the application manager does.
type closeManager struct {
	cs *CloseSequence
	w  *closeWork
}

func (m *closeManager) Name() string { return "application" }
func (m *closeManager) Poll(tx *reactor.Tx, _ struct{}) reactor.Result {
	return m.cs.Poll(tx, m.w.work())
}

// runClose steps a core over a close of budget starting at t0 until it
// stops, and returns the close's result and when it came. After each step
// answer may set flags (an answer arriving then: it returns true, and the
// next step is at the same time); otherwise time moves to the close's
// next deadline.
func runClose(t *testing.T, budget time.Duration, w *closeWork, answer func(now time.Time) bool) (error, time.Time) {
	t.Helper()
	t0 := time.Unix(1_000_000, 0)
	now := t0
	w.now = &now
	done := make(chan error, 1)
	m := &closeManager{cs: NewCloseSequence(t0, t0.Add(budget), done), w: w}
	core, err := reactor.NewCore(reactor.CoreConfig[struct{}]{Managers: []reactor.Manager[struct{}]{m}, View: func(time.Time) struct{} { return struct{}{} }})
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		core.Apply(now, reactor.Event("tick", func(*reactor.Tx) {}))
		st := core.Step(now)
		st.RunEffects()
		core.Advance()
		if st.Decision.Closed {
			return <-done, now
		}
		res, _ := st.Decision.Result("application")
		if res.At.IsZero() || !res.At.After(now) {
			t.Fatalf("close result %s at +%s: want a deadline ahead", res.Reason, now.Sub(t0))
		}
		if !answer(now) {
			now = res.At
		}
	}
	t.Fatal("close did not finish in 100 steps")
	return nil, time.Time{}
}

// CONTRACT-3: a final commit that never completes gets the first three
// quarters of the budget; then it fails and the leave goes anyway; an
// unanswered leave ends the close at its deadline, with both listed.
func TestClosePhasesLeaveAfterStuckCommit(t *testing.T) {
	w := &closeWork{}
	err, at := runClose(t, 2*time.Second, w, func(time.Time) bool { return false })
	t0 := time.Unix(1_000_000, 0)
	if got := w.failedAt.Sub(t0); got != 1500*time.Millisecond || !errors.Is(w.failErr, ErrCloseDeadline) {
		t.Fatalf("commit failed at +%s with %v, want +1.5s with ErrCloseDeadline", got, w.failErr)
	}
	if w.leaveCalls != 1 || w.leftAt.Sub(t0) != 1500*time.Millisecond {
		t.Fatalf("leave started %d time(s), at +%s; want once at +1.5s", w.leaveCalls, w.leftAt.Sub(t0))
	}
	if at.Sub(t0) != 2*time.Second || !errors.Is(err, ErrCloseDeadline) || !strings.Contains(err.Error(), "1 commit(s)") || !strings.Contains(err.Error(), "leave group") {
		t.Fatalf("close ended at +%s with %v, want +2s with ErrCloseDeadline naming the commit and the leave", at.Sub(t0), err)
	}
}

// A commit that completes in time is followed by the leave at once; an
// answered leave ends the close without error.
func TestClosePhasesInOrder(t *testing.T) {
	w := &closeWork{}
	t0 := time.Unix(1_000_000, 0)
	err, at := runClose(t, 2*time.Second, w, func(time.Time) bool {
		switch {
		case !w.pendingDone:
			w.pendingDone = true // the commit's answer
			return true
		case w.leaveCalls > 0 && !w.left:
			w.left = true // the leave's answer
			return true
		}
		return false
	})
	if err != nil || !w.failedAt.IsZero() || w.leaveCalls != 1 || !at.Equal(t0) {
		t.Fatalf("close: %v at +%s, commit failed at %v, %d leave(s)", err, at.Sub(t0), w.failedAt, w.leaveCalls)
	}
}

// Close(0): the commit fails at once, the leave is still started, and the
// close waits at most CloseLeaveFloor for its answer.
func TestCloseZeroStillLeaves(t *testing.T) {
	w := &closeWork{}
	t0 := time.Unix(1_000_000, 0)
	err, at := runClose(t, 0, w, func(time.Time) bool { return false })
	if w.leaveCalls != 1 || !w.leftAt.Equal(t0) || !w.failedAt.Equal(t0) {
		t.Fatalf("Close(0): commit failed at %v, leave started %d time(s) at %v; want both at once", w.failedAt, w.leaveCalls, w.leftAt)
	}
	if at.Sub(t0) != CloseLeaveFloor || !errors.Is(err, ErrCloseDeadline) {
		t.Fatalf("Close(0) of an unanswered leave ended at +%s with %v, want +%s with ErrCloseDeadline", at.Sub(t0), err, CloseLeaveFloor)
	}
}
