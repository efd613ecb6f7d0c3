package reactor

import (
	"sync/atomic"

	"github.com/kreactor/kreactor/reactor/internal/mutant"
)

// Stats are an engine's counters since it was made (NewDriver). All are monotone counts.
type Stats struct {
	// Steps is the number of loop steps taken.
	Steps uint64
	// Observations is the number of observations applied (completions and
	// application events).
	Observations uint64
	// RequestsSent is the number of requests handed to the transport.
	RequestsSent uint64
	// InboxWakes and TimerWakes count why the loop left its wait: an
	// observation arrived, or its timer fired (a zero-length wait that
	// found the inbox empty counts as a timer wake).
	InboxWakes, TimerWakes uint64
	// SpuriousWakeups counts loop wakes after which nothing was applied,
	// sent, run (no effect) or published differently (the decision's
	// results, awaited inputs and closed flag, and the snapshot, equal the
	// previous publication's; times aside: a decision that differs only in
	// when it wakes next is the same decision, rescheduled). Invariant 2;
	// the goal is zero. Every driver counts it here, in Driver.Publish,
	// the same way.
	SpuriousWakeups uint64
	// AppWakeups counts every release of an application wait on this
	// engine: a WaitFor woken by a publication or by its context, and
	// every other wait an application call makes on the engine's behalf
	// (a reply channel, the baseline's fetch buffer) that ends, each
	// counted with Engine.NoteAppWakeup. A call that returns without
	// waiting counts nothing.
	AppWakeups uint64
	// EmptySteps counts steps that applied no observation and sent no
	// request.
	EmptySteps uint64
	// ReadyWithoutRequest counts Ready results carrying no request
	// (invariant 1: a contract violation, never spun on).
	ReadyWithoutRequest uint64
	// PastDeadline counts RetryAt results whose time is at or before the
	// step's now (or missing: a RetryAt must carry a finite future time)
	// and Await deadlines at or before it: the manager should have been
	// Ready. A counted contract violation like ReadyWithoutRequest; they
	// are ignored for the wait, never spun on.
	PastDeadline uint64
	// RoundLimit counts steps in which a manager was still Ready after
	// Config.MaxRounds poll rounds (the next step starts at once).
	RoundLimit uint64
	// Dropped counts completions that arrived after the loop stopped.
	Dropped uint64
}

type counters struct {
	steps, observations, sent, inboxWakes, timerWakes, spurious, appWakeups, empty,
	readyNoReq, pastDeadline, roundLimit, dropped atomic.Uint64
}

// addStep counts one step of the core.
func (c *counters) addStep(st Step) {
	c.steps.Add(1)
	c.observations.Add(uint64(st.Decision.Applied))
	c.sent.Add(uint64(len(st.Requests)))
	c.readyNoReq.Add(uint64(st.ReadyWithoutRequest))
	if !mutant.On("past-deadline-uncounted") {
		c.pastDeadline.Add(uint64(st.PastDeadline))
	}
	if st.Decision.Applied == 0 && len(st.Requests) == 0 {
		c.empty.Add(1)
	}
}

func (c *counters) snapshot() Stats {
	return Stats{
		Steps:               c.steps.Load(),
		Observations:        c.observations.Load(),
		RequestsSent:        c.sent.Load(),
		InboxWakes:          c.inboxWakes.Load(),
		TimerWakes:          c.timerWakes.Load(),
		SpuriousWakeups:     c.spurious.Load(),
		AppWakeups:          c.appWakeups.Load(),
		EmptySteps:          c.empty.Load(),
		ReadyWithoutRequest: c.readyNoReq.Load(),
		PastDeadline:        c.pastDeadline.Load(),
		RoundLimit:          c.roundLimit.Load(),
		Dropped:             c.dropped.Load(),
	}
}

// Sub returns s - o field by field: the counts taken in a window.
func (s Stats) Sub(o Stats) Stats {
	return Stats{
		Steps:               s.Steps - o.Steps,
		Observations:        s.Observations - o.Observations,
		RequestsSent:        s.RequestsSent - o.RequestsSent,
		InboxWakes:          s.InboxWakes - o.InboxWakes,
		TimerWakes:          s.TimerWakes - o.TimerWakes,
		SpuriousWakeups:     s.SpuriousWakeups - o.SpuriousWakeups,
		AppWakeups:          s.AppWakeups - o.AppWakeups,
		EmptySteps:          s.EmptySteps - o.EmptySteps,
		ReadyWithoutRequest: s.ReadyWithoutRequest - o.ReadyWithoutRequest,
		PastDeadline:        s.PastDeadline - o.PastDeadline,
		RoundLimit:          s.RoundLimit - o.RoundLimit,
		Dropped:             s.Dropped - o.Dropped,
	}
}
