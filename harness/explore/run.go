package explore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/fakebroker"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/measure"
	"github.com/kreactor/kreactor/harness/sim"
	"github.com/kreactor/kreactor/harness/subjects"
	"github.com/kreactor/kreactor/internal/chans"
)

// SampleEvery is how often a member's loop counters are sampled.
const SampleEvery = 100 * time.Millisecond

// RunOptions says how to run a schedule.
type RunOptions struct {
	// Subject names the subject (subjects.Lookup): reactor, baseline,
	// kgo, null, java, java-classic. The java subjects need Wall: their
	// driver is a process that reaches the brokers over loopback sockets.
	Subject string
	// Wall runs on the wall clock (sim.RunWall) instead of in a bubble.
	// A subject that busy-loops freezes a bubble's clock (the baseline
	// during a coordinator outage), which kills the process: WallFor says
	// which subjects need it.
	Wall bool
	// Seed seeds the run's random choices (member ids, jitter).
	Seed uint64
	// OnFrozen is called when a bubble's clock freezes (sim.Config.OnFrozen);
	// the process panics after it returns.
	OnFrozen func(sim.Frozen)
	// StopOnSpin ends the timeline as soon as a member's loop is seen
	// spinning (CheckSpin's bound): the finding is made, and on the wall
	// clock the rest of the schedule would only burn CPU.
	StopOnSpin bool
	// NoLeakCheck skips the goroutine-leak check after the members
	// closed: with schedules run in parallel in one process another run's
	// goroutines would count, and a process subject's goroutines here are
	// the harness's driver plumbing, not the client's.
	NoLeakCheck bool
}

// WallFor reports whether subject must run on the wall clock: the
// baseline busy-loops by design during a coordinator outage (KAFKA-20253),
// which stops a bubble's clock for good; the java subjects are processes on
// real sockets, outside any bubble.
func WallFor(subject string) bool { return subject == "baseline" || IsProcess(subject) }

// IsProcess reports whether subject runs in another process (the java
// driver's JVM): on the wall clock, with brokers on loopback sockets.
func IsProcess(subject string) bool {
	return subject == subjects.SubjectJava || subject == subjects.SubjectJavaClassic
}

// ProcessStartSlack is what a schedule's run may take beyond its timeline
// and closes on a process subject: a JVM per member to start.
const ProcessStartSlack = 30 * time.Second

// Run executes s on the subject and returns the trace. t is needed for a
// bubble (synctest); it may be nil with Wall. A harness failure (the
// cluster does not start, an unknown subject) is in Trace.Err and
// returned.
func Run(t *testing.T, s Schedule, o RunOptions) (*Trace, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	subj, ok := subjects.Lookup(o.Subject)
	if !ok || CheckSubject(o.Subject) != nil {
		return nil, fmt.Errorf("explore: subject %q: not runnable here (known: %s)", o.Subject, strings.Join(Runnable, ", "))
	}
	if !o.Wall && slices.ContainsFunc(s.Faults, func(f Fault) bool { return f.Kind == FaultRefuse || f.Kind == FaultBlackHole }) {
		return nil, fmt.Errorf("explore: %s and %s faults can freeze a bubble's clock (see gen.go): run the schedule on the wall clock", FaultRefuse, FaultBlackHole)
	}
	if IsProcess(o.Subject) && !o.Wall {
		return nil, fmt.Errorf("explore: subject %q runs in another process: it needs the wall clock (RunOptions.Wall)", o.Subject)
	}
	r := &runner{s: s, subj: subj, stopOnSpin: o.StopOnSpin, noLeakCheck: o.NoLeakCheck, tr: &Trace{Subject: o.Subject, Bubble: !o.Wall, Probed: map[string]bool{},
		Retry: measure.Schedule(consumer.DefaultConfig())}}
	cfg := sim.Config{
		Seed:       o.Seed,
		Cluster:    fakebroker.Config{Brokers: s.Brokers, Topics: topicMap(s)},
		MaxVirtual: s.Length + 2*EndCloseTimeout + 10*time.Second,
		Procs:      1,
		OnFrozen:   o.OnFrozen,
		Loopback:   IsProcess(o.Subject),
	}
	if cfg.Loopback {
		cfg.MaxVirtual += ProcessStartSlack
	}
	var h *sim.History
	var err error
	if o.Wall {
		h, err = sim.RunWall(context.Background(), cfg, r.run)
	} else {
		if t == nil {
			return nil, errors.New("explore: a bubble run needs a *testing.T (synctest)")
		}
		h, err = sim.Run(t, cfg, r.run)
	}
	r.tr.History = h
	r.tr.Err = err
	return r.tr, err
}

func topicMap(s Schedule) map[string]int32 {
	m := map[string]int32{}
	for _, t := range s.Topics {
		m[t.Name] = t.Partitions
	}
	return m
}

// runner executes one schedule inside sim's run function.
type runner struct {
	s           Schedule
	subj        harness.Subject
	env         *sim.Env
	stopOnSpin  bool
	noLeakCheck bool
	built       map[string]built // by member name: consumers made before the timeline (prebuild); read-only after
	abort       chan struct{}    // closed when the timeline ends early (a spin seen)
	commitSeen  chan struct{}    // a broker read an OffsetCommit or a join heartbeat (buffer 1; sampleGroup reads the group)
	abortOnce   sync.Once

	mu sync.Mutex // guards tr's slices while the run goes on
	tr *Trace
}

func (r *runner) op(o Op) {
	r.mu.Lock()
	r.tr.Ops = append(r.tr.Ops, o)
	r.mu.Unlock()
}

func (r *runner) run(env *sim.Env) error {
	r.env = env
	r.abort = make(chan struct{}) // made in the bubble: waiting on it is durably blocking there
	r.commitSeen = make(chan struct{}, 1)
	b := env.Broker
	if err := r.observe(b); err != nil {
		return err
	}
	ctx := env.Context()
	if r.s.Produce.Initial > 0 {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := b.Produce(pctx, r.s.Topics[0].Name, r.s.Produce.Initial, nil)
		cancel()
		if err != nil {
			env.Note("producer", "initial produce: %v", err)
		}
	}
	r.prebuild()
	start := env.Since()
	at := func(d time.Duration) { r.sleep(start + d - env.Since()) } // until start+d
	var wg sync.WaitGroup
	wg.Go(func() { r.produce(ctx, at) })
	wg.Go(func() { r.faults(at) })
	var members sync.WaitGroup
	for _, m := range r.s.Members {
		members.Go(func() { r.member(ctx, m, at, start) })
	}
	sampled := make(chan struct{})
	wg.Go(func() { r.sampleGroup(sampled) })
	members.Wait()
	close(sampled)
	wg.Wait()
	if !r.noLeakCheck {
		r.tr.Leaked = leaked(r.tr.Bubble)
	}
	r.resolveAcks(b)
	return nil
}

// observe installs the broker-side observers: heartbeats and share
// acknowledgements.
func (r *runner) observe(b *fakebroker.Broker) error {
	since := func(at time.Time) time.Duration { return r.env.Since() - time.Since(at) }
	hb := func(at time.Time, req kmsg.Request) {
		var h Heartbeat
		switch q := req.(type) {
		case *kmsg.ConsumerGroupHeartbeatRequest:
			h = Heartbeat{MemberID: q.MemberID, Epoch: q.MemberEpoch}
			if q.Topics != nil {
				h.OwnedSent, h.topics = true, map[int32][16]byte{}
				for _, t := range q.Topics {
					for _, p := range t.Partitions {
						h.topics[int32(len(h.Owned))] = t.TopicID
						h.Owned = append(h.Owned, Rec{Partition: p, Offset: -1})
					}
				}
			}
		case *kmsg.ShareGroupHeartbeatRequest:
			h = Heartbeat{MemberID: q.MemberID, Epoch: q.MemberEpoch}
		default:
			return
		}
		h.At = since(at)
		r.mu.Lock()
		r.tr.Heartbeats = append(r.tr.Heartbeats, h)
		r.mu.Unlock()
		if h.Epoch == 0 { // a join: read the group's member ids soon
			select {
			case r.commitSeen <- struct{}{}:
			default:
			}
		}
	}
	ack := func(at time.Time, req kmsg.Request) {
		var acks []Ack
		var member string
		add := func(key int16, topic [16]byte, p int32, first, last int64, types []int8) {
			for o := first; o <= last; o++ {
				typ := int8(0)
				switch {
				case len(types) == 1:
					typ = types[0]
				case int(o-first) < len(types):
					typ = types[o-first]
				}
				acks = append(acks, Ack{At: since(at), Key: key, MemberID: member, Rec: Rec{Partition: p, Offset: o}, Type: typ, topic: topic})
			}
		}
		switch q := req.(type) {
		case *kmsg.ShareFetchRequest:
			if q.MemberID != nil {
				member = *q.MemberID
			}
			for _, t := range q.Topics {
				for _, p := range t.Partitions {
					for _, a := range p.AcknowledgementBatches {
						add(int16(kmsg.ShareFetch), t.TopicID, p.Partition, a.FirstOffset, a.LastOffset, a.AcknowledgeTypes)
					}
				}
			}
		case *kmsg.ShareAcknowledgeRequest:
			if q.MemberID != nil {
				member = *q.MemberID
			}
			for _, t := range q.Topics {
				for _, p := range t.Partitions {
					for _, a := range p.AcknowledgementBatches {
						add(int16(kmsg.ShareAcknowledge), t.TopicID, p.Partition, a.FirstOffset, a.LastOffset, a.AcknowledgeTypes)
					}
				}
			}
		}
		if len(acks) == 0 {
			return
		}
		r.mu.Lock()
		r.tr.Acks = append(r.tr.Acks, acks...)
		r.mu.Unlock()
	}
	for _, k := range []kmsg.Key{kmsg.ConsumerGroupHeartbeat, kmsg.ShareGroupHeartbeat} {
		if _, err := b.ObserveKey(k, hb); err != nil {
			return err
		}
	}
	for _, k := range []kmsg.Key{kmsg.ShareFetch, kmsg.ShareAcknowledge} {
		if _, err := b.ObserveKey(k, ack); err != nil {
			return err
		}
	}
	_, err := b.ObserveKey(kmsg.OffsetCommit, func(time.Time, kmsg.Request) {
		select {
		case r.commitSeen <- struct{}{}:
		default:
		}
	})
	return err
}

// CommitSettle is how long after a broker read an OffsetCommit, or a join
// heartbeat, the group is read again (the request is applied after its
// observer returns).
const CommitSettle = 5 * time.Millisecond

// sampleGroup reads the group at the broker when a broker has read an
// OffsetCommit or a heartbeat joining the group (at once and CommitSettle
// later), until done is closed, then once more: each newly accepted commit
// becomes a CommitPoint and each member id is named by its client id.
// Reading only then keeps a bubble's extra wakeups to the group's own
// events.
func (r *runner) sampleGroup(done <-chan struct{}) {
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	defer settle.Stop()
	type seen struct {
		tp
		at     time.Time
		offset int64
	}
	last := map[tp]seen{}
	read := func() {
		gi := r.env.Broker.GroupInfo(Group)
		if gi == nil {
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.tr.MemberIDs == nil {
			r.tr.MemberIDs = map[string]string{}
		}
		for _, m := range gi.Members {
			r.tr.MemberIDs[m.MemberID] = m.ClientID
		}
		var fresh []CommitPoint
		for topic, ps := range gi.Commits {
			for p, c := range ps {
				k := tp{topic, p}
				if l, ok := last[k]; ok && l.at.Equal(c.At) && l.offset == c.Offset {
					continue
				}
				last[k] = seen{k, c.At, c.Offset}
				fresh = append(fresh, CommitPoint{At: c.At.Sub(r.env.Start()), Topic: topic, Partition: p, Offset: c.Offset})
			}
		}
		slices.SortFunc(fresh, func(a, b CommitPoint) int {
			return cmp.Or(cmp.Compare(a.At, b.At), strings.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
		})
		r.tr.Commits = append(r.tr.Commits, fresh...)
	}
	for {
		select {
		case <-done:
			read()
			return
		case <-r.commitSeen:
			read()
			settle.Reset(CommitSettle)
		case <-settle.C:
			read()
		}
	}
}

// resolveAcks names the topics of the acknowledgements and of the
// partitions heartbeats said were owned (the observer may not call the
// cluster).
func (r *runner) resolveAcks(b *fakebroker.Broker) {
	r.mu.Lock()
	defer r.mu.Unlock()
	name := func(id [16]byte) string {
		if ti := b.Cluster().TopicIDInfo(id); ti != nil {
			return ti.Topic
		}
		return fmt.Sprintf("id:%x", id)
	}
	for i := range r.tr.Acks {
		r.tr.Acks[i].Rec.Topic = name(r.tr.Acks[i].topic)
	}
	for i := range r.tr.Heartbeats {
		h := &r.tr.Heartbeats[i]
		for j := range h.Owned {
			h.Owned[j].Topic = name(h.topics[int32(j)])
		}
	}
}

// produce is the background producer: Batch records to every topic every
// Every until Length.
func (r *runner) produce(ctx context.Context, at func(time.Duration)) {
	p := r.s.Produce
	if p.Batch == 0 {
		return
	}
	for next := p.Every; next < r.s.Length; next += p.Every {
		at(next)
		if r.aborted() {
			return
		}
		for _, t := range r.s.Topics {
			pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			_, err := r.env.Broker.Produce(pctx, t.Name, p.Batch, nil)
			cancel()
			if err != nil {
				r.env.Note("producer", "produce %s: %v", t.Name, err)
			}
		}
	}
}

// faults installs each fault at its time and heals it after For, or at
// Length at the latest (members closing at the end meet a healthy
// cluster; a close action inside a fault window meets the fault).
func (r *runner) faults(at func(time.Duration)) {
	type live struct {
		i   int
		end time.Duration
		h   healer
	}
	var open []live
	heal := func(upTo time.Duration) {
		slices.SortStableFunc(open, func(a, b live) int { return int(a.end - b.end) })
		for len(open) > 0 && open[0].end <= upTo {
			at(open[0].end)
			open[0].h.Heal()
			r.mu.Lock()
			r.tr.Faults[open[0].i].To = r.since()
			r.mu.Unlock()
			open = open[1:]
		}
	}
	for _, f := range r.s.Faults {
		if f.At >= r.s.Length {
			break
		}
		heal(f.At)
		at(f.At)
		if r.aborted() {
			break
		}
		h, err := r.install(f)
		fw := FaultWindow{Fault: f, From: r.since()}
		if err != nil {
			fw.Err, fw.To = err.Error(), fw.From
		}
		r.mu.Lock()
		r.tr.Faults = append(r.tr.Faults, fw)
		i := len(r.tr.Faults) - 1
		r.mu.Unlock()
		if err == nil {
			open = append(open, live{i, min(f.At+f.For, r.s.Length), h})
		}
	}
	heal(r.s.Length)
}

func (r *runner) since() time.Duration { return r.env.Since() }

// sleep waits d, or less if the timeline ends early.
func (r *runner) sleep(d time.Duration) { chans.Sleep(d, r.abort) }

// aborted reports whether the timeline ended early.
func (r *runner) aborted() bool { return chans.Closed(r.abort) }

// install installs one fault through fakebroker.
func (r *runner) install(f Fault) (healer, error) {
	h, err := r.installHandle(f)
	if err != nil || h != nil {
		return h, err
	}
	return nil, fmt.Errorf("explore: fault %s: unknown", f.Kind)
}

// installHandle installs the faults that are one fakebroker handle (nil
// healer and error for the others).
func (r *runner) installHandle(f Fault) (healer, error) {
	one := func(h *fakebroker.Handle, err error) (healer, error) {
		if err != nil {
			return nil, err
		}
		return h, nil
	}
	b := r.env.Broker
	switch f.Kind {
	case FaultError:
		return one(b.AnswerKeyWithError(kmsg.Key(f.Key), kerr.ErrorForCode(f.Code).(*kerr.Error), countOf(f.Count)))
	case FaultDelay:
		return one(b.DelayKey(kmsg.Key(f.Key), f.Delay, countOf(f.Count)))
	case FaultHold:
		return one(b.HoldKey(kmsg.Key(f.Key)))
	case FaultDrop:
		return one(b.DropConnections(f.Node))
	case FaultStop:
		return one(b.StopNode(f.Node))
	case FaultCoordinatorDown:
		return one(b.CoordinatorUnavailable(Group))
	case FaultCoordinatorMove:
		return one(b.StopNode(b.CoordinatorFor(Group)))
	case FaultBlackHole:
		return one(b.BlackHole(f.Node))
	case FaultRefuse:
		return one(b.Refuse(f.Node))
	case FaultBrokersDown:
		hs := make([]*fakebroker.Handle, 0, r.s.Brokers)
		for n := range int32(r.s.Brokers) {
			h, err := b.DropConnections(n)
			if err != nil {
				for _, h := range hs {
					h.Heal()
				}
				return nil, err
			}
			hs = append(hs, h)
		}
		return healFunc(func() {
			for _, h := range hs {
				h.Heal()
			}
		}), nil
	}
	return nil, nil
}

// healer removes an installed fault.
type healer interface{ Heal() }

// healFunc is a healer of several handles.
type healFunc func()

func (f healFunc) Heal() { f() }

// countOf maps a schedule count to fakebroker's (-1 until removed, n > 0).
func countOf(n int) int {
	if n == 0 {
		return 1
	}
	return n
}

// leaked lists goroutines of the consumers' packages still alive (after
// every member closed). In a bubble it first waits for every other
// goroutine of the bubble to block (synctest.Wait); on the wall clock it
// retries for up to 2 s.
func leaked(bubble bool) []string {
	if bubble {
		synctest.Wait()
		return ours()
	}
	var got []string
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if got = ours(); len(got) == 0 {
			return nil
		}
	}
	return got
}

// leakFrames mark a goroutine as a consumer's; skipFrames mark the
// harness's and the fake cluster's own.
var (
	leakFrames = []string{"github.com/kreactor/kreactor/", "github.com/twmb/franz-go/pkg/kgo."}
	skipFrames = []string{"kreactor/fakebroker", "kreactor/harness/explore", "kreactor/harness/sim", "franz-go/pkg/kfake", "testing.", "kreactor/wire"}
)

func ours() []string {
	return sim.Goroutines(func(g string) bool { return containsAny(g, leakFrames) && !containsAny(g, skipFrames) })
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// consumerConfig is the member's configuration.
func (r *runner) consumerConfig(m Member) consumer.Config {
	cfg := r.env.ConsumerConfig(m.Name)
	cfg.GroupID = Group
	cfg.AutoOffsetReset = "earliest"
	cfg.EnableAutoCommit = m.AutoCommit
	cfg.AutoCommitInterval = 500 * time.Millisecond
	cfg.MaxPollInterval = m.MaxPollInterval
	return cfg
}
