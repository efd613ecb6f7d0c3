package share

// Share fetch and acknowledgements.
//
// Kafka APIs: ShareFetch (key 78) v1+ and ShareAcknowledge (key 79) v1+, one
// share session per broker (epoch 0 opens it, each answered request moves it
// on, -1 closes it). Acknowledgements ride on the next ShareFetch to the
// partition's leader, or go in a ShareAcknowledge for commits, when fetching
// is paused by a full buffer, and at close (epoch -1, before the leave
// heartbeat). Fetching is demand-driven: records are acquired only while the
// application waits in Poll (acquired records are locked for this member).
// Every acknowledgement is reported exactly once: accepted, or
// failed with the broker's or the session's error; never dropped: those a
// request still carries when FailAll runs (the close deadline) are reported
// failed then, and that request's late answer reports nothing (issue 10,
// item 7). Commits complete in the order made (a CommitSync after every
// CommitAsync before it). One request per session is in flight at a time
// (epochs are sequential).

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// Record is an acquired record with its delivery count (how many times the
// broker has handed it out, this time included).
type Record struct {
	*kgo.Record
	DeliveryCount int16
}

// ConsumeConfig configures the share fetch manager.
type ConsumeConfig struct {
	MaxWait           time.Duration // fetch.max.wait.ms
	MaxBytes          int32         // fetch.max.bytes
	PartitionMaxBytes int32         // max.partition.fetch.bytes
	MaxRecords        int32         // max.poll.records: ShareFetch MaxRecords and BatchSize
	MaxBuffered       int           // records buffered before fetching pauses
	Backoff           managers.Backoff
}

type session struct {
	epoch    int32 // next epoch to send; 0 opens a session
	inFlight bool
	parts    map[managers.TopicPartition]bool // partitions the broker's session holds
	// retry backs off every request after a failed one (growing from
	// retry.backoff.ms; reset by an answered request).
	retry managers.Retry
	// resets counts session resets since a request was last answered:
	// the first reopens at once, each further one waits retry.
	resets int
	// fetchRetry backs off fetching (not acknowledging) after partition
	// errors; reset by an answer without them.
	fetchRetry managers.Retry
	closed     bool
	// carrying is the acknowledgements the request in flight carries
	// (the map its completion reports from); nil when none is in flight.
	// FailAll reports them and empties the map, so a late answer reports
	// nothing.
	carrying map[managers.TopicPartition][]ackEntry
}

type commitReq struct {
	acks     map[managers.TopicPartition][]ackEntry // not yet sent
	waiting  int                                    // requests in flight
	sent     map[managers.TopicPartition]bool       // partitions in a request in flight
	results  map[managers.TopicPartition]error
	done     func(results map[managers.TopicPartition]error, version uint64)
	finished bool // every partition has its result; done runs once the commits before it finished
}

// Consume owns the share sessions, the record buffer, the delivered records
// awaiting acknowledgement and the acknowledgements awaiting sending. Loop
// goroutine only.
type Consume struct {
	cfg   ConsumeConfig
	group string
	meta  *managers.Metadata
	onAck func(tx *reactor.Tx, outcomes []AckOutcome)

	sessions      map[int32]*session
	assigned      map[managers.TopicPartition]bool
	order         []managers.TopicPartition
	assignVersion uint64
	buffer        map[managers.TopicPartition][]Record
	buffered      int
	rr            int
	delivered     map[managers.TopicPartition]map[int64]AckType
	pending       map[managers.TopicPartition][]ackEntry
	commits       []*commitReq
	closing       bool
	owed          managers.Owed
	sentFetch     int
	sentAck       int
	demand        bool // a Poll ended before a ShareFetch went: the next one goes anyway
}

// NewConsume returns the share fetch manager. onAck receives every
// acknowledgement outcome (on the loop goroutine).
func NewConsume(cfg ConsumeConfig, group string, meta *managers.Metadata, onAck func(*reactor.Tx, []AckOutcome)) *Consume {
	return &Consume{
		cfg: cfg, group: group, meta: meta, onAck: onAck,
		sessions:  map[int32]*session{},
		assigned:  map[managers.TopicPartition]bool{},
		buffer:    map[managers.TopicPartition][]Record{},
		delivered: map[managers.TopicPartition]map[int64]AckType{},
		pending:   map[managers.TopicPartition][]ackEntry{},
	}
}

// Name is "share-fetch".
func (c *Consume) Name() string { return "share-fetch" }

// Buffered is the number of acquired records not yet delivered.
func (c *Consume) Buffered() int { return c.buffered }

// Sent returns the ShareFetch and ShareAcknowledge requests sent so far.
func (c *Consume) Sent() (fetches, acks int) { return c.sentFetch, c.sentAck }

// Demand says a Poll ended (a zero or short deadline) before a ShareFetch
// for it went: the next ShareFetch goes anyway, once, as Java's
// poll(Duration.ZERO) leaves its SharePollEvent with the network thread,
// which sends the fetch it asked for (ShareConsumeRequestManager).
func (c *Consume) Demand() { c.demand = true }

// TakeErrors returns and clears errors owed to the application.
func (c *Consume) TakeErrors() []error { return c.owed.Take() }

// Take removes up to max buffered records, partitions round-robin, and
// records them as delivered (awaiting acknowledgement).
func (c *Consume) Take(max int) []Record {
	var out []Record
	for range len(c.order) {
		if len(out) >= max {
			break
		}
		tp := c.order[c.rr%len(c.order)]
		c.rr++
		recs := c.buffer[tp]
		if len(recs) == 0 {
			continue
		}
		n := min(len(recs), max-len(out))
		out = append(out, recs[:n]...)
		c.buffer[tp] = recs[n:]
		c.buffered -= n
		d := c.delivered[tp]
		if d == nil {
			d = map[int64]AckType{}
			c.delivered[tp] = d
		}
		for _, r := range recs[:n] {
			d[r.Offset] = 0
		}
	}
	return out
}

// Acknowledge records the application's acknowledgement of a delivered
// record. Renew keeps the record unacknowledged (its lock is extended).
// Errors: ErrNotDelivered.
func (c *Consume) Acknowledge(tp managers.TopicPartition, offset int64, typ AckType) error {
	if !typ.Valid() {
		return fmt.Errorf("%w: %d", ErrInvalidAckType, int8(typ))
	}
	d := c.delivered[tp]
	cur, ok := d[offset]
	if !ok || cur != 0 {
		return ErrNotDelivered
	}
	if typ == AckRenew {
		c.pending[tp] = append(c.pending[tp], ackEntry{offset, AckRenew})
		return nil
	}
	d[offset] = typ
	return nil
}

// Unacknowledged is the number of delivered records not yet acknowledged.
func (c *Consume) Unacknowledged() int {
	n := 0
	for _, d := range c.delivered {
		for _, t := range d {
			if t == 0 {
				n++
			}
		}
	}
	return n
}

// AcknowledgeAll gives every delivered, unacknowledged record typ (implicit
// mode accepts the previous batch; close in explicit mode releases).
func (c *Consume) AcknowledgeAll(typ AckType) {
	for _, d := range c.delivered {
		for off, t := range d {
			if t == 0 {
				d[off] = typ
			}
		}
	}
}

// Flush moves acknowledged delivered records to the acknowledgements
// awaiting sending.
func (c *Consume) Flush() {
	for tp, d := range c.delivered {
		for off, t := range d {
			if t != 0 {
				c.pending[tp] = append(c.pending[tp], ackEntry{off, t})
				delete(d, off)
			}
		}
		if len(d) == 0 {
			delete(c.delivered, tp)
		}
	}
}

// Commit sends every flushed acknowledgement in ShareAcknowledge requests
// now; done runs as an effect with each partition's outcome (nil error:
// accepted) and the completion's state version. Nothing to send completes at
// once with an empty map.
func (c *Consume) Commit(tx *reactor.Tx, done func(map[managers.TopicPartition]error, uint64)) {
	c.Flush()
	cr := &commitReq{acks: c.pending, sent: map[managers.TopicPartition]bool{}, results: map[managers.TopicPartition]error{}, done: done}
	c.pending = map[managers.TopicPartition][]ackEntry{}
	c.commits = append(c.commits, cr)
	if len(cr.acks) == 0 {
		c.finishCommit(tx, cr) // completes once the commits before it have
	}
}

// PendingCommits is the number of commits not yet answered.
func (c *Consume) PendingCommits() int { return len(c.commits) }

// Close stops fetching; acknowledgements still to send go out with each
// session's closing request (epoch -1).
func (c *Consume) Close() {
	c.closing = true
	c.Flush()
}

// Done reports whether close has nothing left: every session closed (or
// never opened), every acknowledgement answered.
func (c *Consume) Done() bool {
	if !c.closing || len(c.commits) > 0 || len(c.pending) > 0 {
		return false
	}
	for _, s := range c.sessions {
		if s.inFlight || (!s.closed && s.epoch > 0) {
			return false
		}
	}
	return true
}

// FailAll reports every acknowledgement not yet answered as failed with err
// and ends every session (close deadline): those awaiting sending, those of
// commits, and those a request in flight carries (its answer, if it still
// comes, then reports nothing). Every commit completes.
func (c *Consume) FailAll(tx *reactor.Tx, err error) {
	errFor := func(managers.TopicPartition) error { return err }
	outcomes, _ := c.outcomes(c.pending, errFor)
	c.pending = map[managers.TopicPartition][]ackEntry{}
	for _, s := range c.sessions {
		if len(s.carrying) > 0 {
			out, _ := c.outcomes(s.carrying, errFor)
			outcomes = append(outcomes, out...)
			clear(s.carrying) // the in-flight request's completion reads this map: it reports nothing now
		}
		s.closed = true
	}
	for _, cr := range slices.Clone(c.commits) {
		if cr.finished {
			continue
		}
		out, _ := c.outcomes(cr.acks, errFor)
		outcomes = append(outcomes, out...)
		for tp := range cr.acks {
			cr.results[tp] = err
		}
		for tp := range cr.sent {
			cr.results[tp] = err // reported above with the request carrying it
		}
		clear(cr.acks)
		c.finishCommit(tx, cr)
	}
	c.report(tx, outcomes)
}

func (c *Consume) report(tx *reactor.Tx, outcomes []AckOutcome) {
	if len(outcomes) > 0 && c.onAck != nil {
		c.onAck(tx, outcomes)
	}
}

// finishCommit marks cr finished and completes, in the order they were
// made, every finished commit no unfinished commit precedes: a commit's
// done never runs before the done of a commit made earlier.
func (c *Consume) finishCommit(tx *reactor.Tx, cr *commitReq) {
	if cr.finished {
		return
	}
	cr.finished = true
	for len(c.commits) > 0 && c.commits[0].finished {
		head := c.commits[0]
		c.commits[0] = nil
		c.commits = c.commits[1:]
		if head.done != nil {
			done, results, v := head.done, head.results, tx.Version
			tx.Effect(func() { done(results, v) })
		}
	}
}

func (c *Consume) sync(v View) {
	if v.AssignmentVersion == c.assignVersion && len(v.Assignment) == len(c.assigned) {
		return
	}
	c.assignVersion = v.AssignmentVersion
	next := map[managers.TopicPartition]bool{}
	for _, tp := range v.Assignment {
		next[tp] = true
	}
	for tp := range c.assigned {
		if !next[tp] {
			c.buffered -= len(c.buffer[tp])
			delete(c.buffer, tp) // acquired, never delivered: the lock expires and the broker redelivers
		}
	}
	c.assigned = next
	c.order = slices.Clone(v.Assignment)
	c.rr = 0
}

func (c *Consume) sessionFor(node int32) *session {
	s := c.sessions[node]
	if s == nil {
		s = &session{parts: map[managers.TopicPartition]bool{},
			retry: managers.Retry{Backoff: c.cfg.Backoff}, fetchRetry: managers.Retry{Backoff: c.cfg.Backoff}}
		c.sessions[node] = s
	}
	return s
}

// leader returns tp's leader, asking for a metadata refresh when unknown.
func (c *Consume) leader(tx *reactor.Tx, tp managers.TopicPartition) (int32, bool) {
	leader, ok := c.meta.Leader(tp)
	if !ok {
		c.meta.RequestRefresh(tx)
	}
	return leader, ok
}

// nodeWork is what one broker's session has to do in this poll.
type nodeWork struct {
	fetch  []managers.TopicPartition              // assigned partitions to fetch
	acks   map[managers.TopicPartition][]ackEntry // flushed acknowledgements
	commit map[*commitReq]map[managers.TopicPartition][]ackEntry
}

// Poll sends, per broker, a ShareFetch (with piggy-backed acknowledgements)
// or a ShareAcknowledge (commits, close, full buffer), and says precisely why
// the others wait.
func (c *Consume) Poll(tx *reactor.Tx, v View) reactor.Result {
	c.sync(v)
	if !c.closing && len(c.assigned) == 0 && len(c.pending) == 0 && len(c.commits) == 0 {
		return reactor.Idle("no assignment")
	}
	if !v.InGroup && !c.closing {
		return reactor.Await(reactor.InputMembership, "share member not joined")
	}
	var waits []reactor.Result
	work := map[int32]*nodeWork{}
	get := func(node int32) *nodeWork {
		w := work[node]
		if w == nil {
			w = &nodeWork{acks: map[managers.TopicPartition][]ackEntry{}, commit: map[*commitReq]map[managers.TopicPartition][]ackEntry{}}
			work[node] = w
		}
		return w
	}
	full := c.buffered >= c.cfg.MaxBuffered
	polling := v.Polling || c.demand
	if !c.closing && !polling && len(c.pending) == 0 && len(c.commits) == 0 {
		return reactor.Await(reactor.InputApplication, "no Poll waiting: records are acquired only on demand")
	}
	if !c.closing && polling {
		for _, tp := range c.order {
			if len(c.buffer[tp]) > 0 || full {
				waits = append(waits, reactor.Await(reactor.InputBufferDrained, "records buffered"))
				continue
			}
			if node, ok := c.leader(tx, tp); ok {
				get(node).fetch = append(get(node).fetch, tp)
			} else {
				waits = append(waits, reactor.Await(reactor.InputMetadata, "leader unknown"))
			}
		}
	}
	for tp, es := range c.pending {
		if node, ok := c.leader(tx, tp); ok {
			get(node).acks[tp] = es
		} else {
			waits = append(waits, reactor.Await(reactor.InputMetadata, "leader unknown for acknowledgements"))
		}
	}
	for _, cr := range c.commits {
		for tp, es := range cr.acks {
			if node, ok := c.leader(tx, tp); ok {
				w := get(node)
				if w.commit[cr] == nil {
					w.commit[cr] = map[managers.TopicPartition][]ackEntry{}
				}
				w.commit[cr][tp] = es
			} else {
				waits = append(waits, reactor.Await(reactor.InputMetadata, "leader unknown for commit"))
			}
		}
	}
	if c.closing {
		for node, s := range c.sessions {
			if !s.closed && s.epoch > 0 {
				get(node)
			}
		}
	}
	var reqs []*reactor.Request
	for _, node := range slices.Sorted(maps.Keys(work)) {
		w, s := work[node], c.sessionFor(node)
		switch {
		case s.inFlight:
			waits = append(waits, reactor.Await(reactor.InputResponse, "share request in flight"))
			continue
		case tx.Now.Before(s.retry.Next()):
			waits = append(waits, reactor.RetryAt(s.retry.Next(), "share session backoff"))
			continue
		case len(w.fetch) > 0 && tx.Now.Before(s.fetchRetry.Next()):
			// Partition errors: fetching waits; acknowledgements and
			// commits still go (their acquisition locks are running).
			waits = append(waits, reactor.RetryAt(s.fetchRetry.Next(), "share fetch backoff after partition errors"))
			w.fetch = nil
		}
		if r := c.request(tx, v, node, s, w); r != nil {
			reqs = append(reqs, r)
			if len(w.fetch) > 0 {
				c.demand = false
			}
		}
	}
	if len(reqs) > 0 {
		waits = append(waits, reactor.Ready("share fetch or acknowledgements", reqs...))
	}
	if len(waits) == 0 {
		if c.closing {
			return reactor.Idle("share sessions closed")
		}
		return reactor.Await(reactor.InputApplication, "nothing to fetch or acknowledge")
	}
	return reactor.Combine(waits...)
}

// request builds the one request node's session sends now, or nil.
func (c *Consume) request(tx *reactor.Tx, v View, node int32, s *session, w *nodeWork) *reactor.Request {
	addr, ok := v.Meta.BrokerAddr(node)
	if !ok {
		c.meta.RequestRefresh(tx)
		return nil
	}
	// Acknowledgements need an open session (epoch > 0): with none, they
	// wait for the ShareFetch that opens it, or fail at close.
	acks := map[managers.TopicPartition][]ackEntry{}
	var commits []*commitReq
	if s.epoch > 0 {
		maps.Copy(acks, w.acks)
		for cr, m := range w.commit {
			commits = append(commits, cr)
			for tp, es := range m {
				acks[tp] = append(acks[tp], es...)
			}
		}
	}
	switch {
	case c.closing && (s.epoch > 0 && !s.closed):
		return c.shareAcknowledge(tx, v, node, addr, s, -1, acks, commits)
	case c.closing:
		c.failUnsendable(tx, w, ErrSessionClosed)
		return nil
	case len(commits) > 0 || acksOutside(acks, w.fetch):
		// Commits, and acknowledgements of partitions this fetch would
		// not carry (buffered, no longer assigned), go alone now rather
		// than wait behind fetches: their acquisition locks are running.
		return c.shareAcknowledge(tx, v, node, addr, s, s.epoch, acks, commits)
	case len(w.fetch) > 0:
		return c.shareFetch(tx, v, node, addr, s, w.fetch, acks)
	}
	return nil
}

// acksOutside reports whether acks hold a partition fetch does not.
func acksOutside(acks map[managers.TopicPartition][]ackEntry, fetch []managers.TopicPartition) bool {
	for tp := range acks {
		if !slices.Contains(fetch, tp) {
			return true
		}
	}
	return false
}

// failUnsendable reports acknowledgements for a broker with no open session
// at close as failed.
func (c *Consume) failUnsendable(tx *reactor.Tx, w *nodeWork, err error) {
	var outcomes []AckOutcome
	for tp, es := range w.acks {
		delete(c.pending, tp)
		outcomes = append(outcomes, AckOutcome{TP: tp, Offsets: offsetsOf(es), Err: err})
	}
	for cr, m := range w.commit {
		for tp, es := range m {
			delete(cr.acks, tp)
			cr.results[tp] = err
			outcomes = append(outcomes, AckOutcome{TP: tp, Offsets: offsetsOf(es), Err: err})
		}
		if len(cr.acks) == 0 && cr.waiting == 0 {
			c.finishCommit(tx, cr)
		}
	}
	c.report(tx, outcomes)
}

func (c *Consume) topicID(tp managers.TopicPartition) [16]byte {
	if tm, ok := c.meta.Topic(tp.Topic); ok {
		return tm.ID
	}
	return [16]byte{}
}

func (c *Consume) shareFetch(tx *reactor.Tx, v View, node int32, addr string, s *session, fetch []managers.TopicPartition, acks map[managers.TopicPartition][]ackEntry) *reactor.Request {
	req := kmsg.NewPtrShareFetchRequest()
	req.GroupID = kmsg.StringPtr(c.group)
	req.MemberID = kmsg.StringPtr(v.MemberID)
	req.ShareSessionEpoch = s.epoch
	req.MaxWaitMillis = int32(c.cfg.MaxWait.Milliseconds())
	req.MinBytes = 1
	req.MaxBytes = c.cfg.MaxBytes
	req.MaxRecords = c.cfg.MaxRecords
	req.BatchSize = c.cfg.MaxRecords
	req.IsRenewAck = hasRenew(acks)
	byID := map[[16]byte]int{}
	add := func(tp managers.TopicPartition) *kmsg.ShareFetchRequestTopicPartition {
		id := c.topicID(tp)
		i, ok := byID[id]
		if !ok {
			t := kmsg.NewShareFetchRequestTopic()
			t.TopicID = id
			req.Topics = append(req.Topics, t)
			i = len(req.Topics) - 1
			byID[id] = i
		}
		p := kmsg.NewShareFetchRequestTopicPartition()
		p.Partition = tp.Partition
		p.PartitionMaxBytes = c.cfg.PartitionMaxBytes
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, p)
		return &req.Topics[i].Partitions[len(req.Topics[i].Partitions)-1]
	}
	want := map[managers.TopicPartition]bool{}
	for _, tp := range fetch {
		want[tp] = true
		if !s.parts[tp] || len(acks[tp]) > 0 {
			p := add(tp)
			for _, b := range toBatches(acks[tp]) {
				p.AcknowledgementBatches = append(p.AcknowledgementBatches, kmsg.ShareFetchRequestTopicPartitionAcknowledgementBatch{FirstOffset: b.first, LastOffset: b.last, AcknowledgeTypes: []int8{int8(b.typ)}})
			}
		}
	}
	sentAcks := map[managers.TopicPartition][]ackEntry{}
	for tp := range acks {
		if want[tp] {
			sentAcks[tp] = acks[tp]
			delete(c.pending, tp)
		}
	}
	var forgotten []managers.TopicPartition
	for tp := range s.parts {
		if !want[tp] {
			forgotten = append(forgotten, tp)
			f := kmsg.NewShareFetchRequestForgottenTopicsData()
			f.TopicID = c.topicID(tp)
			f.Partitions = []int32{tp.Partition}
			req.ForgottenTopicsData = append(req.ForgottenTopicsData, f)
		}
	}
	s.inFlight, s.carrying = true, sentAcks
	c.sentFetch++
	epoch := s.epoch
	return &reactor.Request{
		Payload: &managers.Call{Node: node, Addr: addr, Req: req},
		OnComplete: func(tx *reactor.Tx, resp any, err error) {
			c.onShareFetch(tx, node, s, epoch, fetch, forgotten, sentAcks, resp, err)
		},
	}
}

func (c *Consume) shareAcknowledge(tx *reactor.Tx, v View, node int32, addr string, s *session, epoch int32, acks map[managers.TopicPartition][]ackEntry, commits []*commitReq) *reactor.Request {
	req := kmsg.NewPtrShareAcknowledgeRequest()
	req.GroupID = kmsg.StringPtr(c.group)
	req.MemberID = kmsg.StringPtr(v.MemberID)
	req.ShareSessionEpoch = epoch
	req.IsRenewAck = hasRenew(acks)
	byID := map[[16]byte]int{}
	for _, tp := range slices.SortedFunc(maps.Keys(acks), managers.CompareTopicPartition) {
		id := c.topicID(tp)
		i, ok := byID[id]
		if !ok {
			t := kmsg.NewShareAcknowledgeRequestTopic()
			t.TopicID = id
			req.Topics = append(req.Topics, t)
			i = len(req.Topics) - 1
			byID[id] = i
		}
		p := kmsg.NewShareAcknowledgeRequestTopicPartition()
		p.Partition = tp.Partition
		for _, b := range toBatches(acks[tp]) {
			p.AcknowledgementBatches = append(p.AcknowledgementBatches, kmsg.ShareAcknowledgeRequestTopicPartitionAcknowledgementBatch{FirstOffset: b.first, LastOffset: b.last, AcknowledgeTypes: []int8{int8(b.typ)}})
		}
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, p)
	}
	// What this request answers: the pending acknowledgements of these
	// partitions and each commit's share on this broker.
	type commitShare struct {
		cr  *commitReq
		tps []managers.TopicPartition
	}
	var shares []commitShare
	for _, cr := range commits {
		var tps []managers.TopicPartition
		for tp := range acks {
			if _, ok := cr.acks[tp]; ok {
				tps = append(tps, tp)
				delete(cr.acks, tp)
				cr.sent[tp] = true
			}
		}
		cr.waiting++
		shares = append(shares, commitShare{cr, tps})
	}
	for tp := range acks {
		delete(c.pending, tp)
	}
	s.inFlight, s.carrying = true, acks
	c.sentAck++
	return &reactor.Request{
		Payload: &managers.Call{Node: node, Addr: addr, Req: req},
		OnComplete: func(tx *reactor.Tx, resp any, err error) {
			results := c.onShareAcknowledge(tx, node, s, epoch, acks, resp, err)
			for _, sh := range shares {
				if sh.cr.finished {
					continue // failed by FailAll while this was in flight: already reported and completed
				}
				for _, tp := range sh.tps {
					sh.cr.results[tp] = results[tp]
					delete(sh.cr.sent, tp)
				}
				sh.cr.waiting--
				if sh.cr.waiting == 0 && len(sh.cr.acks) == 0 {
					c.finishCommit(tx, sh.cr)
				}
			}
		},
	}
}

// advance moves a session on after an answered request.
func (s *session) advance(sent int32) {
	s.inFlight, s.carrying = false, nil
	s.retry.Succeed()
	s.resets = 0
	switch {
	case sent == -1:
		s.closed, s.epoch = true, 0
		clear(s.parts)
	case sent == 1<<31-1:
		s.epoch = 1
	default:
		s.epoch = sent + 1
	}
}

// fail handles a request answered with a top-level error, or not answered
// (api is kmsg.ShareFetch or kmsg.ShareAcknowledge), by its class in the
// error table: a session reset opens a new session (at once the first time,
// after the backoff when repeated); otherwise the session backs off,
// metadata is refreshed, and authorization and other failures are raised
// from Poll. The acknowledgements the request carried are reported by the
// caller.
func (c *Consume) fail(tx *reactor.Tx, api kmsg.Key, s *session, err error) {
	s.inFlight, s.carrying = false, nil
	switch managers.Class(api, managers.ScopeResponse, err) {
	case managers.ClassSessionReset:
		s.epoch = 0
		clear(s.parts)
		s.resets++
		if s.resets > 1 {
			s.retry.Fail(tx.Now, err)
		}
		return
	case managers.ClassMetadata:
		c.meta.RequestRefresh(tx)
	case managers.ClassRetriable, managers.ClassIgnored:
	default: // authorization, failed
		c.owed.Report(err)
	}
	s.retry.Fail(tx.Now, err)
	if c.closing {
		s.closed = true // a close that fails is not retried: the locks expire
	}
}

func (c *Consume) outcomes(sent map[managers.TopicPartition][]ackEntry, errFor func(managers.TopicPartition) error) ([]AckOutcome, map[managers.TopicPartition]error) {
	var out []AckOutcome
	results := map[managers.TopicPartition]error{}
	for tp, es := range sent {
		var kept []ackEntry // renewals are not outcomes the application asked to know
		for _, e := range es {
			if e.typ != AckRenew {
				kept = append(kept, e)
			}
		}
		err := errFor(tp)
		results[tp] = err
		if len(kept) > 0 {
			out = append(out, AckOutcome{TP: tp, Offsets: offsetsOf(kept), Err: err})
		}
	}
	return out, results
}

func (c *Consume) onShareFetch(tx *reactor.Tx, node int32, s *session, epoch int32, fetch, forgotten []managers.TopicPartition, sent map[managers.TopicPartition][]ackEntry, resp any, err error) {
	var r *kmsg.ShareFetchResponse
	if err == nil {
		r, err = managers.As[*kmsg.ShareFetchResponse](kmsg.ShareFetch, node, resp)
	}
	if err == nil {
		err = kerr.ErrorForCode(r.ErrorCode)
	}
	if err != nil {
		c.fail(tx, kmsg.ShareFetch, s, err)
		out, _ := c.outcomes(sent, func(managers.TopicPartition) error { return err })
		c.report(tx, out)
		return
	}
	s.advance(epoch)
	for _, tp := range fetch {
		s.parts[tp] = true
	}
	for _, tp := range forgotten {
		delete(s.parts, tp)
	}
	ackErr := map[managers.TopicPartition]error{}
	partErrs := false
	for i := range r.Topics {
		t := &r.Topics[i]
		name, ok := c.meta.TopicName(t.TopicID)
		if !ok {
			continue
		}
		for j := range t.Partitions {
			p := &t.Partitions[j]
			tp := managers.TopicPartition{Topic: name, Partition: p.Partition}
			ackErr[tp] = kerr.ErrorForCode(p.AcknowledgeErrorCode)
			if perr := kerr.ErrorForCode(p.ErrorCode); perr != nil {
				partErrs = true
				switch managers.Class(kmsg.ShareFetch, managers.ScopePartition, perr) {
				case managers.ClassMetadata:
					c.meta.RequestRefresh(tx)
				case managers.ClassRetriable, managers.ClassIgnored:
				default: // authorization, failed: raised from Poll
					c.owed.Report(&PartitionError{TP: tp, Err: perr})
				}
				continue
			}
			c.acquire(tp, p)
		}
	}
	if partErrs {
		s.fetchRetry.Fail(tx.Now, nil)
	} else if len(fetch) > 0 {
		s.fetchRetry.Succeed()
	}
	out, _ := c.outcomes(sent, func(tp managers.TopicPartition) error { return answeredOr(ackErr, tp, kmsg.ShareFetch, node) })
	c.report(tx, out)
}

// answeredOr is tp's acknowledgement outcome in an answer: its error code,
// or, when the broker left tp out, a ResponseError (an acknowledgement
// nobody confirmed is never reported accepted).
func answeredOr(perTP map[managers.TopicPartition]error, tp managers.TopicPartition, key kmsg.Key, node int32) error {
	err, ok := perTP[tp]
	if !ok {
		return &managers.ResponseError{Key: key, Node: node, Detail: "no answer for the acknowledgements of " + tp.String()}
	}
	return err
}

// acquire keeps the records of p that the broker acquired for this member.
func (c *Consume) acquire(tp managers.TopicPartition, p *kmsg.ShareFetchResponseTopicPartition) {
	if len(p.AcquiredRecords) == 0 || !c.assigned[tp] {
		return
	}
	fp := kmsg.NewFetchResponseTopicPartition()
	fp.Partition = p.Partition
	fp.RecordBatches = p.Records
	parsed, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{Topic: tp.Topic, Partition: tp.Partition, Offset: p.AcquiredRecords[0].FirstOffset}, &fp, kgo.DefaultDecompressor(), nil)
	for _, rec := range parsed.Records {
		for _, a := range p.AcquiredRecords {
			if rec.Offset >= a.FirstOffset && rec.Offset <= a.LastOffset {
				c.buffer[tp] = append(c.buffer[tp], Record{Record: rec, DeliveryCount: a.DeliveryCount})
				c.buffered++
				break
			}
		}
	}
}

func (c *Consume) onShareAcknowledge(tx *reactor.Tx, node int32, s *session, epoch int32, sent map[managers.TopicPartition][]ackEntry, resp any, err error) map[managers.TopicPartition]error {
	var r *kmsg.ShareAcknowledgeResponse
	if err == nil {
		r, err = managers.As[*kmsg.ShareAcknowledgeResponse](kmsg.ShareAcknowledge, node, resp)
	}
	if err == nil {
		err = kerr.ErrorForCode(r.ErrorCode)
	}
	if err != nil {
		c.fail(tx, kmsg.ShareAcknowledge, s, err)
		out, results := c.outcomes(sent, func(managers.TopicPartition) error { return err })
		c.report(tx, out)
		return results
	}
	s.advance(epoch)
	perTP := map[managers.TopicPartition]error{}
	for _, t := range r.Topics {
		name, ok := c.meta.TopicName(t.TopicID)
		if !ok {
			continue
		}
		for _, p := range t.Partitions {
			perTP[managers.TopicPartition{Topic: name, Partition: p.Partition}] = kerr.ErrorForCode(p.ErrorCode)
		}
	}
	out, results := c.outcomes(sent, func(tp managers.TopicPartition) error { return answeredOr(perTP, tp, kmsg.ShareAcknowledge, node) })
	c.report(tx, out)
	return results
}

// PartitionError is a share fetch error for one partition, for the
// application.
type PartitionError struct {
	TP  managers.TopicPartition
	Err error
}

func (e *PartitionError) Error() string { return "share fetch " + e.TP.String() + ": " + e.Err.Error() }
func (e *PartitionError) Unwrap() error { return e.Err }
