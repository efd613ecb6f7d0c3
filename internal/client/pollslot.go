package client

import (
	"sync/atomic"

	"github.com/kreactor/kreactor/reactor"
)

// PollWait is one application Poll's wait on the engine: the channel its
// answer comes on (a buffer of 1) and who settled it. The engine claims it
// before it takes what it answers with (records, errors, a wakeup), and
// then answers it in the same step (an effect: after publication); an
// application whose ctx ends first abandons it, and no answer comes. One
// compare-and-swap decides between the two, so a Poll that gives up
// neither waits for the engine nor loses an answer: an answer claimed
// before the abandon is waited for and returned.
type PollWait[R any] struct {
	C     chan R
	state atomic.Int32 // waitOpen, waitClaimed, waitAbandoned
}

const (
	waitOpen int32 = iota
	waitClaimed
	waitAbandoned
)

// NewPollWait returns an open wait.
func NewPollWait[R any]() *PollWait[R] { return &PollWait[R]{C: make(chan R, 1)} }

// Abandon gives the wait up (application side, when its ctx ends): true
// when no answer was claimed, and none will be; false when one was: it
// arrives on C.
func (w *PollWait[R]) Abandon() bool { return w.state.CompareAndSwap(waitOpen, waitAbandoned) }

func (w *PollWait[R]) claim() bool     { return w.state.CompareAndSwap(waitOpen, waitClaimed) }
func (w *PollWait[R]) abandoned() bool { return w.state.Load() == waitAbandoned }

// PollSlot is the application manager's hold on the one application Poll
// waiting on the engine, and on a Wakeup made while none was: the reactor
// side of both consumer kinds. R is the kind's reply; errReply builds the
// reply carrying an error. Engine goroutine only.
type PollSlot[R any] struct {
	wait     *PollWait[R] // the pending Poll's; nil when none
	wakeup   bool         // a Wakeup is owed to the next Poll
	errReply func(error) R
}

// NewPollSlot returns an empty slot whose error replies errReply builds.
func NewPollSlot[R any](errReply func(error) R) PollSlot[R] {
	return PollSlot[R]{errReply: errReply}
}

// Pending reports whether a Poll waits: until its cancel is applied, also
// one its application abandoned (Poll activity, for max.poll.interval.ms,
// ends with the cancel, as it did when the application waited for it).
func (s *PollSlot[R]) Pending() bool { return s.wait != nil }

// Answerable reports whether a Poll waits that an answer can still reach
// (not abandoned); Claim may still fail.
func (s *PollSlot[R]) Answerable() bool { return s.wait != nil && !s.wait.abandoned() }

// Claim claims the pending Poll, which must then be answered (Answer) in
// this step; false when none waits or its application abandoned it: take
// nothing to answer it with.
func (s *PollSlot[R]) Claim() bool { return s.wait != nil && s.wait.claim() }

// Set makes w the pending Poll's wait. A previous Poll still pending
// (abandoned without a cancel) is answered empty if it can be.
func (s *PollSlot[R]) Set(tx *reactor.Tx, w *PollWait[R]) {
	if s.Claim() {
		var empty R
		s.Answer(tx, empty)
	}
	s.wait = w
}

// Cancel forgets the pending Poll if w is its (its caller stopped
// waiting; an answer already sent stays in the channel).
func (s *PollSlot[R]) Cancel(w *PollWait[R]) {
	if s.wait == w {
		s.wait = nil
	}
}

// Answer sends r to the pending Poll, claimed (Claim), as an effect
// (after publication).
func (s *PollSlot[R]) Answer(tx *reactor.Tx, r R) {
	c := s.wait.C
	s.wait = nil
	tx.Effect(func() { c <- r })
}

// Fail answers the pending Poll, if it can be claimed, with err.
func (s *PollSlot[R]) Fail(tx *reactor.Tx, err error) {
	if s.Claim() {
		s.Answer(tx, s.errReply(err))
	}
}

// Wakeup answers the pending Poll with ErrWakeup, or owes it to the next.
func (s *PollSlot[R]) Wakeup(tx *reactor.Tx) {
	if s.Claim() {
		s.Answer(tx, s.errReply(ErrWakeup))
		return
	}
	s.wakeup = true
}

// TakeWakeup answers the pending Poll with an owed ErrWakeup and reports
// whether it did.
func (s *PollSlot[R]) TakeWakeup(tx *reactor.Tx) bool {
	if !s.wakeup || !s.Claim() {
		return false
	}
	s.wakeup = false
	s.Answer(tx, s.errReply(ErrWakeup))
	return true
}

// Result is the application manager's result outside a close: a pending
// Poll awaits records (a response) or an application event.
func (s *PollSlot[R]) Result() reactor.Result {
	if s.wait != nil {
		return reactor.Await(reactor.InputApplication|reactor.InputResponse, "Poll waiting for records")
	}
	return reactor.Idle("no application call pending")
}
