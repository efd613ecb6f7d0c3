package consumer

// The share consumer (KIP-932) on the same execution mechanics as the
// regular consumer: reactor.Loop (NewShare) or the baseline model
// (NewShareBaseline), with the managers of managers/share. It shares no
// manager state with the regular consumer (P5).

import (
	"context"
	"slices"
	"time"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/share"
	"github.com/kreactor/kreactor/reactor"
)

// AcknowledgeType is how the application acknowledges a share record.
type AcknowledgeType = share.AckType

// Acknowledgement types (Java's AcknowledgeType).
const (
	Accept  = share.AckAccept  // processed: never delivered again
	Release = share.AckRelease // give back: redelivered with a higher delivery count
	Reject  = share.AckReject  // unprocessable: never delivered again
	Renew   = share.AckRenew   // extend the acquisition lock (brokers with KIP-1222)
)

// ShareRecord is a record acquired from a share group, with how many times
// it has been delivered (this time included).
type ShareRecord struct {
	Record
	DeliveryCount int16
}

// AcknowledgementCommitCallback receives each partition's acknowledged
// offsets and the broker's answer (nil: accepted), on the application
// goroutine during a later Poll, CommitSync, CommitAsync or Close (Java's
// AcknowledgementCommitCallback).
type AcknowledgementCommitCallback func(offsets map[managers.TopicPartition][]int64, err error)

// ShareSnapshot is the share consumer's application-visible snapshot.
type ShareSnapshot struct {
	Assignment     []managers.TopicPartition
	MemberState    share.MemberState
	MemberEpoch    int32
	Buffered       int
	Unacknowledged int
	PendingCommits int
	InFlight       int
	Closing        bool
	Closed         bool
}

// ShareConsumer is a KIP-932 share group consumer. Its methods are for one
// application goroutine at a time, except Wakeup.
type ShareConsumer struct {
	cfg     ShareConfig
	subject string
	engineSide
	tr *transport
	appSide

	// engine goroutine only
	coord   *managers.Coordinator
	meta    *managers.Metadata
	member  *share.Membership
	consume *share.Consume
	app     *shareApplication

	ackCB    AcknowledgementCommitCallback // application goroutine only
	baseline *shareBaselinePath            // set on the baseline subject
}

// NewShare validates cfg and starts a share consumer on the reactor.
// Errors: *ConfigError.
func NewShare(cfg ShareConfig) (*ShareConsumer, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	c := newShareConsumer(cfg, "reactor")
	loop, err := reactor.New(reactor.Config[share.View]{
		Managers:  c.managers(),
		View:      c.view,
		Snapshot:  c.snapshot,
		Transport: c.tr,
		Logger:    cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	c.eng = loop
	loop.Start()
	return c, nil
}

func newShareConsumer(cfg ShareConfig, subject string) *ShareConsumer {
	common := cfg.asConfig()
	c := &ShareConsumer{cfg: cfg, subject: subject, tr: newTransport(&common)}
	backoff := managers.NewBackoff(cfg.RetryBackoff, cfg.RetryBackoffMax)
	c.coord = managers.NewCoordinator(cfg.GroupID, managers.KeyTypeGroup, backoff)
	c.meta = managers.NewMetadata(cfg.BootstrapServers, cfg.MetadataMaxAge, backoff)
	c.member = share.NewMembership(cfg.GroupID, backoff, c.coord)
	c.consume = share.NewConsume(share.ConsumeConfig{
		MaxWait: cfg.FetchMaxWait, MaxBytes: cfg.FetchMaxBytes, PartitionMaxBytes: cfg.MaxPartitionFetchBytes,
		MaxRecords: int32(cfg.MaxPollRecords), MaxBuffered: cfg.MaxBufferedRecords, Backoff: backoff,
	}, cfg.GroupID, c.meta, c.onAck)
	c.app = &shareApplication{c: c}
	return c
}

// managers lists the share consumer's managers in poll order: the
// application manager first (what it starts is polled in the same round).
func (c *ShareConsumer) managers() []reactor.Manager[share.View] {
	return []reactor.Manager[share.View]{
		c.app, &shareCoordinator{c}, &shareMetadata{c}, c.member, c.consume,
	}
}

type shareCoordinator struct{ c *ShareConsumer }

func (m *shareCoordinator) Name() string { return m.c.coord.Name() }
func (m *shareCoordinator) Poll(tx *reactor.Tx, v share.View) reactor.Result {
	return m.c.coord.Poll(tx, m.c.member.NeedsCoordinator(), m.c.meta.Addrs())
}
func (m *shareCoordinator) LocalTimer() (time.Time, bool) { return m.c.coord.LocalTimer() }

type shareMetadata struct{ c *ShareConsumer }

func (m *shareMetadata) Name() string { return m.c.meta.Name() }
func (m *shareMetadata) Poll(tx *reactor.Tx, v share.View) reactor.Result {
	topics := slices.Clone(m.c.member.Subscription())
	if !m.c.member.NeedsCoordinator() {
		topics = nil
	}
	for _, tp := range v.Assignment {
		if !slices.Contains(topics, tp.Topic) {
			topics = append(topics, tp.Topic)
		}
	}
	slices.Sort(topics)
	return m.c.meta.Poll(tx, topics)
}

func (c *ShareConsumer) view(time.Time) share.View {
	coord, known := c.coord.Known()
	assigned, version := c.member.Assigned()
	return share.View{
		Coordinator: coord, CoordinatorKnown: known, Meta: c.meta, GroupID: c.cfg.GroupID,
		InGroup: c.member.Joined(), MemberID: c.member.MemberID(), MemberEpoch: c.member.Epoch(),
		Assignment: assigned, AssignmentVersion: version, Closing: c.app.closing != nil,
		Polling: c.app.poll != nil || c.app.demand,
	}
}

func (c *ShareConsumer) snapshot(d *reactor.Decision) any {
	assigned, _ := c.member.Assigned()
	return &ShareSnapshot{
		Assignment: assigned, MemberState: c.member.State(), MemberEpoch: c.member.Epoch(),
		Buffered: c.consume.Buffered(), Unacknowledged: c.consume.Unacknowledged(),
		PendingCommits: c.consume.PendingCommits(), InFlight: c.tr.inFlight(),
		Closing: c.app.closing != nil, Closed: d.Closed,
	}
}

// onAck routes acknowledgement outcomes to the application's callback (loop
// goroutine; the callback runs later on the application goroutine).
func (c *ShareConsumer) onAck(tx *reactor.Tx, outcomes []share.AckOutcome) {
	tx.Effect(func() {
		c.queue(func() {
			if c.ackCB == nil {
				return
			}
			for _, o := range outcomes {
				c.ackCB(map[managers.TopicPartition][]int64{o.TP: o.Offsets}, o.Err)
			}
		})
	})
}

// SetAcknowledgementCommitCallback sets the callback for acknowledgement
// outcomes (nil removes it). Application goroutine only.
func (c *ShareConsumer) SetAcknowledgementCommitCallback(cb AcknowledgementCommitCallback) {
	c.ackCB = cb
}

// Subscribe joins the share group with the given topics. Errors: ErrClosed,
// ErrConcurrentUse.
func (c *ShareConsumer) Subscribe(topics ...string) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	topics = slices.Clone(topics)
	return c.call("subscribe", func(tx *reactor.Tx, reply func(error)) {
		c.member.Subscribe(topics)
		reply(nil)
	})
}

// Acknowledge acknowledges one delivered record with typ. The first call
// puts the consumer in explicit mode for good: every record of a batch must
// then be acknowledged before the next Poll. Without any call, each Poll
// accepts the previous batch (implicit mode). Errors: share.ErrNotDelivered
// (not delivered by this consumer, or already acknowledged),
// share.ErrInvalidAckType, ErrClosed,
// ErrConcurrentUse.
func (c *ShareConsumer) Acknowledge(r ShareRecord, typ AcknowledgeType) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	tp := managers.TopicPartition{Topic: r.Topic, Partition: r.Partition}
	return c.call("acknowledge", func(tx *reactor.Tx, reply func(error)) {
		err := c.consume.Acknowledge(tp, r.Offset, typ)
		if err == nil {
			c.app.explicit = true // only an acknowledgement that took effect changes the mode
		}
		reply(err)
	})
}

// Poll returns the next acquired records, acknowledging the previous batch
// first (implicit mode: accept all; explicit mode: every record must have
// been acknowledged, else share.ErrUnacknowledged and nothing is fetched).
// It blocks until records are available, an error is owed, Wakeup is called
// or ctx is done ((nil, nil) when its deadline passes, as Java's
// poll(timeout)). Queued acknowledgement callbacks run first. Errors:
// ErrWakeup, ErrClosed, ErrConcurrentUse, share.ErrUnacknowledged, a
// *share.PartitionError.
func (c *ShareConsumer) Poll(ctx context.Context) ([]ShareRecord, error) {
	if err := c.acquire(); err != nil {
		return nil, err
	}
	defer c.release()
	c.runCallbacks()
	if c.baseline != nil {
		return c.baseline.poll(ctx)
	}
	p := &sharePoll{reply: make(chan sharePollReply, 1)}
	if err := c.submit(ctx, "poll", func(tx *reactor.Tx) { c.app.onPoll(tx, p) }); err != nil {
		return nil, ctxResult(err)
	}
	select {
	case r := <-p.reply:
		c.appWakeups.Add(1)
		return r.records, r.err
	case <-c.eng.Done():
		return drainShare(p, ErrClosed)
	case <-ctx.Done():
		c.appWakeups.Add(1)
	}
	acked := make(chan struct{})
	if c.submit(context.Background(), "poll-cancel", func(tx *reactor.Tx) {
		c.app.onCancel(p)
		tx.Effect(func() { close(acked) })
	}) == nil {
		select {
		case <-acked:
		case <-c.eng.Done():
		}
	}
	return drainShare(p, ctxResult(ctx.Err()))
}

func drainShare(p *sharePoll, err error) ([]ShareRecord, error) {
	select {
	case r := <-p.reply:
		return r.records, r.err
	default:
		return nil, err
	}
}

// CommitSync sends every acknowledgement made so far (in implicit mode,
// accepting the delivered records first) and waits for the brokers'
// answers, until ctx's deadline (default.api.timeout.ms without one). It
// returns each partition's outcome (nil: accepted); the callback sees them
// too. Errors: ctx.Err(), ErrClosed, ErrConcurrentUse.
func (c *ShareConsumer) CommitSync(ctx context.Context) (map[managers.TopicPartition]error, error) {
	if err := c.acquire(); err != nil {
		return nil, err
	}
	defer c.release()
	c.runCallbacks()
	type result struct {
		m         map[managers.TopicPartition]error
		v         uint64 // state version at which the commit completed
		published uint64 // version published when the release ran
	}
	done := make(chan result, 1)
	if err := c.submit(ctx, "share-commit-sync", func(tx *reactor.Tx) {
		c.app.commit(tx, func(m map[managers.TopicPartition]error, v uint64) {
			done <- result{m, v, c.eng.Current().Decision.Version}
		})
	}); err != nil {
		return nil, err
	}
	select {
	case r := <-done:
		c.appWakeups.Add(1)
		c.noteCommitReturn(r.published, r.v)
		return r.m, nil
	case <-c.eng.Done():
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// CommitAsync sends every acknowledgement made so far without waiting; the
// outcomes reach the acknowledgement commit callback.
func (c *ShareConsumer) CommitAsync() error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	return c.submit(context.Background(), "share-commit-async", func(tx *reactor.Tx) { c.app.commit(tx, nil) })
}

// Wakeup makes a blocked Poll return ErrWakeup, or the next Poll if none is
// blocked. Safe from any goroutine.
func (c *ShareConsumer) Wakeup() {
	if c.closed.Load() {
		return
	}
	if c.baseline != nil {
		c.baseline.buf.wakeup()
		return
	}
	_ = c.submit(context.Background(), "wakeup", func(tx *reactor.Tx) { c.app.onWakeup(tx) })
}

// Close acknowledges the delivered records (implicit mode: accept; explicit
// mode: release the unacknowledged), sends every acknowledgement in each
// share session's closing request, then leaves the share group, all by ctx's
// deadline (30 s without one). What is outstanding at the deadline fails: its
// acknowledgements reach the callback with ErrCloseDeadline, and Close
// returns an error wrapping ErrCloseDeadline. Callbacks run before Close
// returns. A second Close returns ErrClosed.
func (c *ShareConsumer) Close(ctx context.Context) error {
	if !c.closed.CompareAndSwap(false, true) {
		return ErrClosed
	}
	var err error
	if c.baseline != nil {
		err = c.baseline.close(ctx)
		c.eng.Stop()
		c.tr.close()
		c.runCallbacks()
		return err
	}
	done := make(chan error, 1)
	deadline := closeDeadline(ctx)
	if c.submit(context.Background(), "close", func(tx *reactor.Tx) { c.app.onClose(deadline, done) }) == nil {
		select {
		case err = <-done:
		case <-c.eng.Done():
			select {
			case err = <-done:
			default:
			}
		}
	}
	c.eng.Stop()
	c.tr.close()
	c.runCallbacks()
	return err
}

// Subject is "reactor" or "baseline".
func (c *ShareConsumer) Subject() string { return c.subject }

// Snapshot returns the last published snapshot.
func (c *ShareConsumer) Snapshot() *ShareSnapshot {
	s, _ := c.eng.Current().Snapshot.(*ShareSnapshot)
	return s
}

// Assignment returns the assigned partitions, as last published.
func (c *ShareConsumer) Assignment() []managers.TopicPartition {
	if s := c.Snapshot(); s != nil {
		return s.Assignment
	}
	return nil
}

// WaitFor blocks until cond holds for a published snapshot. Errors:
// ctx.Err(), ErrClosed.
func (c *ShareConsumer) WaitFor(ctx context.Context, cond func(*ShareSnapshot) bool) error {
	return waitSnapshot(ctx, c.eng, cond)
}
