package group

// Offsets: initial fetch positions.
//
// Kafka APIs: OffsetFetch (key 9) v8+ (Groups array; v9+ with member id and
// member epoch, KIP-848) to the group coordinator for committed offsets, then
// ListOffsets (key 2) to each partition's leader for partitions with no
// committed offset, with timestamp -2 (earliest) or -1 (latest) per
// auto.offset.reset.

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// Offset reset policies (auto.offset.reset).
const (
	ResetEarliest = "earliest"
	ResetLatest   = "latest"
	ResetNone     = "none"
)

type offsetState struct {
	gen            uint64
	committedTried bool // OffsetFetch answered "no committed offset", or gave up at its deadline
	failed         bool // reported to the application (reset=none)
	// since is when the current look-up (committed offset, then
	// auto.offset.reset's ListOffsets) started: it ends by
	// default.api.timeout.ms from then.
	since time.Time
}

// Offsets finds the initial position of each partition that has none.
// Loop goroutine only.
type Offsets struct {
	reset string
	coord *managers.Coordinator
	meta  *managers.Metadata
	fetch *Fetch

	state         map[managers.TopicPartition]*offsetState
	fetchInFlight bool
	listInFlight  map[int32]bool
	retry         managers.Retry
	apiTimeout    time.Duration // default.api.timeout.ms (SetAPITimeout); 0: no deadline

	// Committed look-ups (committed.go), in the order asked; the head's
	// OffsetFetch is the one in flight.
	lookups     []*lookup
	lookupRetry managers.Retry
}

// SetAPITimeout sets default.api.timeout.ms (d > 0): a partition's
// committed offset look-up that has not succeeded by then gives up and
// auto.offset.reset decides (Java's committed-offsets fetch expires with
// the event's deadline), and its ListOffsets retries that have not
// succeeded by then are reported to the application once
// (managers.ErrRetryDeadline) and start a new deadline. Without it, no deadline.
func (o *Offsets) SetAPITimeout(d time.Duration) { o.apiTimeout = d }

// NewOffsets returns the offsets manager; positions go to fetch.
func NewOffsets(reset string, backoff managers.Backoff, coord *managers.Coordinator, meta *managers.Metadata, fetch *Fetch) *Offsets {
	return &Offsets{reset: reset, retry: managers.Retry{Backoff: backoff}, coord: coord, meta: meta, fetch: fetch,
		state: map[managers.TopicPartition]*offsetState{}, listInFlight: map[int32]bool{}, lookupRetry: managers.Retry{Backoff: backoff}}
}

// Name is "offsets".
func (o *Offsets) Name() string { return "offsets" }

// NeedsCoordinator reports whether committed offsets are still to be
// fetched, for positions or for a committed look-up.
func (o *Offsets) NeedsCoordinator(v View) bool {
	if v.GroupID == "" {
		return false
	}
	if len(o.lookups) > 0 {
		return true
	}
	for _, n := range o.fetch.NeedingPosition() {
		if st, ok := o.state[n.TP]; !n.Reset && (!ok || !st.committedTried) {
			return true
		}
	}
	return false
}

// Poll answers what the offsets manager can do now: the positions still to
// find, and the committed look-ups (committed.go).
func (o *Offsets) Poll(tx *reactor.Tx, v View) reactor.Result {
	res := o.pollPositions(tx, v)
	if len(o.lookups) == 0 {
		return res
	}
	return reactor.Combine(res, o.pollLookups(tx, v))
}

// pollPositions answers for the partitions without a position.
func (o *Offsets) pollPositions(tx *reactor.Tx, v View) reactor.Result {
	needs := o.fetch.NeedingPosition()
	if len(needs) == 0 {
		if len(o.state) > 0 {
			clear(o.state)
		}
		return reactor.Idle("every partition has a position")
	}
	live := map[managers.TopicPartition]bool{}
	var committed, reset []PositionNeed
	for _, n := range needs {
		live[n.TP] = true
		st, ok := o.state[n.TP]
		if !ok || st.gen != n.Gen {
			st = &offsetState{gen: n.Gen, since: tx.Now}
			o.state[n.TP] = st
		}
		o.expire(tx, n, st, v)
		switch {
		case st.failed:
		case n.Reset || v.GroupID == "" || st.committedTried:
			reset = append(reset, n)
		default:
			committed = append(committed, n)
		}
	}
	for tp := range o.state {
		if !live[tp] {
			delete(o.state, tp)
		}
	}
	var parts []reactor.Result
	if len(committed) > 0 {
		parts = append(parts, o.untilDeadline(o.pollCommitted(tx, v, committed), committed))
	}
	if len(reset) > 0 {
		parts = append(parts, o.untilDeadline(o.pollReset(tx, v, reset), reset))
	}
	if len(parts) == 0 {
		return reactor.Await(reactor.InputApplication, "partitions without offsets (auto.offset.reset=none)")
	}
	return reactor.Combine(parts...)
}

// expire ends a look-up past default.api.timeout.ms: a committed offset
// still not found gives way to auto.offset.reset (the partition delivers
// instead of waiting forever on, say, UNKNOWN_TOPIC_ID); ListOffsets
// retries still failing are reported once and get a new deadline.
func (o *Offsets) expire(tx *reactor.Tx, n PositionNeed, st *offsetState, v View) {
	if o.apiTimeout <= 0 || st.failed || tx.Now.Before(st.since.Add(o.apiTimeout)) {
		return
	}
	st.since = tx.Now
	if !n.Reset && v.GroupID != "" && !st.committedTried {
		st.committedTried = true
		o.retry.Succeed() // the reset path starts on its own schedule
		return
	}
	err := fmt.Errorf("ListOffsets (auto.offset.reset=%s) after %s: %w", o.reset, o.apiTimeout, managers.ErrRetryDeadline)
	if last := o.retry.Err(); last != nil {
		err = fmt.Errorf("%w (last: %w)", err, last)
	}
	o.fetch.ReportError(&PartitionError{TP: n.TP, Err: err})
}

// untilDeadline bounds a wait of the look-ups of needs by their earliest
// default.api.timeout.ms deadline, so expire runs then.
func (o *Offsets) untilDeadline(res reactor.Result, needs []PositionNeed) reactor.Result {
	if o.apiTimeout <= 0 || (res.Kind != reactor.KindAwait && res.Kind != reactor.KindRetryAt) {
		return res
	}
	var first time.Time
	for _, n := range needs {
		if st := o.state[n.TP]; st != nil {
			if d := st.since.Add(o.apiTimeout); first.IsZero() || d.Before(first) {
				first = d
			}
		}
	}
	if first.IsZero() {
		return res
	}
	if res.Kind == reactor.KindRetryAt {
		if first.Before(res.At) {
			res.At = first
		}
		return res
	}
	if res.At.IsZero() || first.Before(res.At) {
		res.At = first
	}
	return res
}

func (o *Offsets) pollCommitted(tx *reactor.Tx, v View, needs []PositionNeed) reactor.Result {
	switch {
	case o.fetchInFlight:
		return reactor.Await(reactor.InputResponse, "OffsetFetch in flight")
	case !v.CoordinatorKnown:
		return reactor.Await(reactor.InputCoordinator, "committed offsets needed, coordinator unknown")
	case v.InGroup && v.MemberEpoch <= 0:
		return reactor.Await(reactor.InputMembership, "committed offsets needed, member has no epoch")
	case tx.Now.Before(o.retry.Next()):
		return reactor.RetryAt(o.retry.Next(), "OffsetFetch backoff")
	}
	tps := make([]managers.TopicPartition, len(needs))
	gens := map[managers.TopicPartition]uint64{}
	for i, n := range needs {
		tps[i] = n.TP
		gens[n.TP] = n.Gen
	}
	req := offsetFetchRequest(v, tps)
	o.fetchInFlight = true
	node := v.Coordinator.Node
	return reactor.Ready("committed offsets needed", &reactor.Request{
		Payload: &managers.Call{Node: node, Addr: v.Coordinator.Addr, Req: req},
		OnComplete: func(tx *reactor.Tx, resp any, err error) {
			o.onOffsetFetch(tx, node, v.GroupID, gens, resp, err)
		},
	})
}

// offsetFetchRequest is the OffsetFetch (v8+: one group, the member's
// identity, RequireStable) for the committed offsets of tps, by topic in
// name order (v10 names topics by id, from v's metadata) with the
// legacy per-topic list filled too for older versions.
func offsetFetchRequest(v View, tps []managers.TopicPartition) *kmsg.OffsetFetchRequest {
	req := kmsg.NewPtrOffsetFetchRequest()
	g := kmsg.NewOffsetFetchRequestGroup()
	g.Group = v.GroupID
	memberID, epoch := v.CommitIdentity()
	if memberID != "" {
		g.MemberID = kmsg.StringPtr(memberID)
	}
	g.MemberEpoch = epoch
	req.Group = v.GroupID
	req.RequireStable = true
	byTopic := map[string][]int32{}
	for _, tp := range tps {
		byTopic[tp.Topic] = append(byTopic[tp.Topic], tp.Partition)
	}
	for _, topic := range slices.Sorted(maps.Keys(byTopic)) {
		gt := kmsg.NewOffsetFetchRequestGroupTopic()
		gt.Topic = topic
		if tm, ok := v.Meta.Topic(topic); ok {
			gt.TopicID = tm.ID
		}
		gt.Partitions = byTopic[topic]
		g.Topics = append(g.Topics, gt)
		rt := kmsg.NewOffsetFetchRequestTopic()
		rt.Topic = topic
		rt.Partitions = byTopic[topic]
		req.Topics = append(req.Topics, rt)
	}
	req.Groups = []kmsg.OffsetFetchRequestGroup{g}
	return req
}

func (o *Offsets) retryLater(tx *reactor.Tx, err error) {
	o.retry.Fail(tx.Now, err)
}

func (o *Offsets) onOffsetFetch(tx *reactor.Tx, node int32, groupID string, gens map[managers.TopicPartition]uint64, resp any, err error) {
	o.fetchInFlight = false
	parts, err := offsetFetchAnswer(node, resp, err)
	switch managers.Class(kmsg.OffsetFetch, managers.ScopeResponse, err) {
	case 0: // answered
	case managers.ClassIgnored:
		// GROUP_ID_NOT_FOUND: no such group (Kafka 4.4 and the fake
		// broker answer offset -1 for a group that never committed;
		// raw kfake answers this): nothing is committed, so
		// auto.offset.reset decides.
		for tp, gen := range gens {
			o.nothingCommitted(tp, gen)
		}
		o.retry.Succeed()
		return
	case managers.ClassCoordinator:
		o.coord.MarkUnknown(node, err)
		o.retryLater(tx, err)
		return
	case managers.ClassRetriable, managers.ClassMetadata:
		o.retryLater(tx, err)
		return
	default:
		// Authorization and other failures: the application must hear
		// it, not a silent retry loop; retry after a backoff too.
		o.fetch.ReportError(fmt.Errorf("OffsetFetch for group %q: %w", groupID, err))
		o.retryLater(tx, err)
		return
	}
	o.coord.Confirm()
	o.retry.Succeed()
	answered := map[managers.TopicPartition]bool{}
	for _, p := range parts {
		tp := o.partTP(p)
		gen, ok := gens[tp]
		if !ok {
			continue
		}
		answered[tp] = true
		o.onCommitted(tx, node, tp, gen, p)
	}
	// A partition asked for and not answered is a failure: retry it
	// after a backoff, never at once.
	for tp := range gens {
		if !answered[tp] {
			o.retryLater(tx, &managers.ResponseError{Key: kmsg.OffsetFetch, Node: node, Detail: "no answer for " + tp.String()})
			return
		}
	}
}

// offsetFetchPart is one partition of an OffsetFetch answer, in either
// layout.
type offsetFetchPart struct {
	topic     string
	topicID   [16]byte
	partition int32
	offset    int64
	epoch     int32
	code      int16
}

// offsetFetchAnswer reads the answer to an OffsetFetch sent to node (resp,
// or the request's error err): its partitions, and the request's error or
// else the answer's (the group's, v8+; the top-level one before).
func offsetFetchAnswer(node int32, resp any, err error) ([]offsetFetchPart, error) {
	if err != nil {
		return nil, err
	}
	r, err := managers.As[*kmsg.OffsetFetchResponse](kmsg.OffsetFetch, node, resp)
	if err != nil {
		return nil, err
	}
	parts, code := offsetFetchParts(r)
	return parts, kerr.ErrorForCode(code)
}

// partTP is the partition an answer's part names, its topic by name or,
// for an answer naming topics by id (v10+), by the id's name in the
// metadata ("" when unknown).
func (o *Offsets) partTP(p offsetFetchPart) managers.TopicPartition {
	topic := p.topic
	if topic == "" {
		topic, _ = o.meta.TopicName(p.topicID)
	}
	return managers.TopicPartition{Topic: topic, Partition: p.partition}
}

// err is the part's error, naming tp (the partition it is for), or nil.
func (p offsetFetchPart) err(tp managers.TopicPartition) error {
	if err := kerr.ErrorForCode(p.code); err != nil {
		return fmt.Errorf("OffsetFetch %s: %w", tp, err)
	}
	return nil
}

// offsetFetchParts flattens an OffsetFetch answer (v8+: its one group;
// before: the top-level topics) and returns its error code.
func offsetFetchParts(r *kmsg.OffsetFetchResponse) ([]offsetFetchPart, int16) {
	var parts []offsetFetchPart
	if len(r.Groups) > 0 { // v8+
		g := r.Groups[0]
		for _, t := range g.Topics {
			for _, p := range t.Partitions {
				parts = append(parts, offsetFetchPart{t.Topic, t.TopicID, p.Partition, p.Offset, p.LeaderEpoch, p.ErrorCode})
			}
		}
		return parts, g.ErrorCode
	}
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, offsetFetchPart{t.Topic, [16]byte{}, p.Partition, p.Offset, p.LeaderEpoch, p.ErrorCode})
		}
	}
	return parts, r.ErrorCode
}

// onCommitted applies one partition's committed offset (generation gen of
// its assignment): a position, "nothing committed" (auto.offset.reset
// decides), or a partition error by its class in the error table.
func (o *Offsets) onCommitted(tx *reactor.Tx, node int32, tp managers.TopicPartition, gen uint64, p offsetFetchPart) {
	if perr := p.err(tp); perr != nil {
		switch managers.Class(kmsg.OffsetFetch, managers.ScopePartition, perr) {
		case managers.ClassIgnored:
			o.nothingCommitted(tp, gen)
		case managers.ClassCoordinator:
			o.coord.MarkUnknown(node, perr)
			o.retryLater(tx, perr)
		case managers.ClassRetriable, managers.ClassMetadata:
			o.retryLater(tx, perr)
		default:
			o.fetch.ReportError(&PartitionError{TP: tp, Err: perr})
			o.retryLater(tx, perr)
		}
		return
	}
	if p.offset >= 0 {
		o.fetch.SetPosition(tp, managers.Position{Offset: p.offset, LeaderEpoch: p.epoch}, gen)
		return
	}
	o.nothingCommitted(tp, gen)
}

// nothingCommitted records that tp (generation gen) has no committed
// offset: auto.offset.reset decides its position.
func (o *Offsets) nothingCommitted(tp managers.TopicPartition, gen uint64) {
	if st, ok := o.state[tp]; ok && st.gen == gen {
		st.committedTried = true
	}
}

func (o *Offsets) pollReset(tx *reactor.Tx, v View, needs []PositionNeed) reactor.Result {
	if o.reset == ResetNone {
		for _, n := range needs {
			o.state[n.TP].failed = true
			o.fetch.ReportError(&PartitionError{TP: n.TP, Err: ErrNoOffsetForPartition})
		}
		return reactor.Await(reactor.InputApplication, "no offset and auto.offset.reset=none")
	}
	if next, waiting := o.retry.Waiting(tx.Now); waiting {
		return reactor.RetryAt(next, "ListOffsets backoff")
	}
	ts := int64(-2)
	if o.reset == ResetLatest {
		ts = -1
	}
	var waits []reactor.Result
	byNode := map[int32][]PositionNeed{}
	for _, n := range needs {
		leader, ok := v.Meta.Leader(n.TP)
		if !ok {
			v.Meta.RequestRefresh(tx)
			waits = append(waits, reactor.Await(reactor.InputMetadata, "leader unknown for ListOffsets"))
			continue
		}
		if o.listInFlight[leader] {
			waits = append(waits, reactor.Await(reactor.InputResponse, "ListOffsets in flight"))
			continue
		}
		byNode[leader] = append(byNode[leader], n)
	}
	var reqs []*reactor.Request
	for _, node := range slicesSortedKeys(byNode) {
		reqs = append(reqs, o.listRequest(v, node, ts, byNode[node]))
	}
	if len(reqs) > 0 {
		waits = append(waits, reactor.Ready("auto.offset.reset="+o.reset, reqs...))
	}
	return reactor.Combine(waits...)
}

func (o *Offsets) listRequest(v View, node int32, ts int64, needs []PositionNeed) *reactor.Request {
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	gens := map[managers.TopicPartition]uint64{}
	idx := map[string]int{}
	for _, n := range needs {
		i, ok := idx[n.TP.Topic]
		if !ok {
			t := kmsg.NewListOffsetsRequestTopic()
			t.Topic = n.TP.Topic
			req.Topics = append(req.Topics, t)
			i = len(req.Topics) - 1
			idx[n.TP.Topic] = i
		}
		p := kmsg.NewListOffsetsRequestTopicPartition()
		p.Partition = n.TP.Partition
		p.CurrentLeaderEpoch = -1
		p.Timestamp = ts
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, p)
		gens[n.TP] = n.Gen
	}
	o.listInFlight[node] = true
	addr, _ := v.Meta.BrokerAddr(node)
	return &reactor.Request{
		Payload: &managers.Call{Node: node, Addr: addr, Req: req},
		OnComplete: func(tx *reactor.Tx, resp any, err error) {
			o.onListOffsets(tx, node, gens, resp, err)
		},
	}
}

func (o *Offsets) onListOffsets(tx *reactor.Tx, node int32, gens map[managers.TopicPartition]uint64, resp any, err error) {
	delete(o.listInFlight, node)
	var r *kmsg.ListOffsetsResponse
	if err == nil {
		r, err = managers.As[*kmsg.ListOffsetsResponse](kmsg.ListOffsets, node, resp)
	}
	if err != nil {
		// No answer: the table's transport row (a metadata refresh and
		// the backoff).
		o.applyListError(tx, managers.ScopeResponse, nil, err)
		return
	}
	answered := map[managers.TopicPartition]bool{}
	defer func() {
		for tp := range gens {
			if !answered[tp] {
				o.retryLater(tx, &managers.ResponseError{Key: kmsg.ListOffsets, Node: node, Detail: "no answer for " + tp.String()})
				return
			}
		}
	}()
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			tp := managers.TopicPartition{Topic: t.Topic, Partition: p.Partition}
			gen, ok := gens[tp]
			if !ok {
				continue
			}
			answered[tp] = true
			if perr := kerr.ErrorForCode(p.ErrorCode); perr != nil {
				o.applyListError(tx, managers.ScopePartition, &tp, perr)
				continue
			}
			o.fetch.SetPosition(tp, managers.Position{Offset: p.Offset, LeaderEpoch: p.LeaderEpoch}, gen)
		}
	}
}

// applyListError applies a ListOffsets error (a partition's, or the whole
// request's when tp is nil) by its class in the error table.
func (o *Offsets) applyListError(tx *reactor.Tx, scope managers.Scope, tp *managers.TopicPartition, err error) {
	switch managers.Class(kmsg.ListOffsets, scope, err) {
	case managers.ClassMetadata:
		o.meta.RequestRefresh(tx)
	case managers.ClassRetriable, managers.ClassIgnored:
	default: // authorization, failed: the application hears it; retried after the backoff
		if tp != nil {
			err = &PartitionError{TP: *tp, Err: err}
		}
		o.fetch.ReportError(err)
	}
	o.retryLater(tx, err)
}
