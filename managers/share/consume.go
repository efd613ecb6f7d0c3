package share

// Share fetch and acknowledgements: the manager (Consume) and its poll.
//
// Kafka APIs: ShareFetch (key 78) v1+ (fetch.go) and ShareAcknowledge (key
// 79) v1+ (acknowledge.go), KIP-932 share groups, with KIP-1222's renew
// acknowledgements (IsRenewAck); one share session per broker (session.go:
// epoch 0 opens it, each answered request moves it on, -1 closes it).
// Acknowledgements ride on the next ShareFetch to the partition's leader, or
// go in a ShareAcknowledge for commits (commit.go), when fetching is paused
// by a full buffer (buffer.go), and at close (close.go: epoch -1, before the
// leave heartbeat). Fetching is demand-driven: records are acquired only
// while the application waits in Poll (acquired records are locked for this
// member). Every acknowledgement is reported exactly once (acks.go):
// accepted, or failed with the broker's or the session's error; never
// dropped: those a request still carries when FailAll runs (the close
// deadline) are reported failed then, and that request's late answer reports
// nothing (catalogue CONTRACT-7; docs/design.md, invariant 7). Commits
// complete in the order made (a CommitSync after every CommitAsync before
// it). One request per session is in flight at a time (epochs are
// sequential).

import (
	"maps"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

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

// Consume owns the share sessions, the record buffer, the delivered records
// awaiting acknowledgement and the acknowledgements awaiting sending. Loop
// goroutine only.
type Consume struct {
	cfg   ConsumeConfig
	group string
	meta  *managers.Metadata
	onAck func(tx *reactor.Tx, outcomes []AckOutcome)

	sessions  map[int32]*session                            // per broker (session.go)
	buf       recordBuffer                                  // acquired, not taken (buffer.go)
	delivered map[managers.TopicPartition]map[int64]AckType // taken; 0 until acknowledged (acks.go)
	pending   map[managers.TopicPartition][]ackEntry        // acknowledged, awaiting sending
	commits   []*commitReq                                  // in the order made (commit.go)
	closing   bool                                          // Close was called (close.go)
	owed      managers.Owed
	sentFetch int
	sentAck   int
	demand    bool // a Poll ended before a ShareFetch went: the next one goes anyway
}

// NewConsume returns the share fetch manager. onAck receives every
// acknowledgement outcome (on the loop goroutine).
func NewConsume(cfg ConsumeConfig, group string, meta *managers.Metadata, onAck func(*reactor.Tx, []AckOutcome)) *Consume {
	return &Consume{
		cfg: cfg, group: group, meta: meta, onAck: onAck,
		sessions:  map[int32]*session{},
		buf:       newRecordBuffer(),
		delivered: map[managers.TopicPartition]map[int64]AckType{},
		pending:   map[managers.TopicPartition][]ackEntry{},
	}
}

// Name is "share-fetch".
func (c *Consume) Name() string { return "share-fetch" }

// Sent returns the ShareFetch and ShareAcknowledge requests sent so far.
func (c *Consume) Sent() (fetches, acks int) { return c.sentFetch, c.sentAck }

// Demand says a Poll ended (a zero or short deadline) before a ShareFetch
// for it went: the next ShareFetch goes anyway, once, as Java's
// poll(Duration.ZERO) leaves its SharePollEvent with the network thread,
// which sends the fetch it asked for (ShareConsumeRequestManager).
func (c *Consume) Demand() { c.demand = true }

// TakeErrors returns and clears errors owed to the application.
func (c *Consume) TakeErrors() []error { return c.owed.Take() }

// HasErrors reports whether TakeErrors would return any.
func (c *Consume) HasErrors() bool { return c.owed.Len() > 0 }

func (c *Consume) report(tx *reactor.Tx, outcomes []AckOutcome) {
	if len(outcomes) > 0 && c.onAck != nil {
		c.onAck(tx, outcomes)
	}
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
	c.buf.sync(v)
	for _, cr := range slices.Clone(c.commits) {
		c.expire(tx, cr) // may finish it, and the commits after it
	}
	if !c.closing && len(c.buf.assigned) == 0 && len(c.pending) == 0 && len(c.commits) == 0 {
		return reactor.Idle("no assignment")
	}
	if !v.InGroup && !c.closing {
		return reactor.Await(reactor.InputMembership, "share member not joined").Until(c.retryDeadline())
	}
	polling := v.Polling || c.demand
	if !c.closing && !polling && len(c.pending) == 0 && len(c.commits) == 0 {
		return reactor.Await(reactor.InputApplication, "no Poll waiting: records are acquired only on demand")
	}
	work, waits := c.plan(tx, polling)
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

// plan sorts this poll's work by broker: the partitions to fetch (while a
// Poll waits), the acknowledgements awaiting sending, each commit's share
// and, when closing, every open session; and why the rest waits (a full
// buffer, an unknown leader).
func (c *Consume) plan(tx *reactor.Tx, polling bool) (map[int32]*nodeWork, []reactor.Result) {
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
	full := c.buf.n >= c.cfg.MaxBuffered
	if !c.closing && polling {
		for _, tp := range c.buf.order {
			if len(c.buf.records[tp]) > 0 || full {
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
	for _, cr := range slices.Clone(c.commits) {
		if cr.finished || len(cr.acks) == 0 {
			continue
		}
		// Backing off after a retriable answer, until the deadline: past
		// it, what was never sent goes once (expire failed the rest).
		if next, waiting := cr.retry.Waiting(tx.Now); waiting && (cr.deadline.IsZero() || tx.Now.Before(cr.deadline)) {
			at := next
			if !cr.deadline.IsZero() && cr.deadline.Before(at) {
				at = cr.deadline
			}
			waits = append(waits, reactor.RetryAt(at, "commit's acknowledgements: retry backoff after a retriable answer"))
			continue
		}
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
	return work, waits
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

func (c *Consume) topicID(tp managers.TopicPartition) [16]byte {
	if tm, ok := c.meta.Topic(tp.Topic); ok {
		return tm.ID
	}
	return [16]byte{}
}

// topicIndex is the index in topics of the request topic with id, appended
// (made by newTopic) the first time; byID remembers the indexes.
func topicIndex[T any](byID map[[16]byte]int, topics *[]T, id [16]byte, newTopic func([16]byte) T) int {
	i, ok := byID[id]
	if !ok {
		*topics = append(*topics, newTopic(id))
		i = len(*topics) - 1
		byID[id] = i
	}
	return i
}
