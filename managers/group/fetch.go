package group

// Fetch.
//
// Kafka API: Fetch (key 1) v7+ (topic ids from v13, KIP-516) to each
// partition's leader, one in flight per broker, in a fetch session per
// broker (KIP-227, fetch_session.go): incremental fetches name only the
// partitions that changed. Answers are decoded off the loop, on the
// transport's goroutine (managers.Call.Decode), straight into the records
// Poll returns (records.go). The buffer is bounded (MaxBuffered records):
// while it holds fewer, every fetchable partition is fetched, buffered
// records or not, so the next answer is on its way while the application
// takes the last ones. On close, no new fetch; each open session is closed
// (SessionEpoch -1).
// Answers: KAFKA-20854 (nothing fetchable is an Await naming why: positions,
// metadata, a fetch in flight, a full buffer; it never wakes the
// application), KAFKA-21049 (no zero-wait path: a failed fetch backs off).

import (
	"errors"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/internal/mutant"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// FetchConfig configures the fetch manager. Field comments give the Java
// setting each matches.
type FetchConfig struct {
	MaxWait           time.Duration // fetch.max.wait.ms
	MinBytes          int32         // fetch.min.bytes
	MaxBytes          int32         // fetch.max.bytes
	PartitionMaxBytes int32         // max.partition.fetch.bytes
	MaxBuffered       int           // records buffered before fetching stops (records)
	ReadCommitted     bool          // isolation.level=read_committed
	Backoff           managers.Backoff
}

type fetchPartition struct {
	hasPos bool
	reset  bool // position must come from auto.offset.reset (OFFSET_OUT_OF_RANGE)
	pos    managers.Position
	gen    uint64 // a Fetch-wide fresh value on assignment, reset or set; guards stale answers (P3)
	// chunks are the decoded records not yet taken, oldest first (each a
	// partition answer's records, or what is left of them); n counts them.
	chunks [][]managers.Record
	n      int
	paused bool
	retry  managers.Retry // partition errors: backoff growing from retry.backoff.ms, reset by a good answer
	// sentAt is when the last Fetch covering the partition was sent; an
	// answer with nothing new for it (no records, no error, the position
	// unchanged) paces the next Fetch to emptyUntil (sentAt +
	// retry.backoff.ms) while the position is still emptyPos.
	sentAt     time.Time
	emptyUntil time.Time
	emptyPos   managers.Position
	emptyPolls uint64 // Fetch.polls when that empty answer arrived
}

// emptyLast reports whether p's last answer was empty and p has not moved
// since (empty answers are not progress).
func (p *fetchPartition) emptyLast() bool {
	return !p.emptyUntil.IsZero() && p.pos == p.emptyPos
}

// Fetch owns fetch positions, the record buffer and the consumed positions.
// Loop goroutine only.
type Fetch struct {
	cfg  FetchConfig
	meta *managers.Metadata

	parts         map[managers.TopicPartition]*fetchPartition
	order         []managers.TopicPartition // round-robin order for Take
	ordered       []*fetchPartition         // parts[order[i]], set with order (no map look-up per poll)
	rr            int
	assignVersion uint64
	inFlight      map[int32]bool
	sessions      map[int32]*fetchSession // KIP-227, by broker
	decompressor  kgo.Decompressor        // franz-go's, for compressed record batches
	buffered      int
	consumed      map[managers.TopicPartition]managers.Position
	handed        map[managers.TopicPartition]managers.Position // after the last record Take returned (Handed)
	owed          managers.Owed                                 // errors for the application
	sent          int
	polls         uint64 // application Polls seen (Polled)
	waitPoll      bool   // WaitPollAfterEmpty was called
	afterAnswer   bool   // SendAfterAnswer was called
	took          bool   // Take handed records out since the last poll
	holding       bool   // no Fetch in step holdStep: its Poll answer took records
	holdStep      uint64
	gens          uint64 // last generation handed out; never reused, so an answer for
	// a revoked and reassigned partition cannot match its new generation
}

// NewFetch returns the fetch manager.
func NewFetch(cfg FetchConfig, meta *managers.Metadata) *Fetch {
	return &Fetch{
		cfg:      cfg,
		meta:     meta,
		parts:    map[managers.TopicPartition]*fetchPartition{},
		inFlight: map[int32]bool{},
		sessions: map[int32]*fetchSession{},
		consumed: map[managers.TopicPartition]managers.Position{},
		handed:   map[managers.TopicPartition]managers.Position{},

		decompressor: kgo.DefaultDecompressor(),
	}
}

// nextGen returns a generation no partition has had before.
func (f *Fetch) nextGen() uint64 {
	f.gens++
	return f.gens
}

// Name is "fetch".
func (f *Fetch) Name() string { return "fetch" }

// Buffered is the number of records buffered for the application.
func (f *Fetch) Buffered() int { return f.buffered }

// Sent is the number of Fetch requests sent so far.
func (f *Fetch) Sent() int { return f.sent }

// sync adopts a new assignment: kept partitions keep their positions and
// buffers, new ones need a position, removed ones are dropped.
func (f *Fetch) sync(v View) {
	if v.AssignmentVersion == f.assignVersion && len(v.Assignment) == len(f.parts) {
		return
	}
	f.assignVersion = v.AssignmentVersion
	next := make(map[managers.TopicPartition]*fetchPartition, len(v.Assignment))
	for _, tp := range v.Assignment {
		if p, ok := f.parts[tp]; ok {
			next[tp] = p
			continue
		}
		next[tp] = &fetchPartition{gen: f.nextGen(), retry: managers.Retry{Backoff: f.cfg.Backoff}}
	}
	for tp, p := range f.parts {
		if _, ok := next[tp]; !ok {
			f.buffered -= p.n
			delete(f.consumed, tp)
			delete(f.handed, tp)
		}
	}
	f.parts = next
	f.order = slices.Clone(v.Assignment)
	f.ordered = make([]*fetchPartition, len(f.order))
	for i, tp := range f.order {
		f.ordered[i] = next[tp]
	}
	f.rr = 0
}

// SyncAssignment takes assignment (at version, View.AssignmentVersion) now
// rather than at the next poll round, so an application event applied in
// the same step as the change (a seek or a pause right after assign, both
// queued while a step ran) finds the partitions assigned, as Java's seek
// after assign does (its application thread's SubscriptionState).
func (f *Fetch) SyncAssignment(assignment []managers.TopicPartition, version uint64) {
	f.sync(View{Assignment: assignment, AssignmentVersion: version})
}

// PositionNeed is a partition without a fetch position.
type PositionNeed struct {
	TP    managers.TopicPartition
	Gen   uint64
	Reset bool // skip committed offsets: apply auto.offset.reset
}

// NeedingPosition lists partitions that need a position, in assignment
// order.
func (f *Fetch) NeedingPosition() []PositionNeed {
	var out []PositionNeed
	for i, tp := range f.order {
		if p := f.ordered[i]; !p.hasPos {
			out = append(out, PositionNeed{TP: tp, Gen: p.gen, Reset: p.reset})
		}
	}
	return out
}

// SetPosition sets tp's fetch position if tp is still assigned and still at
// generation gen (a stale answer is ignored, P3). It reports whether the
// position was applied.
func (f *Fetch) SetPosition(tp managers.TopicPartition, pos managers.Position, gen uint64) bool {
	p, ok := f.parts[tp]
	if !ok || p.gen != gen || p.hasPos {
		return false
	}
	p.pos, p.hasPos, p.reset = pos, true, false
	p.gen = f.nextGen()
	if _, ok := f.consumed[tp]; !ok {
		f.consumed[tp] = pos
	}
	return true
}

// ReportError records a position error (e.g. no offset with
// auto.offset.reset=none) for the application.
func (f *Fetch) ReportError(err error) { f.owed.Report(err) }

// TakeErrors returns and clears the errors for the application.
func (f *Fetch) TakeErrors() []error { return f.owed.Take() }

// HasErrors reports whether TakeErrors would return any.
func (f *Fetch) HasErrors() bool { return f.owed.Len() > 0 }

// ErrNotAssigned is returned by Pause and Resume for a partition that is not
// assigned (Java's IllegalStateException).
var ErrNotAssigned = errors.New("partition not assigned")

// Pause stops fetching tps and withholds their buffered records (Java's
// pause). Errors: a *PartitionError wrapping ErrNotAssigned for the first
// partition not assigned; nothing is paused then.
func (f *Fetch) Pause(tps []managers.TopicPartition) error { return f.setPaused(tps, true) }

// Resume undoes Pause. Errors as Pause.
func (f *Fetch) Resume(tps []managers.TopicPartition) error { return f.setPaused(tps, false) }

func (f *Fetch) setPaused(tps []managers.TopicPartition, paused bool) error {
	for _, tp := range tps {
		if _, ok := f.parts[tp]; !ok {
			return &PartitionError{TP: tp, Err: ErrNotAssigned}
		}
	}
	for _, tp := range tps {
		f.parts[tp].paused = paused
	}
	return nil
}

// Paused returns the paused partitions in assignment order.
func (f *Fetch) Paused() []managers.TopicPartition {
	var out []managers.TopicPartition
	for i, tp := range f.order {
		if f.ordered[i].paused {
			out = append(out, tp)
		}
	}
	return out
}

// Fetchable reports whether any buffered record can be returned now (its
// partition is not paused).
func (f *Fetch) Fetchable() bool {
	if f.buffered == 0 {
		return false
	}
	for _, p := range f.parts {
		if p.n > 0 && !p.paused {
			return true
		}
	}
	return false
}

// Take removes up to max buffered records of partitions that are not paused,
// visiting partitions round-robin and keeping per-partition order, and
// returns them with each partition's position after its last record taken
// (nil when none). Records of one partition answer are returned without a
// copy (the slice's capacity ends at its length, so appending to it copies).
func (f *Fetch) Take(max int) ([]managers.Record, map[managers.TopicPartition]managers.Position) {
	var (
		out     []managers.Record
		aliased bool // out is a chunk's memory: copy before appending
		pos     map[managers.TopicPartition]managers.Position
	)
	for range len(f.order) {
		if len(out) >= max {
			break
		}
		i := f.rr % len(f.order)
		tp, p := f.order[i], f.ordered[i]
		f.rr++
		if p.n == 0 || p.paused {
			continue
		}
		for p.n > 0 && len(out) < max {
			c := p.chunks[0]
			k := min(len(c), max-len(out))
			switch {
			case out == nil:
				out, aliased = c[:k:k], true
			case aliased:
				// Sized by what can still be taken, not by max: with
				// max.poll.records 500 a slice for max is about 68 KB,
				// allocated and zeroed for two records of two partitions
				// (the record step at low rates).
				grown := make([]managers.Record, len(out), min(max, len(out)+f.buffered))
				copy(grown, out)
				out, aliased = append(grown, c[:k]...), false
			default:
				out = append(out, c[:k]...)
			}
			if k == len(c) {
				p.chunks[0] = nil
				p.chunks = p.chunks[1:]
			} else {
				p.chunks[0] = c[k:]
			}
			p.n -= k
			f.buffered -= k
		}
		if pos == nil {
			pos = make(map[managers.TopicPartition]managers.Position, 1)
		}
		f.took = true
		last := &out[len(out)-1]
		pos[tp] = managers.Position{Offset: last.Offset + 1, LeaderEpoch: last.LeaderEpoch}
		f.handed[tp] = pos[tp]
		if p.n == 0 {
			p.chunks = nil
		}
	}
	return out, pos
}

// MarkConsumed records positions the application has received from a
// completed Poll. A position counts only where this assignment of the
// partition handed records up to it (Take, since the partition was last
// assigned or sought) and it moves the consumed position forward: the
// application's record of what it received spans every earlier assignment
// of a partition, and a position from one of those must not replace the
// one this assignment started from (a partition revoked at 84, committed
// at 133 by its next owner and assigned back would commit 84: the
// committed offset going backwards). Positions of partitions no longer
// assigned are ignored.
func (f *Fetch) MarkConsumed(positions map[managers.TopicPartition]managers.Position) {
	for tp, pos := range positions {
		if _, ok := f.parts[tp]; !ok {
			continue
		}
		if h, ok := f.handed[tp]; !ok || pos.Offset > h.Offset {
			continue // not handed by this assignment: an earlier one's
		}
		if c, ok := f.consumed[tp]; ok && pos.Offset < c.Offset {
			continue
		}
		f.consumed[tp] = pos
	}
}

// Consumed returns a copy of the consumed positions (implements
// ConsumedSource).
func (f *Fetch) Consumed() map[managers.TopicPartition]managers.Position {
	out := make(map[managers.TopicPartition]managers.Position, len(f.consumed))
	for tp, pos := range f.consumed {
		out[tp] = pos
	}
	return out
}

// Poll builds one Fetch per leader for the fetchable partitions and says
// precisely why the others cannot be fetched.
func (f *Fetch) Poll(tx *reactor.Tx, v View) reactor.Result {
	if v.Closing {
		return f.pollClosing(v)
	}
	f.sync(v)
	if len(f.parts) == 0 {
		return reactor.Idle("no assignment")
	}
	// One result per reason, not per partition (a steady-state step
	// allocates nothing here), and the fetchable partitions by leader in
	// leader order (most often one broker).
	var (
		why      [fetchReasons]reactor.Result
		fetching []nodeFetch
	)
	full := f.buffered >= f.cfg.MaxBuffered
	for i, tp := range f.order {
		p := f.ordered[i]
		switch {
		case !p.hasPos:
			why[waitPosition] = reactor.Await(reactor.InputPositions, "position unknown")
			continue
		case p.paused:
			why[waitPaused] = reactor.Await(reactor.InputApplication, "partition paused")
			continue
		case full:
			why[waitBuffered] = reactor.Await(reactor.InputBufferDrained, "records buffered")
			continue
		case tx.Now.Before(p.retry.Next()):
			if leader, ok := v.Meta.Leader(tp); ok && f.inFlight[leader] {
				// The partition cannot go before its leader's Fetch in
				// flight is answered, and that answer makes the loop step
				// anyway: a wake at the backoff's end would change nothing
				// (a spurious wakeup; measured on
				// fault-black-hole-coordinator under load).
				why[waitInFlight] = reactor.Await(reactor.InputResponse, "Fetch in flight")
				continue
			}
			if at := p.retry.Next(); why[waitBackoff].Kind == 0 || at.Before(why[waitBackoff].At) {
				why[waitBackoff] = reactor.RetryAt(at, "partition backoff")
			}
			continue
		}
		leader, ok := v.Meta.Leader(tp)
		if !ok {
			v.Meta.RequestRefresh(tx)
			why[waitLeader] = reactor.Await(reactor.InputMetadata, "leader unknown")
			continue
		}
		if f.inFlight[leader] && mutant.On("fetch-in-flight-1ms-wake") {
			why[waitInFlight] = reactor.Await(reactor.InputResponse, "Fetch in flight").Until(tx.Now.Add(time.Millisecond))
			continue
		}
		if f.inFlight[leader] {
			why[waitInFlight] = reactor.Await(reactor.InputResponse, "Fetch in flight")
			continue
		}
		if _, ok := v.Meta.BrokerAddr(leader); !ok {
			v.Meta.RequestRefresh(tx)
			why[waitAddress] = reactor.Await(reactor.InputMetadata, "leader address unknown")
			continue
		}
		i := slices.IndexFunc(fetching, func(n nodeFetch) bool { return n.node == leader })
		if i < 0 {
			i = len(fetching)
			fetching = append(fetching, nodeFetch{node: leader})
		}
		fetching[i].tps = append(fetching[i].tps, tp)
	}
	fetching = f.pace(tx.Now, v.Polling, fetching, &why[waitEmpty])
	if f.took {
		f.took, f.holding, f.holdStep = false, true, tx.Step
	}
	if f.holding && f.holdStep != tx.Step {
		f.holding = false
	}
	if len(fetching) > 0 && f.holding && f.afterAnswer {
		why[waitAnswer] = reactor.Await(reactor.InputPublication, "records taken by this step's Poll: the next Fetch follows its answer")
		fetching = nil
	}
	if len(fetching) > 0 {
		slices.SortFunc(fetching, func(a, b nodeFetch) int { return int(a.node) - int(b.node) })
		reqs := make([]*reactor.Request, len(fetching))
		for i, n := range fetching {
			reqs[i] = f.request(tx.Now, v, n.node, n.tps)
		}
		why[readyFetch] = reactor.Ready("partitions fetchable", reqs...)
	}
	parts := why[:0]
	for _, r := range why {
		if r.Kind != 0 {
			parts = append(parts, r)
		}
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return reactor.Combine(parts...)
}

// The reasons a fetch manager result gives, one result each.
const (
	readyFetch = iota
	waitPosition
	waitPaused
	waitBuffered
	waitBackoff
	waitLeader
	waitInFlight
	waitAddress
	waitEmpty
	waitAnswer
	fetchReasons
)

// pace holds back the Fetch to a leader every one of whose partitions had
// an empty last answer (and has not moved since): it goes no sooner than
// retry.backoff.ms after the Fetch so answered was sent (send to send), and
// with WaitPollAfterEmpty only once the application has polled since that
// answer or is polling now. why is set to the earliest such wait. A leader
// with any partition due for another reason is fetched in full, so the
// fetch session keeps its partitions. Java's FetchRequestManager creates
// fetches only from the application's poll events (a response never sends
// the next Fetch by itself) and, with none in flight, wakes every
// retry.backoff.ms (maximumTimeToWait): with fetch.max.wait.ms = 0 on a
// partition with nothing new and no Poll, a handful of Fetches, not one
// per round trip.
func (f *Fetch) pace(now time.Time, polling bool, fetching []nodeFetch, why *reactor.Result) []nodeFetch {
	kept := fetching[:0]
	for _, n := range fetching {
		var until time.Time
		idle := true // no Poll since any of the empty answers
		paced := true
		for _, tp := range n.tps {
			p := f.parts[tp]
			if !p.emptyLast() {
				paced = false
				break
			}
			if until.IsZero() || p.emptyUntil.Before(until) {
				until = p.emptyUntil
			}
			idle = idle && p.emptyPolls == f.polls
		}
		var wait reactor.Result
		switch {
		case !paced:
		case now.Before(until):
			wait = reactor.RetryAt(until, "last Fetch answer empty: paced to retry.backoff.ms")
		case f.waitPoll && idle && !polling:
			wait = reactor.Await(reactor.InputApplication, "last Fetch answer empty: next Fetch at the next Poll")
		}
		if wait.Kind == 0 {
			kept = append(kept, n)
			continue
		}
		switch {
		case why.Kind == 0, wait.Kind == reactor.KindRetryAt && (why.Kind != reactor.KindRetryAt || wait.At.Before(why.At)):
			*why = wait
		}
	}
	return kept
}

// WaitPollAfterEmpty makes a leader whose every partition's last answer
// was empty wait for the application's next Poll before it is fetched
// again (Java fetches only on poll events). For a consumer that reports its
// Polls (Polled); call it before the manager is first polled.
func (f *Fetch) WaitPollAfterEmpty() { f.waitPoll = true }

// SendAfterAnswer makes the Fetches of a step whose Poll answer took
// records wait for that step's publication (reactor.InputPublication): the
// answer is released before the next Fetch is built and written, and the
// Fetch goes out in the step right after. Java's AsyncKafkaConsumer.poll
// does the same: the application thread collects the fetch, then
// sendPrefetches wakes the network thread to build the next one; kgo's
// source sends its next Fetch once a poll has drained the buffer. For a
// consumer whose loop publishes before it runs effects (a Loop); call it
// before the manager is first polled.
func (f *Fetch) SendAfterAnswer() { f.afterAnswer = true }

// Polled records an application Poll (Java's poll event): a leader held
// back after empty answers may be fetched again.
func (f *Fetch) Polled() { f.polls++ }

// nodeFetch is the partitions to fetch from one leader.
type nodeFetch struct {
	node int32
	tps  []managers.TopicPartition
}

// pollClosing sends no new Fetch and closes each open fetch session with a
// final request (SessionEpoch -1), as Java's FetchRequestManager does on
// close, also while a Fetch is in flight to the broker (the broker answers
// it first). Best effort, as Java's: the close does not wait for the
// answers, and a broker that never sees the request expires the session.
func (f *Fetch) pollClosing(v View) reactor.Result {
	var reqs []*reactor.Request
	for _, node := range slicesSortedKeys(f.sessions) {
		s := f.sessions[node]
		delete(f.sessions, node)
		addr, ok := v.Meta.BrokerAddr(node)
		if s.id == 0 || !ok {
			continue
		}
		f.sent++
		reqs = append(reqs, &reactor.Request{
			Payload:    &managers.Call{Node: node, Addr: addr, Req: s.closeRequest(int32(f.cfg.MaxWait.Milliseconds()))},
			OnComplete: func(*reactor.Tx, any, error) {}, // nothing to apply: the session is gone either way
		})
	}
	if len(reqs) > 0 {
		return reactor.Ready("closing: fetch sessions closed", reqs...)
	}
	return reactor.Idle("closing: no fetching")
}

func slicesSortedKeys[V any](m map[int32]V) []int32 {
	out := make([]int32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// fetchSent is a partition a Fetch covers: named or held by its session.
type fetchSent struct {
	tp      managers.TopicPartition
	topicID [16]byte
	gen     uint64
	pos     managers.Position
}

// fetchAnswer is a Fetch response with its partitions decoded (off the
// loop, by the request's Decode).
type fetchAnswer struct {
	resp    *kmsg.FetchResponse
	decoded [][]decoded // [topic][partition] as in resp; only partitions sent and without error
}

func (f *Fetch) request(now time.Time, v View, node int32, tps []managers.TopicPartition) *reactor.Request {
	s := f.sessions[node]
	if s == nil {
		s = &fetchSession{}
		f.sessions[node] = s
	}
	sent := make([]fetchSent, len(tps))
	parts := make(map[managers.TopicPartition]sessionPart, len(tps))
	for i, tp := range tps {
		p := f.parts[tp]
		var id [16]byte
		if tm, ok := v.Meta.Topic(tp.Topic); ok {
			id = tm.ID
		}
		sent[i] = fetchSent{tp: tp, topicID: id, gen: p.gen, pos: p.pos}
		p.sentAt = now
		parts[tp] = sessionPart{offset: p.pos.Offset, leaderEpoch: -1, maxBytes: f.cfg.PartitionMaxBytes, topicID: id}
	}
	sf := s.plan(tps, parts)

	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID = -1
	req.MaxWaitMillis = int32(f.cfg.MaxWait.Milliseconds())
	req.MinBytes = f.cfg.MinBytes
	req.MaxBytes = f.cfg.MaxBytes
	if f.cfg.ReadCommitted {
		req.IsolationLevel = 1
	}
	req.SessionID, req.SessionEpoch = sf.id, sf.epoch
	idx := map[string]int{}
	for _, tp := range sf.send {
		sp := parts[tp]
		i, ok := idx[tp.Topic]
		if !ok {
			t := kmsg.NewFetchRequestTopic()
			t.Topic, t.TopicID = tp.Topic, sp.topicID
			req.Topics = append(req.Topics, t)
			i = len(req.Topics) - 1
			idx[tp.Topic] = i
		}
		fp := kmsg.NewFetchRequestTopicPartition()
		fp.Partition = tp.Partition
		fp.FetchOffset = sp.offset
		fp.CurrentLeaderEpoch = sp.leaderEpoch
		fp.LogStartOffset = -1
		fp.PartitionMaxBytes = sp.maxBytes
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, fp)
	}
	forgot := map[string]int{}
	for _, tp := range sf.forget {
		i, ok := forgot[tp.Topic]
		if !ok {
			t := kmsg.NewFetchRequestForgottenTopic()
			t.Topic, t.TopicID = tp.Topic, s.parts[tp].topicID
			req.ForgottenTopics = append(req.ForgottenTopics, t)
			i = len(req.ForgottenTopics) - 1
			forgot[tp.Topic] = i
		}
		req.ForgottenTopics[i].Partitions = append(req.ForgottenTopics[i].Partitions, tp.Partition)
	}
	f.inFlight[node] = true
	f.sent++
	addr, _ := v.Meta.BrokerAddr(node)
	readCommitted, dec := f.cfg.ReadCommitted, f.decompressor
	return &reactor.Request{
		Payload: &managers.Call{Node: node, Addr: addr, Req: req,
			Decode: func(resp kmsg.Response) any { return decodeFetch(resp, sent, readCommitted, dec) }},
		OnComplete: func(tx *reactor.Tx, resp any, err error) {
			f.onResponse(tx, node, s, sf, sent, resp, err)
		},
	}
}

// decodeFetch decodes the records of every partition of resp that the
// Fetch covers (sent) and that carries no error. It reads nothing but its
// arguments: it runs on the transport's goroutine. A response of another
// type is returned as it is (onResponse reports it).
func decodeFetch(resp kmsg.Response, sent []fetchSent, readCommitted bool, dec kgo.Decompressor) any {
	r, ok := resp.(*kmsg.FetchResponse)
	if !ok || r.ErrorCode != 0 {
		return resp
	}
	a := &fetchAnswer{resp: r, decoded: make([][]decoded, len(r.Topics))}
	for i := range r.Topics {
		t := &r.Topics[i]
		a.decoded[i] = make([]decoded, len(t.Partitions))
		for j := range t.Partitions {
			rp := &t.Partitions[j]
			k := findSent(sent, t.Topic, t.TopicID, rp.Partition)
			if k < 0 || rp.ErrorCode != 0 {
				continue
			}
			a.decoded[i][j] = decodePartition(decodeOpts{topic: sent[k].tp.Topic, partition: rp.Partition, offset: sent[k].pos.Offset,
				readCommitted: readCommitted, decompressor: dec}, rp)
		}
	}
	return a
}

// findSent is the index in sent of the partition a response partition
// answers, named by topic (Fetch < v13) or topic id (v13+); -1 if none.
func findSent(sent []fetchSent, topic string, id [16]byte, partition int32) int {
	for k := range sent {
		s := &sent[k]
		if s.tp.Partition == partition && ((topic != "" && s.tp.Topic == topic) || (topic == "" && s.topicID == id)) {
			return k
		}
	}
	return -1
}

func (f *Fetch) onResponse(tx *reactor.Tx, node int32, s *fetchSession, sf sessionFetch, sent []fetchSent, resp any, err error) {
	delete(f.inFlight, node)
	if f.sessions[node] != s {
		s = &fetchSession{} // the session was closed meanwhile: apply to a throwaway
	}
	a, _ := resp.(*fetchAnswer)
	if a == nil && err == nil {
		// A transport that does not run Call.Decode (tests): decode here.
		var r *kmsg.FetchResponse
		if r, err = managers.As[*kmsg.FetchResponse](kmsg.Fetch, node, resp); err == nil {
			a, _ = decodeFetch(r, sent, f.cfg.ReadCommitted, f.decompressor).(*fetchAnswer)
			if a == nil {
				a = &fetchAnswer{resp: r}
			}
		}
	}
	var code int16
	if err == nil {
		code = a.resp.ErrorCode
		err = kerr.ErrorForCode(code)
	}
	if err != nil {
		// Whole-request failure (the table's transport or response row):
		// the session is reset; every partition sent backs off, or for a
		// first session reset is fetched again at once (in full);
		// metadata is refreshed when the class asks.
		s.failed(code)
		row := managers.Classify(kmsg.Fetch, managers.ScopeResponse, err)
		for _, st := range sent {
			if p, ok := f.parts[st.tp]; ok && p.gen == st.gen {
				if row.Class == managers.ClassSessionReset && s.resets <= 1 {
					continue
				}
				f.partitionFailed(tx, st.tp, p, row.Class, err)
			}
		}
		return
	}
	s.accepted(sf, a.resp.SessionID)
	answered := make([]bool, len(sent))
	for i := range a.resp.Topics {
		t := &a.resp.Topics[i]
		for j := range t.Partitions {
			rp := &t.Partitions[j]
			k := findSent(sent, t.Topic, t.TopicID, rp.Partition)
			if k < 0 {
				continue
			}
			answered[k] = true
			st := sent[k]
			p, assigned := f.parts[st.tp]
			if !assigned || ((p.gen != st.gen || p.pos != st.pos) && !mutant.On("fetch-stale-answer-applied")) {
				continue // stale: reassigned or repositioned since sent (P3)
			}
			var d decoded
			if i < len(a.decoded) && j < len(a.decoded[i]) {
				d = a.decoded[i][j]
			}
			f.applyPartition(tx, st.tp, p, rp, d)
		}
	}
	// A partition the answer leaves out (an incremental answer names only
	// partitions with news) had no error either.
	for k, st := range sent {
		if p, ok := f.parts[st.tp]; ok && !answered[k] && p.gen == st.gen {
			p.retry.Succeed()
			f.answeredEmpty(p)
		}
	}
}

func (f *Fetch) applyPartition(tx *reactor.Tx, tp managers.TopicPartition, p *fetchPartition, rp *kmsg.FetchResponseTopicPartition, d decoded) {
	if perr := kerr.ErrorForCode(rp.ErrorCode); perr != nil {
		f.partitionFailed(tx, tp, p, managers.Class(kmsg.Fetch, managers.ScopePartition, perr), perr)
		return
	}
	if d.err != nil && len(d.records) == 0 {
		// Undecodable record batches: Java's CompletedFetch raises a
		// KafkaException (corrupt record) from poll.
		f.partitionFailed(tx, tp, p, managers.ClassFailed, d.err)
		return
	}
	p.retry.Succeed()
	if len(d.records) == 0 && d.next <= p.pos.Offset {
		f.answeredEmpty(p)
	}
	if n := len(d.records); n > 0 {
		last := &d.records[n-1]
		p.chunks = append(p.chunks, d.records)
		p.n += n
		f.buffered += n
		p.pos = managers.Position{Offset: last.Offset + 1, LeaderEpoch: last.LeaderEpoch}
	}
	if d.next > p.pos.Offset { // control batches or aborted data skipped
		p.pos.Offset = d.next
	}
}

// answeredEmpty paces p after an answer with nothing new for it: its next
// Fetch goes no sooner than retry.backoff.ms after the one just answered
// was sent.
func (f *Fetch) answeredEmpty(p *fetchPartition) {
	p.emptyUntil, p.emptyPos, p.emptyPolls = p.sentAt.Add(f.cfg.Backoff.Initial), p.pos, f.polls
}

// partitionFailed applies a partition's error by its class: the partition
// backs off (growing until a good answer), metadata is refreshed, the
// position is reset, or the error goes to the application.
func (f *Fetch) partitionFailed(tx *reactor.Tx, tp managers.TopicPartition, p *fetchPartition, class managers.ErrorClass, err error) {
	switch class {
	case managers.ClassOffsetReset:
		p.hasPos, p.reset = false, true
		p.gen = f.nextGen()
		return
	case managers.ClassMetadata:
		f.meta.RequestRefresh(tx)
	case managers.ClassRetriable, managers.ClassIgnored, managers.ClassSessionReset:
	default: // authorization, failed: raised from Poll
		f.owed.Report(&PartitionError{TP: tp, Err: err})
	}
	p.retry.Fail(tx.Now, err)
}

// PartitionError is a fetch error for one partition delivered to the
// application by Poll.
type PartitionError struct {
	TP  managers.TopicPartition
	Err error
}

func (e *PartitionError) Error() string { return "fetch " + e.TP.String() + ": " + e.Err.Error() }
func (e *PartitionError) Unwrap() error { return e.Err }
