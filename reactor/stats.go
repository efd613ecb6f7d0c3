package reactor

import "sync/atomic"

// Stats are an engine's counters since it was made (NewDriver). All are monotone counts.
type Stats struct {
	// Steps is the number of loop steps taken.
	Steps uint64
	// Observations is the number of observations applied (completions and
	// application events).
	Observations uint64
	// RequestsSent is the number of requests handed to the transport.
	RequestsSent uint64
	// InboxWakes and TimerWakes count why the loop left its wait.
	InboxWakes, TimerWakes uint64
	// SpuriousWakeups counts wakes with neither an observation nor a passed
	// deadline (invariant 2; the goal is zero).
	SpuriousWakeups uint64
	// EmptySteps counts steps that applied no observation and sent no
	// request.
	EmptySteps uint64
	// ReadyWithoutRequest counts Ready results carrying no request
	// (invariant 1: a contract violation, never spun on).
	ReadyWithoutRequest uint64
	// PastDeadline counts RetryAt times or Await deadlines that had already
	// passed when returned (the manager should have been Ready); they are
	// ignored for the wait, never spun on.
	PastDeadline uint64
	// RoundLimit counts steps in which a manager was still Ready after
	// Config.MaxRounds poll rounds (the next step starts at once).
	RoundLimit uint64
	// Dropped counts completions that arrived after the loop stopped.
	Dropped uint64
}

type counters struct {
	steps, observations, sent, inboxWakes, timerWakes, spurious, empty,
	readyNoReq, pastDeadline, roundLimit, dropped atomic.Uint64
}

// addStep counts one step of the core.
func (c *counters) addStep(st Step) {
	c.steps.Add(1)
	c.observations.Add(uint64(st.Decision.Applied))
	c.sent.Add(uint64(len(st.Requests)))
	c.readyNoReq.Add(uint64(st.ReadyWithoutRequest))
	c.pastDeadline.Add(uint64(st.PastDeadline))
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
		EmptySteps:          s.EmptySteps - o.EmptySteps,
		ReadyWithoutRequest: s.ReadyWithoutRequest - o.ReadyWithoutRequest,
		PastDeadline:        s.PastDeadline - o.PastDeadline,
		RoundLimit:          s.RoundLimit - o.RoundLimit,
		Dropped:             s.Dropped - o.Dropped,
	}
}
