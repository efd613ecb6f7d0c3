package client

// The share consumer's application manager: the engine-side half of its
// public API (pending Poll, implicit/explicit acknowledgement, commits) and
// its close sequence on the reactor: acknowledgements before the leave, one
// deadline. Every variant polls it; the baseline uses only its
// acknowledgement rules (Settle, Demand).

import (
	"errors"
	"fmt"
	"time"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/share"
	"github.com/kreactor/kreactor/reactor"
)

// SharePollReply answers a pending share Poll.
type SharePollReply struct {
	Records []ShareRecord
	Err     error
}

// ShareApplication is the share consumer's application manager; engine
// goroutine state only.
type ShareApplication struct {
	s        *Share
	poll     PollSlot[SharePollReply]
	explicit bool // an Acknowledge call was made: explicit mode for good
	demand   bool // baseline: the application thread is inside Poll
	fetchAt  int  // ShareFetch requests sent when the pending Poll started
	closing  *CloseSequence
}

func (a *ShareApplication) Name() string { return "application" }

// Settle acknowledges the previous batch per the mode and hands the
// acknowledgements to the fetch manager. In explicit mode an unacknowledged
// record is the application's error.
func (a *ShareApplication) Settle() error {
	if a.explicit {
		if n := a.s.Consume.Unacknowledged(); n > 0 {
			return fmt.Errorf("%w (%d record(s))", share.ErrUnacknowledged, n)
		}
	} else {
		a.s.Consume.AcknowledgeAll(share.AckAccept)
	}
	a.s.Consume.Flush()
	return nil
}

// OnPoll applies a Poll event (reply: a channel with a buffer of 1):
// settle the previous batch, then answer at once or leave the Poll pending.
func (a *ShareApplication) OnPoll(tx *reactor.Tx, w *PollWait[SharePollReply]) {
	a.s.Member.OnPoll(tx.Now)
	a.poll.Set(tx, w)
	a.fetchAt, _ = a.s.Consume.Sent()
	if err := a.Settle(); err != nil {
		a.poll.Fail(tx, err)
		return
	}
	a.tryAnswer(tx)
}

// OnCancel forgets the Poll answering on reply (its caller stopped
// waiting): Poll activity ends now, for max.poll.interval.ms.
func (a *ShareApplication) OnCancel(tx *reactor.Tx, w *PollWait[SharePollReply]) {
	a.s.Member.OnPoll(tx.Now)
	if sent, _ := a.s.Consume.Sent(); a.poll.Pending() && sent == a.fetchAt {
		// Unanswered before any ShareFetch went (poll(Duration.ZERO)):
		// the ShareFetch it asked for still goes.
		a.s.Consume.Demand()
	}
	a.poll.Cancel(w)
}

// OnWakeup applies a Wakeup.
func (a *ShareApplication) OnWakeup(tx *reactor.Tx) { a.poll.Wakeup(tx) }

// SetDemand says, at now, whether the application thread is inside Poll
// (the baseline, whose Poll does not wait on the engine); each call is Poll
// activity for max.poll.interval.ms (Java's SharePollEvent).
func (a *ShareApplication) SetDemand(now time.Time, inPoll bool) {
	a.s.Member.OnPoll(now)
	a.demand = inPoll
}

func (a *ShareApplication) commit(tx *reactor.Tx, deadline time.Time, done func(map[managers.TopicPartition]error, uint64)) {
	if !a.explicit {
		a.s.Consume.AcknowledgeAll(share.AckAccept)
	}
	a.s.Consume.Commit(tx, deadline, done)
}

// OnClose starts the close sequence at now with deadline: the delivered
// records are acknowledged (implicit mode: accept; explicit mode: release
// the unacknowledged), sent with each session's closing request, then the
// leave (see CloseSequence for the phases).
func (a *ShareApplication) OnClose(now, deadline time.Time, done chan error) {
	if a.explicit {
		a.s.Consume.AcknowledgeAll(share.AckRelease)
	} else {
		a.s.Consume.AcknowledgeAll(share.AckAccept)
	}
	a.s.Consume.Close()
	a.closing = NewCloseSequence(now, deadline, done)
}

func (a *ShareApplication) tryAnswer(tx *reactor.Tx) {
	// Each answer is claimed (PollSlot.Claim) before what it carries is
	// taken: a Poll its application abandoned takes nothing.
	if !a.poll.Answerable() || a.poll.TakeWakeup(tx) {
		return
	}
	if a.s.Member.HasErrors() || a.s.Consume.HasErrors() {
		if a.poll.Claim() {
			a.poll.Answer(tx, a.poll.errReply(errors.Join(append(a.s.Member.TakeErrors(), a.s.Consume.TakeErrors()...)...)))
		}
		return
	}
	if err := a.s.Member.LastError(); a.s.Member.State() == managers.MemberFatal && err != nil {
		a.poll.Fail(tx, fmt.Errorf("consumer: share group membership failed: %w", err))
		return
	}
	if a.s.Consume.Buffered() == 0 || !a.poll.Claim() {
		return
	}
	recs := a.s.Consume.Take(a.s.Cfg.MaxPollRecords)
	out := make([]ShareRecord, len(recs))
	for i, r := range recs {
		out[i] = ShareRecord{Record: FromKgo(r.Record), DeliveryCount: r.DeliveryCount}
	}
	a.poll.Answer(tx, SharePollReply{Records: out})
}

// Poll answers a pending Poll and runs the close sequence.
func (a *ShareApplication) Poll(tx *reactor.Tx, v share.View) reactor.Result {
	a.tryAnswer(tx)
	cs := a.closing
	if cs == nil {
		return a.poll.Result()
	}
	c := a.s
	return cs.Poll(tx, CloseWork{
		Pending: func() string {
			if !c.Consume.Done() {
				return "acknowledgements / share sessions"
			}
			return ""
		},
		PendingInputs: reactor.InputResponse | reactor.InputMetadata,
		PendingReason: "close: acknowledgements before leave",
		FailPending:   c.Consume.FailAll,
		Leave:         c.Member.Leave, Left: c.Member.Done, State: func() string { return c.Member.State().String() },
		LeaveName: "leave share group", LeavingReason: "close: leaving share group",
		Release: func(tx *reactor.Tx) { a.poll.Fail(tx, ErrClosed) },
	})
}
