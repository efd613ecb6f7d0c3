package scenario

// A member is one consumer of a run: its handle (regular or share), and what
// it delivered, committed and called back, as the application sees it.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/consume"
	"github.com/kreactor/kreactor/internal/chans"
	"github.com/kreactor/kreactor/managers"
)

type member struct {
	spec     *ConsumerSpec
	clientID string
	group    string // "" none
	c        harness.Consumer
	s        harness.ShareConsumer
	rejected error // construction failed: config_rejected judges it

	// Delivery, guarded by mu (a background step and the evaluation read
	// it from different goroutines; calls on the consumer itself never
	// overlap, the file's checks ensure it).
	mu            sync.Mutex
	unique        int
	consumeTarget int // the last consume step's target (unique records)
	lastOffset    map[managers.TopicPartition]int64
	firstPos      map[managers.TopicPartition]int64
	processed     []processedMark
	violations    []string
	firstRecordAt time.Time
	pollErrors    int
	// share: each record's highest delivery count seen, and the last batch
	// (what acknowledge acts on).
	shareSeen map[shareKey]int16
	seen      map[shareKey]bool // a regular consumer's records, for consumer: all
	redeliv   int               // share records seen again (a higher delivery count)
	lastBatch []harness.ShareRecord
	acks      []ackRun
	closed    bool
	listener  *listenerLog // the rebalance listener it subscribed with, if any (listener.go)
}

type shareKey struct {
	tp     managers.TopicPartition
	offset int64
}

// ackRun is one acknowledgement commit callback run.
type ackRun struct {
	at      time.Time
	offsets int
	err     error
}

type processedMark struct {
	at  time.Time
	tp  managers.TopicPartition
	pos int64 // next offset to process
}

func newMember(spec *ConsumerSpec, clientID, group string) *member {
	return &member{spec: spec, clientID: clientID, group: group,
		lastOffset: map[managers.TopicPartition]int64{}, firstPos: map[managers.TopicPartition]int64{},
		shareSeen: map[shareKey]int16{}, seen: map[shareKey]bool{}}
}

// consumerOf is the consumer handle as an `any` (for probes and abilities).
func (m *member) handle() any {
	if m.s != nil {
		return m.s
	}
	return m.c
}

// live reports whether the consumer was built.
func (m *member) live() bool { return m.c != nil || m.s != nil }

// poll calls Poll once with timeout d, tracks what it delivered, and after a
// non-empty batch "processes" it for process before marking it processed. A
// share consumer's batch is then acknowledged as ack ("" none: implicit
// mode, or acknowledge steps).
func (m *member) poll(ctx context.Context, d, process time.Duration, ack string) (int, error) {
	pctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if m.s != nil {
		recs, err := m.s.Poll(pctx)
		m.trackShare(recs)
		if len(recs) > 0 && process > 0 {
			sleepCtx(ctx, process)
		}
		if ack != "" {
			for _, r := range recs {
				if aerr := m.s.Acknowledge(r, ackTypes[ack]); aerr != nil && err == nil {
					err = fmt.Errorf("acknowledge %s-%d@%d as %s: %w", r.Topic, r.Partition, r.Offset, ack, aerr)
				}
			}
			m.mu.Lock()
			m.lastBatch = nil
			m.mu.Unlock()
		}
		return len(recs), err
	}
	m.mu.Lock()
	done := m.listener.polling()
	m.mu.Unlock()
	recs, err := m.c.Poll(pctx)
	done()
	if len(recs) == 0 {
		return 0, err
	}
	next := m.track(recs)
	if process > 0 {
		sleepCtx(ctx, process) // the application processing the batch
	}
	now := time.Now()
	m.mu.Lock()
	for tp, pos := range next {
		m.processed = append(m.processed, processedMark{at: now, tp: tp, pos: pos})
	}
	m.mu.Unlock()
	return len(recs), err
}

// maxViolations bounds the delivery problems kept for the report.
const maxViolations = 10

func (m *member) track(recs []harness.Record) map[managers.TopicPartition]int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.firstRecordAt.IsZero() {
		m.firstRecordAt = time.Now()
	}
	next := map[managers.TopicPartition]int64{}
	for _, rec := range recs {
		tp := managers.TopicPartition{Topic: rec.Topic, Partition: rec.Partition}
		if _, ok := m.firstPos[tp]; !ok {
			m.firstPos[tp] = rec.Offset
		}
		m.seen[shareKey{tp, rec.Offset}] = true
		if last, ok := m.lastOffset[tp]; ok && rec.Offset <= last {
			if len(m.violations) < maxViolations {
				m.violations = append(m.violations, fmt.Sprintf("%s offset %d after %d (duplicate or out of order)", tp, rec.Offset, last))
			}
		} else {
			m.unique++
		}
		m.lastOffset[tp] = max(m.lastOffset[tp], rec.Offset)
		next[tp] = rec.Offset + 1
	}
	return next
}

// trackShare records a share batch: a record is new the first time it is
// seen; seen again it must come with a higher delivery count (a release,
// an expired lock), else it is a violation.
func (m *member) trackShare(recs []harness.ShareRecord) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(recs) > 0 {
		m.lastBatch = recs
	}
	for _, r := range recs {
		if m.firstRecordAt.IsZero() {
			m.firstRecordAt = time.Now()
		}
		k := shareKey{managers.TopicPartition{Topic: r.Topic, Partition: r.Partition}, r.Offset}
		prev, seen := m.shareSeen[k]
		switch {
		case !seen:
			m.unique++
		case r.DeliveryCount > prev:
			m.redeliv++
		case len(m.violations) < maxViolations:
			m.violations = append(m.violations, fmt.Sprintf("%s offset %d delivered again with delivery count %d (was %d)", k.tp, k.offset, r.DeliveryCount, prev))
		}
		m.shareSeen[k] = max(prev, r.DeliveryCount)
	}
}

// notePollError counts a Poll that returned an error inside a step that
// polls repeatedly (poll_for, consume, wait_assigned).
func (m *member) notePollError() {
	m.mu.Lock()
	m.pollErrors++
	m.mu.Unlock()
}

// delivered is the number of distinct records delivered so far.
func (m *member) delivered() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.unique
}

// processedAt is the next offset to process of tp as of t, or the first
// offset delivered.
func (m *member) processedAt(tp managers.TopicPartition, t time.Time) (int64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	pos, ok := m.firstPos[tp]
	for _, pm := range m.processed {
		if pm.tp == tp && !pm.at.After(t) {
			pos = max(pos, pm.pos)
		}
	}
	return pos, ok
}

// assignment is the consumer's assignment as last published.
func (m *member) assignment() []managers.TopicPartition {
	if m.s != nil {
		return m.s.Assignment()
	}
	return m.c.Assignment()
}

// close closes the consumer with ctx, once; later calls return nil.
func (m *member) close(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	done := m.listener.polling()
	m.mu.Unlock()
	defer done()
	if m.s != nil {
		return m.s.Close(ctx)
	}
	return m.c.Close(ctx)
}

// wasClosed reports whether a close step ran.
func (m *member) wasClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

// noteAck records an acknowledgement commit callback run.
func (m *member) noteAck(offsets map[managers.TopicPartition][]int64, err error) {
	n := 0
	for _, os := range offsets {
		n += len(os)
	}
	m.mu.Lock()
	m.acks = append(m.acks, ackRun{at: time.Now(), offsets: n, err: err})
	m.mu.Unlock()
}

// sleepCtx sleeps d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) { chans.Sleep(d, ctx.Done()) }

// ability returns c (looking through the harness's wrappers) as T.
func ability[T any](c any) (T, bool) {
	for range 16 {
		if t, ok := c.(T); ok {
			return t, true
		}
		switch w := c.(type) {
		case *consume.Tracked:
			c = w.Consumer
		case harness.UnwrapConsumer:
			c = w.Unwrap()
		case interface{ Unwrap() harness.ShareConsumer }:
			c = w.Unwrap()
		case interface{ Underlying() any }:
			c = w.Underlying()
		default:
			var zero T
			return zero, false
		}
	}
	var zero T
	return zero, false
}

// isClosedErr reports a call on a closed consumer.
func isClosedErr(err error) bool { return errors.Is(err, consumer.ErrClosed) }
