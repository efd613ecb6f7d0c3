package consumer

// The share consumer's application manager: the loop-side half of its
// public API (pending Poll, implicit/explicit acknowledgement, commits) and
// its close sequence: acknowledgements before the leave, one deadline.

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/share"
	"github.com/kreactor/kreactor/reactor"
)

type sharePollReply struct {
	records []ShareRecord
	err     error
}

type sharePoll struct {
	reply chan sharePollReply // buffer 1; never closed
}

type shareClose struct {
	deadline     time.Time
	done         chan error
	leaveStarted bool
}

// shareApplication is loop-goroutine state only.
type shareApplication struct {
	c        *ShareConsumer
	poll     *sharePoll
	wakeup   bool
	explicit bool // an Acknowledge call was made: explicit mode for good
	demand   bool // baseline: the application thread is inside Poll
	closing  *shareClose
}

func (a *shareApplication) Name() string { return "application" }

// settle acknowledges the previous batch per the mode and hands the
// acknowledgements to the fetch manager. In explicit mode an unacknowledged
// record is the application's error.
func (a *shareApplication) settle() error {
	if a.explicit {
		if n := a.c.consume.Unacknowledged(); n > 0 {
			return fmt.Errorf("%w (%d record(s))", share.ErrUnacknowledged, n)
		}
	} else {
		a.c.consume.AcknowledgeAll(share.AckAccept)
	}
	a.c.consume.Flush()
	return nil
}

func (a *shareApplication) onPoll(tx *reactor.Tx, p *sharePoll) {
	if a.poll != nil {
		a.answer(tx, sharePollReply{})
	}
	a.poll = p
	if err := a.settle(); err != nil {
		a.answer(tx, sharePollReply{err: err})
		return
	}
	a.tryAnswer(tx)
}

func (a *shareApplication) onCancel(p *sharePoll) {
	if a.poll == p {
		a.poll = nil
	}
}

func (a *shareApplication) onWakeup(tx *reactor.Tx) {
	if a.poll != nil {
		a.answer(tx, sharePollReply{err: ErrWakeup})
		return
	}
	a.wakeup = true
}

func (a *shareApplication) commit(tx *reactor.Tx, done func(map[managers.TopicPartition]error, uint64)) {
	if !a.explicit {
		a.c.consume.AcknowledgeAll(share.AckAccept)
	}
	a.c.consume.Commit(tx, done)
}

func (a *shareApplication) onClose(deadline time.Time, done chan error) {
	if a.explicit {
		a.c.consume.AcknowledgeAll(share.AckRelease)
	} else {
		a.c.consume.AcknowledgeAll(share.AckAccept)
	}
	a.c.consume.Close()
	a.closing = &shareClose{deadline: deadline, done: done}
}

func (a *shareApplication) answer(tx *reactor.Tx, r sharePollReply) {
	reply := a.poll.reply
	a.poll = nil
	tx.Effect(func() { reply <- r })
}

func (a *shareApplication) tryAnswer(tx *reactor.Tx) {
	if a.poll == nil {
		return
	}
	if a.wakeup {
		a.wakeup = false
		a.answer(tx, sharePollReply{err: ErrWakeup})
		return
	}
	if errs := append(a.c.member.TakeErrors(), a.c.consume.TakeErrors()...); len(errs) > 0 {
		a.answer(tx, sharePollReply{err: errors.Join(errs...)})
		return
	}
	if err := a.c.member.LastError(); a.c.member.State() == share.MemberFatal && err != nil {
		a.answer(tx, sharePollReply{err: fmt.Errorf("consumer: share group membership failed: %w", err)})
		return
	}
	if a.c.consume.Buffered() == 0 {
		return
	}
	recs := a.c.consume.Take(a.c.cfg.MaxPollRecords)
	out := make([]ShareRecord, len(recs))
	for i, r := range recs {
		out[i] = ShareRecord{Record: fromKgo(r.Record), DeliveryCount: r.DeliveryCount}
	}
	a.answer(tx, sharePollReply{records: out})
}

// Poll answers a pending Poll and runs the close sequence.
func (a *shareApplication) Poll(tx *reactor.Tx, v share.View) reactor.Result {
	a.tryAnswer(tx)
	cs := a.closing
	if cs == nil {
		if a.poll != nil {
			return reactor.Await(reactor.InputApplication|reactor.InputResponse, "Poll waiting for records")
		}
		return reactor.Idle("no application call pending")
	}
	c := a.c
	if !tx.Now.Before(cs.deadline) {
		var outstanding []string
		if !c.consume.Done() {
			outstanding = append(outstanding, "acknowledgements / share sessions")
		}
		if !c.member.Done() {
			outstanding = append(outstanding, "leave share group ("+c.member.State().String()+")")
		}
		c.consume.FailAll(tx, ErrCloseDeadline)
		var err error
		if len(outstanding) > 0 {
			err = fmt.Errorf("%w: %s", ErrCloseDeadline, strings.Join(outstanding, ", "))
		}
		a.finish(tx, err)
		return reactor.Idle("closed at deadline")
	}
	if !c.consume.Done() {
		return reactor.Await(reactor.InputResponse|reactor.InputMetadata, "close: acknowledgements before leave").Until(cs.deadline)
	}
	if !cs.leaveStarted {
		cs.leaveStarted = true
		c.member.Leave()
	}
	if !c.member.Done() {
		return reactor.Await(reactor.InputResponse|reactor.InputCoordinator, "close: leaving share group").Until(cs.deadline)
	}
	a.finish(tx, nil)
	return reactor.Idle("closed")
}

func (a *shareApplication) finish(tx *reactor.Tx, err error) {
	if a.poll != nil {
		a.answer(tx, sharePollReply{err: ErrClosed})
	}
	done := a.closing.done
	tx.Effect(func() { done <- err })
	tx.Stop()
}
