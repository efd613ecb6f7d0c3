package group

// Fetch.
//
// Kafka API: Fetch (key 1) v4+ (topic ids from v13, KIP-516) to each
// partition's leader; full fetch requests (no fetch session: SessionID 0,
// SessionEpoch -1). A partition with buffered records is not fetched again
// until the application takes them; the whole buffer is bounded.
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
	hasPos   bool
	reset    bool // position must come from auto.offset.reset (OFFSET_OUT_OF_RANGE)
	pos      managers.Position
	gen      uint64 // a Fetch-wide fresh value on assignment, reset or set; guards stale answers (P3)
	buffered []*kgo.Record
	paused   bool
	retry    managers.Retry // partition errors: backoff growing from retry.backoff.ms, reset by a good answer
}

// Fetch owns fetch positions, the record buffer and the consumed positions.
// Loop goroutine only.
type Fetch struct {
	cfg  FetchConfig
	meta *managers.Metadata

	parts         map[managers.TopicPartition]*fetchPartition
	order         []managers.TopicPartition // round-robin order for Take
	rr            int
	assignVersion uint64
	inFlight      map[int32]bool
	buffered      int
	consumed      map[managers.TopicPartition]managers.Position
	owed          managers.Owed // errors for the application
	sent          int
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
		consumed: map[managers.TopicPartition]managers.Position{},
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
			f.buffered -= len(p.buffered)
			delete(f.consumed, tp)
		}
	}
	f.parts = next
	f.order = slices.Clone(v.Assignment)
	f.rr = 0
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
	for _, tp := range f.order {
		if p := f.parts[tp]; !p.hasPos {
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
	for _, tp := range f.order {
		if f.parts[tp].paused {
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
		if len(p.buffered) > 0 && !p.paused {
			return true
		}
	}
	return false
}

// Take removes up to max buffered records of partitions that are not paused,
// visiting partitions round-robin and keeping per-partition order.
func (f *Fetch) Take(max int) []*kgo.Record {
	var out []*kgo.Record
	for range len(f.order) {
		if len(out) >= max {
			break
		}
		tp := f.order[f.rr%len(f.order)]
		f.rr++
		p := f.parts[tp]
		if len(p.buffered) == 0 || p.paused {
			continue
		}
		n := min(len(p.buffered), max-len(out))
		out = append(out, p.buffered[:n]...)
		clear(p.buffered[:n])
		p.buffered = p.buffered[n:]
		if len(p.buffered) == 0 {
			p.buffered = nil
		}
		f.buffered -= n
	}
	return out
}

// MarkConsumed records positions the application has received from a
// completed Poll; positions of partitions no longer assigned are ignored.
func (f *Fetch) MarkConsumed(positions map[managers.TopicPartition]managers.Position) {
	for tp, pos := range positions {
		if _, ok := f.parts[tp]; ok {
			f.consumed[tp] = pos
		}
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
	f.sync(v)
	if len(f.parts) == 0 {
		return reactor.Idle("no assignment")
	}
	var waits []reactor.Result
	byNode := map[int32][]managers.TopicPartition{}
	full := f.buffered >= f.cfg.MaxBuffered
	for _, tp := range f.order {
		p := f.parts[tp]
		switch {
		case !p.hasPos:
			waits = append(waits, reactor.Await(reactor.InputPositions, "position unknown"))
			continue
		case p.paused:
			waits = append(waits, reactor.Await(reactor.InputApplication, "partition paused"))
			continue
		case len(p.buffered) > 0 || full:
			waits = append(waits, reactor.Await(reactor.InputBufferDrained, "records buffered"))
			continue
		case tx.Now.Before(p.retry.Next()):
			waits = append(waits, reactor.RetryAt(p.retry.Next(), "partition backoff"))
			continue
		}
		leader, ok := v.Meta.Leader(tp)
		if !ok {
			v.Meta.RequestRefresh(tx)
			waits = append(waits, reactor.Await(reactor.InputMetadata, "leader unknown"))
			continue
		}
		if f.inFlight[leader] && mutant.On("fetch-in-flight-1ms-wake") {
			waits = append(waits, reactor.Await(reactor.InputResponse, "Fetch in flight").Until(tx.Now.Add(time.Millisecond)))
			continue
		}
		if f.inFlight[leader] {
			waits = append(waits, reactor.Await(reactor.InputResponse, "Fetch in flight"))
			continue
		}
		if _, ok := v.Meta.BrokerAddr(leader); !ok {
			v.Meta.RequestRefresh(tx)
			waits = append(waits, reactor.Await(reactor.InputMetadata, "leader address unknown"))
			continue
		}
		byNode[leader] = append(byNode[leader], tp)
	}
	var reqs []*reactor.Request
	for _, node := range slicesSortedKeys(byNode) {
		reqs = append(reqs, f.request(v, node, byNode[node]))
	}
	if len(reqs) > 0 {
		waits = append(waits, reactor.Ready("partitions fetchable", reqs...))
	}
	return reactor.Combine(waits...)
}

func slicesSortedKeys[V any](m map[int32]V) []int32 {
	out := make([]int32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

type fetchSent struct {
	tp  managers.TopicPartition
	gen uint64
	pos managers.Position
}

func (f *Fetch) request(v View, node int32, tps []managers.TopicPartition) *reactor.Request {
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID = -1
	req.MaxWaitMillis = int32(f.cfg.MaxWait.Milliseconds())
	req.MinBytes = f.cfg.MinBytes
	req.MaxBytes = f.cfg.MaxBytes
	if f.cfg.ReadCommitted {
		req.IsolationLevel = 1
	}
	req.SessionID = 0
	req.SessionEpoch = -1
	var sent []fetchSent
	idx := map[string]int{}
	for _, tp := range tps {
		p := f.parts[tp]
		i, ok := idx[tp.Topic]
		if !ok {
			t := kmsg.NewFetchRequestTopic()
			t.Topic = tp.Topic
			if tm, ok := v.Meta.Topic(tp.Topic); ok {
				t.TopicID = tm.ID
			}
			req.Topics = append(req.Topics, t)
			i = len(req.Topics) - 1
			idx[tp.Topic] = i
		}
		fp := kmsg.NewFetchRequestTopicPartition()
		fp.Partition = tp.Partition
		fp.FetchOffset = p.pos.Offset
		fp.CurrentLeaderEpoch = -1
		fp.LogStartOffset = -1
		fp.PartitionMaxBytes = f.cfg.PartitionMaxBytes
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, fp)
		sent = append(sent, fetchSent{tp: tp, gen: p.gen, pos: p.pos})
	}
	f.inFlight[node] = true
	f.sent++
	addr, _ := v.Meta.BrokerAddr(node)
	return &reactor.Request{
		Payload: &managers.Call{Node: node, Addr: addr, Req: req},
		OnComplete: func(tx *reactor.Tx, resp any, err error) {
			f.onResponse(tx, node, sent, resp, err)
		},
	}
}

func (f *Fetch) onResponse(tx *reactor.Tx, node int32, sent []fetchSent, resp any, err error) {
	delete(f.inFlight, node)
	var r *kmsg.FetchResponse
	if err == nil {
		r, err = managers.As[*kmsg.FetchResponse](kmsg.Fetch, node, resp)
	}
	if err == nil {
		err = kerr.ErrorForCode(r.ErrorCode)
	}
	if err != nil {
		// Whole-request failure (the table's transport or response row):
		// every partition sent backs off, metadata is refreshed when the
		// class asks.
		scope := managers.ScopeResponse
		row := managers.Classify(kmsg.Fetch, scope, err)
		for _, s := range sent {
			if p, ok := f.parts[s.tp]; ok && p.gen == s.gen {
				f.partitionFailed(tx, s.tp, p, row.Class, err)
			}
		}
		return
	}
	want := map[managers.TopicPartition]fetchSent{}
	for _, s := range sent {
		want[s.tp] = s
	}
	for i := range r.Topics {
		t := &r.Topics[i]
		topic := t.Topic
		if topic == "" {
			topic, _ = f.meta.TopicName(t.TopicID)
		}
		for j := range t.Partitions {
			rp := &t.Partitions[j]
			tp := managers.TopicPartition{Topic: topic, Partition: rp.Partition}
			s, ok := want[tp]
			p, assigned := f.parts[tp]
			if !ok || !assigned || p.gen != s.gen || p.pos != s.pos {
				continue // stale: reassigned or repositioned since sent (P3)
			}
			f.applyPartition(tx, tp, p, rp)
		}
	}
}

func (f *Fetch) applyPartition(tx *reactor.Tx, tp managers.TopicPartition, p *fetchPartition, rp *kmsg.FetchResponseTopicPartition) {
	if perr := kerr.ErrorForCode(rp.ErrorCode); perr != nil {
		f.partitionFailed(tx, tp, p, managers.Class(kmsg.Fetch, managers.ScopePartition, perr), perr)
		return
	}
	opts := kgo.ProcessFetchPartitionOpts{Offset: p.pos.Offset, Topic: tp.Topic, Partition: tp.Partition}
	if f.cfg.ReadCommitted {
		opts.IsolationLevel = kgo.ReadCommitted()
	}
	fp, next := kgo.ProcessFetchPartition(opts, rp, kgo.DefaultDecompressor(), nil)
	if fp.Err != nil && len(fp.Records) == 0 {
		// Undecodable record batches: Java's CompletedFetch raises a
		// KafkaException (corrupt record) from poll.
		f.partitionFailed(tx, tp, p, managers.ClassFailed, fp.Err)
		return
	}
	p.retry.Succeed()
	if len(fp.Records) > 0 {
		last := fp.Records[len(fp.Records)-1]
		p.buffered = append(p.buffered, fp.Records...)
		f.buffered += len(fp.Records)
		p.pos = managers.Position{Offset: last.Offset + 1, LeaderEpoch: last.LeaderEpoch}
	}
	if next > p.pos.Offset { // control batches or aborted data skipped
		p.pos.Offset = next
	}
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
	case managers.ClassRetriable, managers.ClassIgnored:
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
