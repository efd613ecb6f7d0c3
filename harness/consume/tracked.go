package consume

import (
	"context"
	"sync/atomic"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
)

// Tracked wraps a Consumer and counts the application calls made through it,
// and says whether one is running: specs use the counts to bound loop work
// caused by application events, and InCallHere to check that callbacks run
// on the application goroutine during a later call (Java's callback thread
// guarantee).
type Tracked struct {
	harness.Consumer
	polls, commits atomic.Int64 // calls started
	inCall         atomic.Int32 // calls running
	caller         atomic.Int64 // goroutine id of the call running (0: none)
}

// Track wraps c.
func Track(c harness.Consumer) *Tracked { return &Tracked{Consumer: c} }

// CallCounts are the application calls started through a Tracked consumer.
type CallCounts struct {
	Polls   int64 // Poll
	Commits int64 // CommitSync and CommitAsync
}

// Calls returns the calls started so far.
func (t *Tracked) Calls() CallCounts {
	return CallCounts{Polls: t.polls.Load(), Commits: t.commits.Load()}
}

// InCall reports whether a Poll, CommitSync, CommitAsync or Close is running
// (on any goroutine: a callback the consumer's own goroutine runs during a
// Poll sees true too; InCallHere tells them apart).
func (t *Tracked) InCall() bool { return t.inCall.Load() > 0 }

// InCallHere reports whether the calling goroutine is inside a Poll,
// CommitSync, CommitAsync or Close made through t: true for a callback run
// on the application goroutine during one of its calls (Java's guarantee),
// false for one run on another goroutine (the consumer's loop), even while
// an application call is in progress.
func (t *Tracked) InCallHere() bool {
	id := t.caller.Load()
	return t.inCall.Load() > 0 && id != 0 && id == GoroutineID()
}

func (t *Tracked) enter() func() {
	prev := t.caller.Swap(GoroutineID())
	t.inCall.Add(1)
	return func() {
		t.inCall.Add(-1)
		t.caller.Store(prev)
	}
}

// Unwrap returns the wrapped consumer (harness.UnwrapConsumer), so its
// probe and abilities stay visible (harness.ProbeOf).
func (t *Tracked) Unwrap() harness.Consumer { return t.Consumer }

// Poll counts and calls Consumer.Poll.
func (t *Tracked) Poll(ctx context.Context) ([]consumer.Record, error) {
	defer t.enter()()
	t.polls.Add(1)
	return t.Consumer.Poll(ctx)
}

// CommitSync counts and calls Consumer.CommitSync.
func (t *Tracked) CommitSync(ctx context.Context) error {
	defer t.enter()()
	t.commits.Add(1)
	return t.Consumer.CommitSync(ctx)
}

// CommitAsync counts and calls Consumer.CommitAsync.
func (t *Tracked) CommitAsync(cb func(error)) {
	defer t.enter()()
	t.commits.Add(1)
	t.Consumer.CommitAsync(cb)
}

// Close calls Consumer.Close.
func (t *Tracked) Close(ctx context.Context) error {
	defer t.enter()()
	return t.Consumer.Close(ctx)
}
