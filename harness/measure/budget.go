package measure

import (
	"fmt"
	"time"
)

// Slack in loop budgets. Each is a count a conforming consumer may need on
// top of the configuration's schedule, and says why.
const (
	// BudgetEdgeSlack allows one request (or one timer wake) of each
	// retried request straddling each edge of a window: a schedule counted
	// from the window's start is one attempt short at either end.
	BudgetEdgeSlack = 2
	// BudgetInFlightAtStart is how many requests may already be in flight,
	// per broker, when a window opens: a long-poll fetch, plus a heartbeat
	// or a Metadata request.
	BudgetInFlightAtStart = 2
	// BudgetEventsPerPoll: a Poll submits one application event, and one
	// more to cancel itself when its deadline passes with no records.
	BudgetEventsPerPoll = 2
	// BudgetWakeupsPerPoll: a Poll whose deadline passes with no records
	// is released twice, by its deadline and by the engine's
	// acknowledgement of its cancel (every release of an application
	// wait counts, reactor.Stats.AppWakeups).
	BudgetWakeupsPerPoll = 2
	// BudgetFetchRoundsSlack allows one fetch per broker beyond one per
	// fetch.max.wait.ms: a long poll the broker answers early starts the
	// next at once.
	BudgetFetchRoundsSlack = 1
)

// LoopBudget is what a conforming consumer can do in a window in which
// nothing progresses (an outage), computed from the configuration alone,
// never from what the subject did (a bound scaled by the requests
// or Polls a subject made grows with a bug that makes more of them).
//
// A loop step starts on an observation or a timer. Observations are one
// completion per request sent or already in flight, and the application's
// events; requests are the retried ones (each follows the retry schedule)
// and the long-poll fetches (one per fetch.max.wait.ms per broker); timers
// are each retried request's backoff steps and the heartbeat interval.
type LoopBudget struct {
	Window    time.Duration
	Schedule  RetrySchedule
	Retried   int           // kinds of request that retry on the schedule in the window
	Brokers   int           // brokers with a long-poll fetch
	FetchWait time.Duration // fetch.max.wait.ms
	Heartbeat time.Duration // the group's heartbeat interval
	PollSlice time.Duration // the timeout of each of the spec's Polls

	Attempts, Requests, Polls, Observations, Timers, Steps int
	// AppWakeups is the most application wakeups the spec's Polls can
	// have: BudgetWakeupsPerPoll each.
	AppWakeups int
}

// Compute fills the derived counts and returns b.
func (b LoopBudget) Compute() LoopBudget {
	b.Attempts = b.Schedule.MaxAttemptsIn(b.Window)
	retried := b.Retried * (b.Attempts + BudgetEdgeSlack)
	b.Requests = retried + b.Brokers*(int(b.Window/b.FetchWait)+1+BudgetFetchRoundsSlack)
	b.Polls = int(b.Window/b.PollSlice) + 1
	b.Observations = b.Requests + BudgetInFlightAtStart*b.Brokers + BudgetEventsPerPoll*b.Polls + 1
	b.Timers = retried + int(b.Window/b.Heartbeat) + 1
	b.Steps = b.Observations + b.Timers + 1
	b.AppWakeups = BudgetWakeupsPerPoll * b.Polls
	return b
}

// String says where the counts come from, for a figure's bound.
func (b LoopBudget) String() string {
	return fmt.Sprintf("%d attempts of %s in %s for %d retried requests; %d requests, %d polls of %s, heartbeat %s",
		b.Attempts, b.Schedule, b.Window.Round(time.Millisecond), b.Retried, b.Requests, b.Polls, b.PollSlice, b.Heartbeat)
}
