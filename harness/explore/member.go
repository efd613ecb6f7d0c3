package explore

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/measure"
	oursubjects "github.com/kreactor/kreactor/harness/subjects/ours"
	"github.com/kreactor/kreactor/internal/chans"
	"github.com/kreactor/kreactor/reactor"
)

// member runs one member's timeline: start, subscribe, the main loop
// (poll with the current timeout between actions), the actions, and a
// Close at the end if no action closed it (timeline); the regular
// consumer's own actions and polls are here, a share member's in
// shareMember.
func (r *runner) member(ctx context.Context, m Member, at func(time.Duration), start time.Duration) {
	defer func() {
		if p := recover(); p != nil { // an application call panicked: a finding, not the end of the exploration
			r.op(Op{Member: m.Name, Kind: OpPanic, Start: r.since(), End: r.since(), Err: fmt.Sprintf("%v\n%s", p, debug.Stack())})
		}
	}()
	at(m.Start)
	if r.s.Share {
		r.shareMember(ctx, m, at, start)
		return
	}
	c, err := r.newConsumer(m)
	if err != nil {
		r.op(Op{Member: m.Name, Kind: OpOther, What: "new", Err: err.Error()})
		return
	}
	probe, probed := harness.ProbeOf(c)
	defer r.watch(m, probe, probed, c, at)()
	var (
		assigned []harness.TopicPartition
		epoch    EpochKey
		asyncID  int
	)
	r.timeline(m, c, start, func(a Action) {
		switch a.Kind {
		case ActCommitSync:
			cctx, cancel := context.WithTimeout(ctx, a.Timeout)
			s := r.since()
			err := c.CommitSync(cctx)
			cancel()
			r.op(Op{Member: m.Name, Kind: OpCommitSync, Start: s, End: r.since(), Timeout: a.Timeout, Err: errText(err)})
		case ActCommitAsync:
			asyncID++
			id := asyncID
			s := r.since()
			c.CommitAsync(func(err error) {
				r.op(Op{Member: m.Name, Kind: OpCallback, ID: id, Start: r.since(), End: r.since(), Err: errText(err)})
			})
			r.op(Op{Member: m.Name, Kind: OpCommitAsync, ID: id, Start: s, End: r.since()})
		case ActPause:
			r.other(m.Name, "pause", c.Pause(c.Assignment()...))
		case ActResume:
			r.other(m.Name, "resume", c.Resume(c.Assignment()...))
		}
	}, func(timeout time.Duration) int {
		recs, s, err := timedPoll(ctx, r, timeout, c.Poll)
		r.env.Delivered(m.Name, recs)
		now := c.Assignment()
		if !slices.Equal(now, assigned) {
			epoch.Changes++
			assigned = slices.Clone(now)
		} else if err != nil && !errors.Is(err, consumer.ErrWakeup) {
			// An error the application was told of (kgo's "lost records;
			// reset to offset 0" after a leader epoch check, KIP-320) may
			// move positions: the next records start a new epoch.
			epoch.Changes++
		}
		if probed {
			if sn := probe.Snapshot(); sn != nil { // nil before the first publication
				epoch.MemberEpoch = sn.MemberEpoch
			}
		}
		op := Op{Member: m.Name, Kind: OpPoll, Start: s, End: r.since(), Epoch: epoch, Timeout: timeout, Err: errText(err)}
		for _, a := range now {
			op.Assigned = append(op.Assigned, Rec{a.Topic, a.Partition, -1})
		}
		for _, rec := range recs {
			op.Records = append(op.Records, Rec{rec.Topic, rec.Partition, rec.Offset})
		}
		r.op(op)
		return len(recs)
	})
}

// timeline runs member m's main loop on c, from start until the
// schedule's length (or an early end): it subscribes to every topic, then
// takes each action when it is due and polls in between (poll, with the
// current timeout, returns how many records came), and closes c at the
// end unless an action closed it. ActPoll sets the poll timeout; the
// actions both kinds of member take alike (subscribe, stall, close) are
// taken here, the others by other.
func (r *runner) timeline(m Member, c interface {
	Subscribe(topics ...string) error
	Close(context.Context) error
}, start time.Duration, other func(Action), poll func(timeout time.Duration) (records int)) {
	r.other(m.Name, "subscribe", c.Subscribe(topicNames(r.s, nil)...))
	timeout, acts := m.PollTimeout, m.Actions
	for r.since()-start < r.s.Length && !r.aborted() {
		if len(acts) > 0 && acts[0].At <= r.since()-start {
			a := acts[0]
			acts = acts[1:]
			switch a.Kind {
			case ActPoll:
				timeout = a.Timeout
			case ActSubscribe:
				r.other(m.Name, "subscribe", c.Subscribe(topicNames(r.s, a.Topics)...))
			case ActStall:
				r.sleep(min(a.Timeout, r.s.Length-(r.since()-start)))
			case ActClose:
				r.closeMember(m.Name, c, a.Timeout)
				return
			default:
				other(a)
			}
			continue
		}
		if n := poll(timeout); timeout == 0 && n == 0 {
			time.Sleep(time.Millisecond) // an application polling with 0 still yields between polls
		}
	}
	r.closeMember(m.Name, c, EndCloseTimeout)
}

// timedPoll calls a member's Poll with timeout and returns what it did
// and when the call started.
func timedPoll[R any](ctx context.Context, r *runner, timeout time.Duration, poll func(context.Context) ([]R, error)) ([]R, time.Duration, error) {
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s := r.since()
	recs, err := poll(pctx)
	return recs, s, err
}

// closeMember runs c's Close with deadline d and records it, with the time
// the client itself spent in it where the subject measures that in its own
// process (harness.CallTime: the java driver times close inside the JVM;
// the round trip adds the driver's exit).
func (r *runner) closeMember(name string, c interface{ Close(context.Context) error }, d time.Duration) {
	cctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	s := r.since()
	err := c.Close(cctx)
	end := r.since()
	r.op(Op{Member: name, Kind: OpClose, Start: s, End: end, Inside: measure.CallTime(c, "close", end-s), Timeout: d, Err: errText(err)})
}

// wakeups calls Wakeup at each wakeup action's time, from its own
// goroutine (Wakeup is the one call allowed from another goroutine).
// watch records whether member m has a probe, starts its samplers (the
// probe's counters, when it has one, and the wakeups its actions ask for),
// and defers its Close to the end of the environment. The returned func
// stops the samplers and waits for them.
func (r *runner) watch(m Member, probe harness.Probe, probed bool, c interface {
	Wakeup()
	Close(context.Context) error
}, at func(time.Duration)) (stop func()) {
	r.mu.Lock()
	r.tr.Probed[m.Name] = probed
	r.mu.Unlock()
	closed := make(chan struct{})
	var samplers sync.WaitGroup
	if probed {
		samplers.Go(func() { r.sample(m.Name, probe, closed) })
	}
	samplers.Go(func() { r.wakeups(m, c, at, closed) })
	r.env.Defer(func() { _ = c.Close(context.Background()) })
	return func() {
		close(closed)
		samplers.Wait()
		r.validateTrace(m.Name, probe)
	}
}

// validateTrace replays a reactor member's recorded protocol events and
// decisions against the model (oursubjects.ValidateTrace) and records the
// outcome as an op: CheckModelTrace reports a violation. Other subjects'
// engines (the baseline runs effects before publication on purpose) are
// not the model's.
func (r *runner) validateTrace(member string, probe harness.Probe) {
	t, ok := probe.(interface {
		Events() reactor.EventLog
		Trace() []*reactor.Decision
	})
	if !ok || r.subj.Name() != "reactor" {
		return
	}
	err := oursubjects.ValidateTrace(t, "")
	r.op(Op{Member: member, Kind: OpOther, What: opTraceValidation, Start: r.since(), End: r.since(), Err: errText(err)})
}

func (r *runner) wakeups(m Member, c interface{ Wakeup() }, at func(time.Duration), closed <-chan struct{}) {
	for _, a := range m.Actions {
		if a.Kind != ActWakeup {
			continue
		}
		if a.At >= r.s.Length {
			return
		}
		at(a.At)
		select {
		case <-closed:
			return
		default:
		}
		c.Wakeup()
		r.op(Op{Member: m.Name, Kind: OpOther, What: "wakeup", Start: r.since(), End: r.since()})
	}
}

// sample records the member's loop counters every SampleEvery until closed.
func (r *runner) sample(name string, p harness.Probe, closed <-chan struct{}) {
	chans.Every(SampleEvery, closed, func(time.Time) bool {
		st := p.Stats()
		r.mu.Lock()
		r.tr.Samples = append(r.tr.Samples, Sample{At: r.since(), Member: name, Steps: st.Steps, Spurious: st.SpuriousWakeups})
		spin := len(CheckSpin(&Trace{Samples: r.tr.Samples})) > 0
		r.mu.Unlock()
		if spin && r.stopOnSpin {
			r.abortOnce.Do(func() { close(r.abort) })
		}
		return true
	})
}

func (r *runner) other(member, what string, err error) {
	s := r.since()
	r.op(Op{Member: member, Kind: OpOther, What: what, Start: s, End: s, Err: errText(err)})
}

func topicNames(s Schedule, idx []int) []string {
	var out []string
	if idx == nil {
		for _, t := range s.Topics {
			out = append(out, t.Name)
		}
		return out
	}
	for _, i := range idx {
		out = append(out, s.Topics[i].Name)
	}
	return out
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// shareMember is member for a share group: every delivered record is
// acknowledged (accept, or release after an ack-release action) before
// the next call.
func (r *runner) shareMember(ctx context.Context, m Member, at func(time.Duration), start time.Duration) {
	c, err := r.newShareConsumer(m)
	if err != nil {
		r.op(Op{Member: m.Name, Kind: OpOther, What: "new", Err: err.Error()})
		return
	}
	c.SetAcknowledgementCommitCallback(func(offsets map[harness.TopicPartition][]int64, err error) {
		op := Op{Member: m.Name, Kind: OpAckResult, Start: r.since(), End: r.since(), Err: errText(err)}
		for tp, offs := range offsets {
			for _, o := range offs {
				op.Records = append(op.Records, Rec{tp.Topic, tp.Partition, o})
			}
		}
		r.op(op)
	})
	probe, probed := harness.ShareProbeOf(c)
	defer r.watch(m, probe, probed, c, at)()
	release := false
	r.timeline(m, c, start, func(a Action) {
		switch a.Kind {
		case ActAckRelease:
			release = true
		case ActCommitSync:
			cctx, cancel := context.WithTimeout(ctx, a.Timeout)
			s := r.since()
			res, err := c.CommitSync(cctx)
			cancel()
			op := Op{Member: m.Name, Kind: OpCommitSync, Start: s, End: r.since(), Timeout: a.Timeout, Err: errText(err)}
			for tp, e := range res {
				if e != nil {
					op.Failed = append(op.Failed, Rec{Topic: tp.Topic, Partition: tp.Partition, Offset: -1})
				}
			}
			r.op(op)
		case ActCommitAsync:
			r.other(m.Name, "commit-async", c.CommitAsync())
		}
	}, func(timeout time.Duration) int {
		recs, s, err := timedPoll(ctx, r, timeout, c.Poll)
		op := Op{Member: m.Name, Kind: OpPoll, Start: s, End: r.since(), Timeout: timeout, Err: errText(err)}
		typ := consumer.Accept
		if release {
			typ, release = consumer.Release, false
		}
		ack := Op{Member: m.Name, Kind: OpAck, Start: r.since(), AckType: int8(typ)}
		for _, rec := range recs {
			rr := Rec{rec.Topic, rec.Partition, rec.Offset}
			op.Records = append(op.Records, rr)
			if e := c.Acknowledge(rec, typ); e != nil && !errors.Is(e, context.Canceled) {
				r.other(m.Name, "acknowledge", e)
				continue
			}
			ack.Records = append(ack.Records, rr)
		}
		ack.End = r.since()
		r.op(op)
		if len(ack.Records) > 0 {
			r.op(ack)
		}
		return len(recs)
	})
}

// built is a member's consumer made before the timeline started (process
// subjects: a JVM takes a second or more to start, which would eat the
// schedule's first second).
type built struct {
	c   harness.Consumer
	s   harness.ShareConsumer
	err error
}

// prebuild makes every member's consumer at once, before the timeline
// starts, for a subject in another process; a consumer made this way
// sends nothing before its member subscribes at its start time.
func (r *runner) prebuild() {
	if !IsProcess(r.subj.Name()) {
		return
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	r.built = map[string]built{}
	for _, m := range r.s.Members {
		wg.Go(func() {
			var b built
			if r.s.Share {
				b.s, b.err = r.makeShare(m)
			} else {
				b.c, b.err = r.subj.New(r.consumerConfig(m))
			}
			mu.Lock()
			r.built[m.Name] = b
			mu.Unlock()
		})
	}
	wg.Wait()
}

// newConsumer is member m's regular consumer: the one prebuild made, or a
// new one.
func (r *runner) newConsumer(m Member) (harness.Consumer, error) {
	if b, ok := r.built[m.Name]; ok {
		return b.c, b.err
	}
	return r.subj.New(r.consumerConfig(m))
}

// newShareConsumer is member m's share consumer: the one prebuild made, or
// a new one.
func (r *runner) newShareConsumer(m Member) (harness.ShareConsumer, error) {
	if b, ok := r.built[m.Name]; ok {
		return b.s, b.err
	}
	return r.makeShare(m)
}

// makeShare builds a share consumer for m, in explicit acknowledgement mode
// where the subject must be told (kafka-clients 4.1+ refuses Acknowledge
// otherwise).
func (r *runner) makeShare(m Member) (harness.ShareConsumer, error) {
	ss, ok := r.subj.(harness.ShareSubject)
	if !ok {
		return nil, errors.New("subject has no share consumer")
	}
	cfg := r.env.ShareConfig(m.Name)
	cfg.GroupID = Group
	if es, ok := r.subj.(harness.ExplicitShareSubject); ok {
		return es.NewExplicitShare(cfg)
	}
	return ss.NewShare(cfg)
}
