package consumer

// The application manager: the loop-side half of the public API. It owns the
// pending Poll, the sticky wakeup, the errors owed to the application and
// the close sequence (docs/design.md, invariant 7): one list of outstanding work
// with one deadline, final commit before the leave, discovery kept only
// while something needs the coordinator.

import (
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kreactor/kreactor/internal/client"
	"github.com/kreactor/kreactor/internal/mutant"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/reactor"
)

type pollReply struct {
	records   []Record
	positions map[managers.TopicPartition]managers.Position
	err       error
}

// application is the reactor consumer's application manager; engine
// goroutine state only.
type application struct {
	g *client.Group

	poll          client.PollSlot[pollReply]
	metaReported  uint64 // metadata version whose topic errors were reported
	memberErrSeen error
	closing       *client.CloseSequence // also mirrored in Group.Closing for the view
	finalQueued   bool                  // the final auto-commit is queued
	pollStarting  bool                  // onPoll is answering a new Poll (a mutation point reads it)
}

func (a *application) Name() string { return "application" }

func newApplication(g *client.Group) *application {
	return &application{g: g, poll: client.NewPollSlot(func(err error) pollReply { return pollReply{err: err} })}
}

// onPoll applies a Poll event: Poll activity for max.poll.interval.ms (a
// member that left for want of it joins again), mark what the application
// received, then answer at once (records, error, wakeup) or leave the Poll
// pending.
func (a *application) onPoll(tx *reactor.Tx, w *client.PollWait[pollReply], received map[managers.TopicPartition]managers.Position) {
	a.g.Member.OnPoll(tx.Now)
	a.g.Fetch.Polled()
	a.g.Fetch.MarkConsumed(received)
	a.poll.Set(tx, w)
	a.pollStarting = true
	a.tryAnswer(tx)
	a.pollStarting = false
}

// onCancel forgets the Poll answering on reply (its caller stopped
// waiting): Poll activity ends now.
func (a *application) onCancel(tx *reactor.Tx, w *client.PollWait[pollReply]) {
	a.g.Member.OnPoll(tx.Now)
	a.poll.Cancel(w)
}

// onClose starts the close sequence at tx.Now with one deadline (phases:
// client.CloseSequence). received are the positions after every record
// Poll returned: Close means the application is done with what it was
// given, so the final auto-commit commits them (Java's close commits the
// consumed positions); while polling, a commit never passes what a
// completed Poll handed over (KAFKA-18641).
func (a *application) onClose(tx *reactor.Tx, deadline time.Time, done chan error, received map[managers.TopicPartition]managers.Position) {
	a.g.Fetch.MarkConsumed(received)
	a.closing = client.NewCloseSequence(tx.Now, deadline, done)
	a.g.Closing = true
}

// pendingError returns an error owed to the application, once.
func (a *application) pendingError() error {
	if errs := append(a.g.Member.TakeErrors(), a.g.Fetch.TakeErrors()...); len(errs) > 0 {
		return errors.Join(errs...)
	}
	if err := a.g.Member.LastError(); a.g.Member.State() == managers.MemberFatal && err != a.memberErrSeen {
		a.memberErrSeen = err
		return fmt.Errorf("consumer: group membership failed: %w", err)
	}
	if mutant.On("metadata-error-not-surfaced") && !a.pollStarting {
		return nil // checked only when a Poll starts: one set while it waits releases nothing
	}
	if v := a.g.Meta.Version(); v != a.metaReported {
		a.metaReported = v
		var errs []error
		for _, t := range a.g.MetadataTopics() {
			if tm, ok := a.g.Meta.Topic(t); ok && tm.Err != nil && !kerr.IsRetriable(tm.Err) {
				errs = append(errs, fmt.Errorf("topic %s: %w", t, tm.Err))
			}
		}
		return errors.Join(errs...)
	}
	return nil
}

// tryAnswer answers the pending Poll, claiming it (PollSlot.Claim) before
// taking what it answers with: a Poll its application abandoned takes
// nothing (an error taken for it is owed again).
func (a *application) tryAnswer(tx *reactor.Tx) {
	if !a.poll.Answerable() || a.poll.TakeWakeup(tx) {
		return
	}
	if err := a.pendingError(); err != nil {
		if !a.poll.Claim() {
			a.g.Fetch.ReportError(err) // for the next Poll
			return
		}
		a.poll.Answer(tx, pollReply{err: err})
		return
	}
	if !a.g.Fetch.Fetchable() {
		if mutant.On("poll-returns-at-once") && a.poll.Claim() {
			a.poll.Answer(tx, pollReply{})
		}
		return
	}
	if !a.poll.Claim() {
		return
	}
	recs, pos := a.g.Fetch.Take(a.g.Cfg.MaxPollRecords)
	a.poll.Answer(tx, pollReply{records: recs, positions: pos})
}

// Poll answers a pending application Poll and runs the close sequence.
func (a *application) Poll(tx *reactor.Tx, v group.View) reactor.Result {
	a.tryAnswer(tx)
	if a.closing == nil {
		return a.poll.Result()
	}
	return a.pollClose(tx)
}

func (a *application) pollClose(tx *reactor.Tx) reactor.Result {
	cs := a.closing
	g := a.g
	if !a.finalQueued {
		a.finalQueued = true
		if g.Cfg.EnableAutoCommit && g.Cfg.GroupID != "" && g.Member.InGroup() {
			g.Commit.Enqueue(tx, g.Fetch.Consumed(), cs.PreLeaveDeadline(), nil)
		}
	}
	return cs.Poll(tx, client.CloseWork{
		Pending: func() string {
			if n := g.Commit.Pending(); n > 0 {
				return fmt.Sprintf("%d commit(s)", n)
			}
			if _, known := g.Coord.Known(); !known && g.Cfg.GroupID != "" && mutant.On("close-keeps-discovery") {
				return "coordinator discovery" // close waits for a coordinator nothing needs
			}
			return ""
		},
		PendingInputs: reactor.InputResponse | reactor.InputCoordinator,
		PendingReason: "close: commits before leave",
		FailPending:   g.Commit.FailAll,
		Leave:         g.Member.Leave, Left: g.Member.Done, State: func() string { return g.Member.State().String() },
		LeaveName: "leave group", LeavingReason: "close: leaving group",
		Release: func(tx *reactor.Tx) { a.poll.Fail(tx, ErrClosed) },
	})
}
