package consumer

// The application manager: the loop-side half of the public API. It owns the
// pending Poll, the sticky wakeup, the errors owed to the application and
// the close sequence (DESIGN.md, invariant 7): one list of outstanding work
// with one deadline, final commit before the leave, discovery kept only
// while something needs the coordinator.

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/reactor"
)

type pollReply struct {
	records   []Record
	positions map[managers.TopicPartition]managers.Position
	err       error
}

type pendingPoll struct {
	id    uint64
	reply chan pollReply // buffer 1; never closed
}

type closeState struct {
	deadline     time.Time
	done         chan error // buffer 1
	finalQueued  bool
	leaveStarted bool
}

// application is loop-goroutine state only.
type application struct {
	c *Consumer

	poll          *pendingPoll
	wakeup        bool
	metaReported  uint64 // metadata version whose topic errors were reported
	memberErrSeen error
	closing       *closeState // also mirrored in Consumer.closing for the view
}

func (a *application) Name() string { return "application" }

// onPoll applies a Poll event: mark what the application received, then
// answer at once (records, error, wakeup) or leave the Poll pending.
func (a *application) onPoll(tx *reactor.Tx, p *pendingPoll, received map[managers.TopicPartition]managers.Position) {
	a.c.fetch.MarkConsumed(received)
	if a.poll != nil { // a previous Poll was abandoned without cancel: answer it empty
		a.answer(tx, pollReply{})
	}
	a.poll = p
	a.tryAnswer(tx)
}

// onClose starts the close sequence with one deadline.
func (a *application) onClose(deadline time.Time, done chan error) {
	a.closing = &closeState{deadline: deadline, done: done}
	a.c.closing = true
}

func (a *application) onCancel(tx *reactor.Tx, id uint64) {
	if a.poll != nil && a.poll.id == id {
		a.poll = nil
	}
}

func (a *application) onWakeup(tx *reactor.Tx) {
	if a.poll != nil {
		a.answer(tx, pollReply{err: ErrWakeup})
		return
	}
	a.wakeup = true
}

func (a *application) answer(tx *reactor.Tx, r pollReply) {
	reply := a.poll.reply
	a.poll = nil
	tx.Effect(func() { reply <- r })
}

// pendingError returns an error owed to the application, once.
func (a *application) pendingError() error {
	if errs := append(a.c.member.TakeErrors(), a.c.fetch.TakeErrors()...); len(errs) > 0 {
		return errors.Join(errs...)
	}
	if err := a.c.member.LastError(); a.c.member.State() == group.MemberFatal && err != a.memberErrSeen {
		a.memberErrSeen = err
		return fmt.Errorf("consumer: group membership failed: %w", err)
	}
	if v := a.c.meta.Version(); v != a.metaReported {
		a.metaReported = v
		var errs []error
		for _, t := range a.c.metadataTopics() {
			if tm, ok := a.c.meta.Topic(t); ok && tm.Err != nil && !kerr.IsRetriable(tm.Err) {
				errs = append(errs, fmt.Errorf("topic %s: %w", t, tm.Err))
			}
		}
		return errors.Join(errs...)
	}
	return nil
}

func (a *application) tryAnswer(tx *reactor.Tx) {
	if a.poll == nil {
		return
	}
	if a.wakeup {
		a.wakeup = false
		a.answer(tx, pollReply{err: ErrWakeup})
		return
	}
	if err := a.pendingError(); err != nil {
		a.answer(tx, pollReply{err: err})
		return
	}
	if !a.c.fetch.Fetchable() {
		return
	}
	recs := a.c.fetch.Take(a.c.cfg.MaxPollRecords)
	out := make([]Record, len(recs))
	pos := map[managers.TopicPartition]managers.Position{}
	for i, r := range recs {
		out[i] = fromKgo(r)
		pos[managers.TopicPartition{Topic: r.Topic, Partition: r.Partition}] = managers.Position{Offset: r.Offset + 1, LeaderEpoch: r.LeaderEpoch}
	}
	a.answer(tx, pollReply{records: out, positions: pos})
}

// Poll answers a pending application Poll and runs the close sequence.
func (a *application) Poll(tx *reactor.Tx, v group.View) reactor.Result {
	a.tryAnswer(tx)
	if a.closing == nil {
		if a.poll != nil {
			return reactor.Await(reactor.InputApplication|reactor.InputResponse, "Poll waiting for records")
		}
		return reactor.Idle("no application call pending")
	}
	return a.pollClose(tx)
}

func (a *application) pollClose(tx *reactor.Tx) reactor.Result {
	cs := a.closing
	c := a.c
	if !cs.finalQueued {
		cs.finalQueued = true
		if c.cfg.EnableAutoCommit && c.cfg.GroupID != "" && c.member.InGroup() {
			c.commit.Enqueue(tx, c.fetch.Consumed(), cs.deadline, nil)
		}
	}
	if !tx.Now.Before(cs.deadline) {
		var outstanding []string
		if n := c.commit.Pending(); n > 0 {
			outstanding = append(outstanding, fmt.Sprintf("%d commit(s)", n))
		}
		if !c.member.Done() {
			outstanding = append(outstanding, "leave group ("+c.member.State().String()+")")
		}
		c.commit.FailAll(tx, ErrCloseDeadline)
		var err error
		if len(outstanding) > 0 {
			err = fmt.Errorf("%w: %s", ErrCloseDeadline, strings.Join(outstanding, ", "))
		}
		a.finishClose(tx, err)
		return reactor.Idle("closed at deadline")
	}
	if c.commit.Pending() > 0 {
		return reactor.Await(reactor.InputResponse|reactor.InputCoordinator, "close: commits before leave").Until(cs.deadline)
	}
	if !cs.leaveStarted {
		cs.leaveStarted = true
		c.member.Leave()
	}
	if !c.member.Done() {
		return reactor.Await(reactor.InputResponse|reactor.InputCoordinator, "close: leaving group").Until(cs.deadline)
	}
	a.finishClose(tx, nil)
	return reactor.Idle("closed")
}

func (a *application) finishClose(tx *reactor.Tx, err error) {
	if a.poll != nil {
		a.answer(tx, pollReply{err: ErrClosed})
	}
	done := a.closing.done
	tx.Effect(func() { done <- err })
	tx.Stop()
}
