package client

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/kreactor/kreactor/consumer/config"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/share"
	"github.com/kreactor/kreactor/reactor"
)

// ShareSnapshot is the share consumer's application-visible snapshot
// (consumer.ShareSnapshot).
type ShareSnapshot struct {
	Assignment     []managers.TopicPartition
	MemberState    managers.MemberState
	MemberEpoch    int32
	Buffered       int
	Unacknowledged int
	PendingCommits int
	InFlight       int
	Closing        bool
	Closed         bool
}

// AcknowledgementCommitCallback receives each partition's acknowledged
// offsets and the broker's answer (consumer.AcknowledgementCommitCallback).
type AcknowledgementCommitCallback func(offsets map[managers.TopicPartition][]int64, err error)

// SharePath is how a share consumer variant's Poll, Wakeup and Close wait.
// Share calls Poll with the single-caller guard held and the queued
// callbacks already run.
type SharePath interface {
	Poll(ctx context.Context) ([]ShareRecord, error)
	Wakeup()
	Close(ctx context.Context) error
}

// Share is a share (KIP-932) consumer's machinery: its request managers,
// view and snapshot (the assembly seam), its application manager, its
// engine and application sides, and the application calls every variant
// shares. It shares no manager state with a Group (P5).
type Share struct {
	Cfg config.Share
	common
	path SharePath

	// Engine goroutine only.
	Coord   *managers.Coordinator
	Meta    *managers.Metadata
	Member  *share.Membership
	Consume *share.Consume
	App     *ShareApplication

	ackCB AcknowledgementCommitCallback // application goroutine only
}

// NewShare builds the managers of a share consumer with cfg (already
// validated).
func NewShare(cfg config.Share) *Share {
	s := &Share{Cfg: cfg}
	rnd := newRandoms(cfg.Rand)
	s.tr = newTransport(&cfg.Common, cfg.ClientID, rnd)
	backoff := Backoff(cfg.RetryBackoff, cfg.RetryBackoffMax)
	s.Coord, s.Meta = coordinatorAndMetadata(&cfg.Common, cfg.GroupID, rnd, backoff)
	s.Member = share.NewMembership(cfg.GroupID, cfg.MaxPollInterval, rnd.backoff("share-membership", backoff), s.Coord)
	if rnd != nil {
		s.Member.UseMemberID(rnd.memberID)
	}
	s.Consume = share.NewConsume(share.ConsumeConfig{
		MaxWait: cfg.FetchMaxWait, MaxBytes: cfg.FetchMaxBytes, PartitionMaxBytes: cfg.MaxPartitionFetchBytes,
		MaxRecords: int32(cfg.MaxPollRecords), MaxBuffered: cfg.MaxBufferedRecords, Backoff: rnd.backoff("share-consume", backoff),
	}, cfg.GroupID, s.Meta, s.onAck)
	s.App = &ShareApplication{s: s, poll: NewPollSlot(func(err error) SharePollReply { return SharePollReply{Err: err} })}
	return s
}

// EngineConfig returns the engine configuration over the share consumer's
// managers in poll order (the application manager first: what it starts is
// polled in the same round), with the view, the snapshot and the
// transport.
func (s *Share) EngineConfig() reactor.Config[share.View] {
	logger := s.Cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return reactor.Config[share.View]{
		Managers: []reactor.Manager[share.View]{s.App,
			&coordinatorManager[share.View]{s.Coord, s.Meta, func(share.View) bool { return s.Member.NeedsCoordinator() }},
			&metadataManager[share.View]{s.Meta, s.metadataTopics}, s.Member, s.Consume},
		View: s.View, Snapshot: s.Snapshot, Transport: s.tr, Logger: logger,
	}
}

// Start runs eng (built over EngineConfig) with path as the application
// side's waits.
func (s *Share) Start(eng Engine, path SharePath) {
	s.path = path
	s.start(eng, path)
}

// metadataTopics are the subscribed topics while the membership needs
// them, plus the assigned ones.
func (s *Share) metadataTopics(v share.View) []string {
	topics := slices.Clone(s.Member.Subscription())
	if !s.Member.NeedsCoordinator() {
		topics = nil
	}
	for _, tp := range v.Assignment {
		if !slices.Contains(topics, tp.Topic) {
			topics = append(topics, tp.Topic)
		}
	}
	slices.Sort(topics)
	return topics
}

// View builds the immutable per-round view (engine goroutine).
func (s *Share) View(time.Time) share.View {
	coord, known := s.Coord.Known()
	assigned, version := s.Member.Assigned()
	return share.View{
		Coordinator: coord, CoordinatorKnown: known, Meta: s.Meta, GroupID: s.Cfg.GroupID,
		InGroup: s.Member.Joined(), MemberID: s.Member.MemberID(), MemberEpoch: s.Member.Epoch(),
		Assignment: assigned, AssignmentVersion: version, Closing: s.App.closing != nil,
		Polling: s.App.poll.Pending() || s.App.demand,
	}
}

// Snapshot builds the published snapshot (engine goroutine).
func (s *Share) Snapshot(d *reactor.Decision) any {
	assigned, _ := s.Member.Assigned()
	return &ShareSnapshot{
		Assignment: assigned, MemberState: s.Member.State(), MemberEpoch: s.Member.Epoch(),
		Buffered: s.Consume.Buffered(), Unacknowledged: s.Consume.Unacknowledged(),
		PendingCommits: s.Consume.PendingCommits(), InFlight: s.tr.inFlight(),
		Closing: s.App.closing != nil, Closed: d.Closed,
	}
}

// onAck routes acknowledgement outcomes to the application's callback
// (engine goroutine; the callback runs later on the application goroutine).
func (s *Share) onAck(tx *reactor.Tx, outcomes []share.AckOutcome) {
	tx.Effect(func() {
		s.Queue(func() {
			if s.ackCB == nil {
				return
			}
			for _, o := range outcomes {
				s.ackCB(map[managers.TopicPartition][]int64{o.TP: o.Offsets}, o.Err)
			}
		})
	})
}

// The application calls (consumer.ShareConsumer documents each).

// SetAcknowledgementCommitCallback sets the callback (nil removes it).
func (s *Share) SetAcknowledgementCommitCallback(cb AcknowledgementCommitCallback) { s.ackCB = cb }

// Subscribe joins the share group with topics.
func (s *Share) Subscribe(topics ...string) error {
	if err := s.Acquire(); err != nil {
		return err
	}
	defer s.Release()
	topics = slices.Clone(topics)
	return s.Call("subscribe", func(tx *reactor.Tx, reply func(error)) {
		s.Member.Subscribe(topics)
		reply(nil)
	})
}

// Acknowledge acknowledges one delivered record with typ.
func (s *Share) Acknowledge(r ShareRecord, typ share.AckType) error {
	if err := s.Acquire(); err != nil {
		return err
	}
	defer s.Release()
	tp := managers.TopicPartition{Topic: r.Topic, Partition: r.Partition}
	return s.Call("acknowledge", func(tx *reactor.Tx, reply func(error)) {
		err := s.Consume.Acknowledge(tp, r.Offset, typ)
		if err == nil {
			s.App.explicit = true // only an acknowledgement that took effect changes the mode
		}
		reply(err)
	})
}

// Poll returns the next acquired records.
func (s *Share) Poll(ctx context.Context) ([]ShareRecord, error) {
	return guarded(&s.common, func() ([]ShareRecord, error) { return s.path.Poll(ctx) })
}

// CommitSync sends every acknowledgement made so far and waits for the
// brokers' answers; retriable answers are retried until ctx's deadline
// (else default.api.timeout.ms).
func (s *Share) CommitSync(ctx context.Context) (map[managers.TopicPartition]error, error) {
	if err := s.Acquire(); err != nil {
		return nil, err
	}
	defer s.Release()
	s.RunCallbacks()
	type result struct {
		m map[managers.TopicPartition]error
		CommitResult
	}
	done := make(chan result, 1)
	deadline := s.CommitDeadline(ctx)
	if err := s.Submit(ZeroDeadline(ctx), "share-commit-sync", func(tx *reactor.Tx) {
		s.App.commit(tx, deadline, func(m map[managers.TopicPartition]error, v uint64) {
			done <- result{m, CommitResult{Version: v, Published: s.PublishedVersion()}}
		})
	}); err != nil {
		return nil, err
	}
	// Commits complete in the order made: the outcomes of earlier
	// CommitAsync calls are queued before this one's, and run here.
	defer s.RunCallbacks()
	r, err := awaitAnswer(ctx, &s.EngineSide, done)
	if err != nil {
		return nil, err
	}
	s.NoteCommitReturn(r.CommitResult)
	return r.m, nil
}

// CommitAsync sends every acknowledgement made so far without waiting;
// retriable answers are retried until default.api.timeout.ms.
func (s *Share) CommitAsync() error {
	if err := s.Acquire(); err != nil {
		return err
	}
	defer s.Release()
	deadline := time.Now().Add(s.Cfg.DefaultAPITimeout)
	return s.Submit(context.Background(), "share-commit-async", func(tx *reactor.Tx) { s.App.commit(tx, deadline, nil) })
}

// CommitDeadline is the deadline of a CommitSync's retries: ctx's
// deadline, or default.api.timeout.ms from now (Java's commitSync()).
func (s *Share) CommitDeadline(ctx context.Context) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now().Add(s.Cfg.DefaultAPITimeout)
}

// Assignment returns the assigned partitions, as last published.
func (s *Share) Assignment() []managers.TopicPartition {
	if snap, ok := published[*ShareSnapshot](s.Eng); ok {
		return snap.Assignment
	}
	return nil
}

// WaitFor blocks until cond holds for a published snapshot. Errors:
// ctx.Err(), ErrClosed.
func (s *Share) WaitFor(ctx context.Context, cond func(*ShareSnapshot) bool) error {
	return WaitSnapshot(ctx, s.Eng, cond)
}

// Diagnostics returns the execution's counters, latest decision, trace and
// snapshot.
func (s *Share) Diagnostics() Diagnostics[*ShareSnapshot] {
	return Diagnostics[*ShareSnapshot]{s.Eng, &s.AppSide}
}
