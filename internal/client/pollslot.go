package client

import "github.com/kreactor/kreactor/reactor"

// PollSlot is the application manager's hold on the one application Poll
// waiting on the engine, and on a Wakeup made while none was: the reactor
// side of both consumer kinds. R is the kind's reply; errReply builds the
// reply carrying an error. Engine goroutine only.
type PollSlot[R any] struct {
	reply    chan R // the pending Poll's; nil when none
	wakeup   bool   // a Wakeup is owed to the next Poll
	errReply func(error) R
}

// NewPollSlot returns an empty slot whose error replies errReply builds.
func NewPollSlot[R any](errReply func(error) R) PollSlot[R] {
	return PollSlot[R]{errReply: errReply}
}

// Pending reports whether a Poll waits.
func (s *PollSlot[R]) Pending() bool { return s.reply != nil }

// Set makes reply (a channel with a buffer of 1) the pending Poll's. A
// previous Poll abandoned without a cancel is answered empty.
func (s *PollSlot[R]) Set(tx *reactor.Tx, reply chan R) {
	if s.reply != nil {
		var empty R
		s.Answer(tx, empty)
	}
	s.reply = reply
}

// Cancel forgets the pending Poll if reply is its (its caller stopped
// waiting; an answer already sent stays in the channel).
func (s *PollSlot[R]) Cancel(reply chan R) {
	if s.reply == reply {
		s.reply = nil
	}
}

// Answer sends r to the pending Poll, as an effect (after publication).
func (s *PollSlot[R]) Answer(tx *reactor.Tx, r R) {
	reply := s.reply
	s.reply = nil
	tx.Effect(func() { reply <- r })
}

// Fail answers the pending Poll, if any, with err.
func (s *PollSlot[R]) Fail(tx *reactor.Tx, err error) {
	if s.reply != nil {
		s.Answer(tx, s.errReply(err))
	}
}

// Wakeup answers the pending Poll with ErrWakeup, or owes it to the next.
func (s *PollSlot[R]) Wakeup(tx *reactor.Tx) {
	if s.reply != nil {
		s.Answer(tx, s.errReply(ErrWakeup))
		return
	}
	s.wakeup = true
}

// TakeWakeup answers the pending Poll with an owed ErrWakeup and reports
// whether it did.
func (s *PollSlot[R]) TakeWakeup(tx *reactor.Tx) bool {
	if s.reply == nil || !s.wakeup {
		return false
	}
	s.wakeup = false
	s.Answer(tx, s.errReply(ErrWakeup))
	return true
}

// Result is the application manager's result outside a close: a pending
// Poll awaits records (a response) or an application event.
func (s *PollSlot[R]) Result() reactor.Result {
	if s.reply != nil {
		return reactor.Await(reactor.InputApplication|reactor.InputResponse, "Poll waiting for records")
	}
	return reactor.Idle("no application call pending")
}
