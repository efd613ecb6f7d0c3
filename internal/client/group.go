package client

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/kreactor/kreactor/consumer/config"
	"github.com/kreactor/kreactor/internal/mutant"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/reactor"
)

// Snapshot is the regular consumer's application-visible state, published
// with every decision (consumer.Snapshot).
type Snapshot struct {
	Assignment     []managers.TopicPartition // owned partitions, sorted
	MemberState    managers.MemberState
	MemberEpoch    int32
	Buffered       int  // records buffered for the application
	PendingCommits int  // commits queued or in flight
	InFlight       int  // requests sent and not yet completed (before this step's)
	Closing        bool // Close has started
	Closed         bool // the engine has stopped
}

// GroupPath is how a consumer variant's Poll, CommitSync, CommitAsync,
// Wakeup and Close wait (the reactor: on published decisions; the baseline:
// today's application thread). Group calls it with the single-caller guard
// held (Wakeup excepted) and the queued callbacks already run.
type GroupPath interface {
	Poll(ctx context.Context) ([]Record, error)
	CommitSync(ctx context.Context) error
	CommitAsync(cb func(error))
	Wakeup()
	Close(ctx context.Context) error
}

// Group is a regular (KIP-848) consumer's machinery: its request managers,
// view and snapshot (the assembly seam), its engine and application sides,
// and the application calls every variant shares.
type Group struct {
	Cfg config.Consumer
	common
	Log  *slog.Logger
	path GroupPath

	// Managers and engine-side state: engine goroutine only.
	Coord   *managers.Coordinator
	Meta    *managers.Metadata
	Member  *group.Membership
	Commit  *group.Commit // built by EngineConfig
	Fetch   *group.Fetch
	Offsets *group.Offsets
	// NeedsCoordinator says whether discovery must run; set by the
	// variant before Start (OutstandingNeedsCoordinator on the reactor).
	NeedsCoordinator func(v group.View) bool
	// PollPending says whether an application Poll waits on the engine
	// (the view's Polling: Poll activity for max.poll.interval.ms); set by
	// the variant before Start, nil when its Poll does not wait on the
	// engine (it reports each poll event with Member.OnPoll instead).
	PollPending func() bool
	// OnSeek, if set, runs on the engine goroutine after Seek moved a
	// position (the baseline drops its application-side buffer's records
	// of the partition); set by the variant before Start.
	OnSeek func(tp managers.TopicPartition, pos managers.Position)
	// Closing is set when the close sequence starts (the view's Closing).
	Closing       bool
	manual        []managers.TopicPartition
	manualVersion uint64

	appMu    sync.Mutex // guards received
	received map[managers.TopicPartition]managers.Position

	topics   topicsMemo // MetadataTopics' last answer (engine goroutine)
	lastSnap *Snapshot  // the last snapshot Snapshot built (engine goroutine)

	rnd *randoms // drawn from Cfg.Rand; nil without one. Fixed after newGroup.
}

// NewGroup builds the managers of a consumer with cfg (already validated).
// It sends nothing: the engine is built over EngineConfig and handed to
// Start.
func NewGroup(cfg config.Consumer) *Group {
	rnd := newRandoms(cfg.Rand)
	return newGroup(cfg, rnd, newTransport(&cfg.Common, cfg.ClientID, rnd))
}

// NewGroupOn is NewGroup on tr instead of the franz-go transport: every
// request the managers build (payload *managers.Call) goes to tr, which the
// caller owns (closing the consumer does not close it). For harnesses: a
// transport that never sends (the null subject), or one that injects
// faults.
func NewGroupOn(cfg config.Consumer, tr reactor.Transport) *Group {
	return newGroup(cfg, newRandoms(cfg.Rand), &foreign{tr: tr})
}

func newGroup(cfg config.Consumer, rnd *randoms, tr sender) *Group {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	g := &Group{Cfg: cfg, Log: cfg.Logger, received: map[managers.TopicPartition]managers.Position{}, rnd: rnd}
	g.tr = tr
	backoff := Backoff(cfg.RetryBackoff, cfg.RetryBackoffMax)
	g.Coord, g.Meta = coordinatorAndMetadata(&cfg.Common, cfg.GroupID, rnd, backoff)
	g.Member = group.NewMembership(cfg.GroupID, cfg.MaxPollInterval, rnd.backoff("membership", backoff), g.Coord)
	if rnd != nil {
		g.Member.UseMemberID(rnd.memberID)
	}
	g.Member.UseInstanceID(cfg.GroupInstanceID)
	g.Fetch = group.NewFetch(group.FetchConfig{
		MaxWait: cfg.FetchMaxWait, MinBytes: cfg.FetchMinBytes, MaxBytes: cfg.FetchMaxBytes,
		PartitionMaxBytes: cfg.MaxPartitionFetchBytes, MaxBuffered: cfg.MaxBufferedRecords,
		ReadCommitted: cfg.IsolationLevel == "read_committed", Backoff: rnd.backoff("fetch", backoff),
	}, g.Meta)
	g.Offsets = group.NewOffsets(cfg.AutoOffsetReset, rnd.backoff("offsets", backoff), g.Coord, g.Meta, g.Fetch)
	g.Offsets.SetAPITimeout(cfg.DefaultAPITimeout)
	g.NeedsCoordinator = g.OutstandingNeedsCoordinator
	return g
}

// EngineConfig builds the commit manager (consumed is where it reads the
// positions to commit: the fetch manager on the reactor) and returns the
// engine configuration over first (managers polled before the protocol
// managers, e.g. the application manager) and the protocol managers in poll
// order, with the view, the snapshot and the transport.
func (g *Group) EngineConfig(consumed group.ConsumedSource, first ...reactor.Manager[group.View]) reactor.Config[group.View] {
	g.Commit = group.NewCommit(group.CommitConfig{AutoCommit: g.Cfg.EnableAutoCommit, AutoCommitInterval: g.Cfg.AutoCommitInterval,
		Backoff: g.rnd.backoff("commit", Backoff(g.Cfg.RetryBackoff, g.Cfg.RetryBackoffMax))}, g.Cfg.GroupID, g.Coord, consumed)
	coord := &coordinatorManager[group.View]{g.Coord, g.Meta, func(v group.View) bool { return g.NeedsCoordinator(v) }}
	meta := &metadataManager[group.View]{g.Meta, func(group.View) []string { return g.MetadataTopics() }}
	ms := append(slices.Clone(first), coord, meta, g.Member, g.Commit, g.Fetch, g.Offsets)
	return reactor.Config[group.View]{Managers: ms, View: g.View, Snapshot: g.Snapshot, Transport: g.tr, Logger: g.Log}
}

// Start runs eng (built over EngineConfig) with path as the application
// side's waits.
func (g *Group) Start(eng Engine, path GroupPath) {
	g.path = path
	g.start(eng, path)
}

// View builds the immutable per-round view (engine goroutine).
func (g *Group) View(time.Time) group.View {
	coord, known := g.Coord.Known()
	assignment, version := g.assignment()
	return group.View{
		Coordinator: coord, CoordinatorKnown: known, Meta: g.Meta, GroupID: g.Cfg.GroupID,
		InGroup: g.Member.InGroup(), MemberID: g.Member.MemberID(), MemberEpoch: g.Member.Epoch(),
		Assignment: assignment, AssignmentVersion: version, Closing: g.Closing,
		Polling: g.PollPending != nil && g.PollPending(),
	}
}

// assignment is the group's reconciled assignment while in a group, else the
// manual one; the version sums both monotone counters so it changes when
// either does.
func (g *Group) assignment() ([]managers.TopicPartition, uint64) {
	owned, ov := g.Member.Owned()
	if g.Member.InGroup() {
		return owned, ov + g.manualVersion
	}
	return g.manual, ov + g.manualVersion
}

// SetManual replaces the manual assignment (engine goroutine).
func (g *Group) SetManual(tps []managers.TopicPartition) {
	g.manual = tps
	g.manualVersion++
}

// OutstandingNeedsCoordinator is the reactor's rule: discovery runs only
// while outstanding work needs the coordinator (invariant 7; KAFKA-18569).
func (g *Group) OutstandingNeedsCoordinator(v group.View) bool {
	if g.Cfg.GroupID == "" {
		return false
	}
	if v.Closing && mutant.On("close-keeps-discovery") {
		return true
	}
	return g.Member.NeedsCoordinator() || g.Commit.NeedsCoordinator() || g.Offsets.NeedsCoordinator(v)
}

// MetadataTopics are the subscribed topics plus the assigned ones, sorted
// (engine goroutine). The slice is shared until they change: read it, do
// not modify it.
func (g *Group) MetadataTopics() []string {
	var subs []string
	inGroup := g.Member.InGroup()
	if inGroup {
		subs = g.Member.Subscription()
	}
	assignment, version := g.assignment() // owned or manual, as inGroup says
	m := &g.topics
	if m.ok && m.inGroup == inGroup && m.version == version && slices.Equal(m.subs, subs) {
		return m.topics // the metadata manager asks every round
	}
	set := map[string]bool{}
	for _, t := range subs {
		set[t] = true
	}
	for _, tp := range assignment {
		set[tp.Topic] = true
	}
	*m = topicsMemo{ok: true, inGroup: inGroup, subs: slices.Clone(subs), version: version, topics: slices.Sorted(maps.Keys(set))}
	return m.topics
}

// topicsMemo is MetadataTopics' answer for a membership (in a group or
// not), a subscription (as the member in a group has it, else none) and an
// assignment version.
type topicsMemo struct {
	ok, inGroup bool
	subs        []string
	version     uint64
	topics      []string
}

// Snapshot builds the published snapshot (engine goroutine). A snapshot is
// immutable once published, so one that says what the previous one said
// is the previous one, published again: most steps allocate none.
func (g *Group) Snapshot(d *reactor.Decision) any {
	assignment, _ := g.assignment()
	s := Snapshot{
		Assignment: assignment, MemberState: g.Member.State(), MemberEpoch: g.Member.Epoch(),
		Buffered: g.Fetch.Buffered(), PendingCommits: g.Commit.Pending(), InFlight: g.tr.inFlight(),
		Closing: g.Closing, Closed: d.Closed,
	}
	if p := g.lastSnap; p != nil && p.same(&s) {
		return p
	}
	g.lastSnap = &s
	return g.lastSnap
}

// same reports whether s and o say the same.
func (s *Snapshot) same(o *Snapshot) bool {
	return slices.Equal(s.Assignment, o.Assignment) &&
		s.MemberState == o.MemberState && s.MemberEpoch == o.MemberEpoch && s.Buffered == o.Buffered &&
		s.PendingCommits == o.PendingCommits && s.InFlight == o.InFlight && s.Closing == o.Closing && s.Closed == o.Closed
}

// QueueCallback hands a completed CommitAsync callback to the application
// goroutine.
func (g *Group) QueueCallback(cb func(error), err error) {
	if cb != nil {
		g.Queue(func() { cb(err) })
	}
}

// Received returns a copy of the positions after every record Poll
// returned (application goroutine).
func (g *Group) Received() map[managers.TopicPartition]managers.Position {
	g.appMu.Lock()
	defer g.appMu.Unlock()
	return maps.Clone(g.received)
}

// AddReceived records the positions after records Poll returns.
func (g *Group) AddReceived(pos map[managers.TopicPartition]managers.Position) {
	if len(pos) == 0 {
		return
	}
	g.appMu.Lock()
	maps.Copy(g.received, pos)
	g.appMu.Unlock()
}

// CommitDeadline is ctx's deadline, or default.api.timeout.ms from now.
func (g *Group) CommitDeadline(ctx context.Context) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now().Add(g.Cfg.DefaultAPITimeout)
}

// CommitSyncOf commits the positions consumed returns (called on the engine
// goroutine when the commit is queued) by ctx's deadline, and waits for the
// completion, released by an effect: after publication on the reactor,
// before it on the baseline (counted by NoteCommitReturn either way).
// Errors: the commit's (*group.CommitError), ErrClosed, ctx.Err().
func (g *Group) CommitSyncOf(ctx context.Context, consumed func() map[managers.TopicPartition]managers.Position) error {
	result := make(chan CommitResult, 1)
	deadline := g.CommitDeadline(ctx)
	if err := g.Submit(ZeroDeadline(ctx), "commit-sync", func(tx *reactor.Tx) {
		g.Commit.Enqueue(tx, consumed(), deadline, func(err error, v uint64) {
			result <- CommitResult{Err: err, Version: v, Published: g.PublishedVersion()}
		})
	}); err != nil {
		return err
	}
	select {
	case r := <-result:
		g.Woke()
		g.NoteCommitReturn(r)
		return r.Err
	case <-g.Eng.Done():
		g.Woke()
		select {
		case r := <-result:
			return r.Err
		default:
			return ErrClosed
		}
	case <-ctx.Done():
		g.Woke()
		return ctx.Err()
	}
}

// Committed looks up the group's committed offsets of partitions by ctx's
// deadline (default.api.timeout.ms without one), waiting for the answer;
// a partition without a committed offset is absent. A ctx whose deadline
// has already passed still lets the OffsetFetch go once and returns
// ctx.Err() at once (Java's committed(partitions, Duration.ZERO): a
// TimeoutException). Errors: ErrNoGroup, the look-up's (a
// *group.PartitionError, a kerr error, the deadline's), ErrClosed,
// ErrConcurrentUse, ctx.Err().
func (g *Group) Committed(ctx context.Context, partitions ...managers.TopicPartition) (map[managers.TopicPartition]managers.Position, error) {
	if err := g.Acquire(); err != nil {
		return nil, err
	}
	defer g.Release()
	if g.Cfg.GroupID == "" {
		return nil, ErrNoGroup
	}
	if len(partitions) == 0 {
		return map[managers.TopicPartition]managers.Position{}, nil
	}
	type result struct {
		offsets map[managers.TopicPartition]managers.Position
		err     error
	}
	done := make(chan result, 1)
	deadline := g.CommitDeadline(ctx)
	tps := slices.Clone(partitions)
	if err := g.Submit(ZeroDeadline(ctx), "committed", func(tx *reactor.Tx) {
		g.Offsets.LookupCommitted(tx, tps, deadline, func(m map[managers.TopicPartition]managers.Position, err error) {
			done <- result{m, err}
		})
	}); err != nil {
		return nil, err
	}
	r, err := awaitAnswer(ctx, &g.EngineSide, done)
	if err != nil {
		return nil, err
	}
	return r.offsets, r.err
}

// CommitAsyncOf commits the positions consumed returns (engine goroutine)
// by default.api.timeout.ms from now without waiting; cb (may be nil) gets
// the outcome on the application goroutine (QueueCallback), or Submit's
// error at once.
func (g *Group) CommitAsyncOf(consumed func() map[managers.TopicPartition]managers.Position, cb func(error)) {
	deadline := time.Now().Add(g.Cfg.DefaultAPITimeout)
	if err := g.Submit(context.Background(), "commit-async", func(tx *reactor.Tx) {
		g.Commit.Enqueue(tx, consumed(), deadline, func(err error, _ uint64) { g.QueueCallback(cb, err) })
	}); err != nil && cb != nil {
		cb(err)
	}
}

// WaitFor blocks until cond holds for a published snapshot. Errors:
// ctx.Err(), ErrClosed.
func (g *Group) WaitFor(ctx context.Context, cond func(*Snapshot) bool) error {
	return WaitSnapshot(ctx, g.Eng, cond)
}

// The application calls (consumer.Consumer documents each).

// Subscribe joins the group with topics.
func (g *Group) Subscribe(topics ...string) error {
	if err := g.Acquire(); err != nil {
		return err
	}
	defer g.Release()
	if g.Cfg.GroupID == "" {
		return ErrNoGroup
	}
	topics = slices.Clone(topics)
	return g.Call("subscribe", func(tx *reactor.Tx, reply func(error)) {
		if len(g.manual) > 0 {
			g.SetManual(nil)
		}
		g.Member.Subscribe(topics)
		reply(nil)
	})
}

// AssignPartitions is what an Assign of partitions takes: a sorted copy
// without repeats, or an *InvalidPartitionError for the first partition
// that cannot exist (an empty topic name or a negative number). The kgo
// subject's Assign checks its argument with it too.
func AssignPartitions(partitions []managers.TopicPartition) ([]managers.TopicPartition, error) {
	partitions = slices.Clone(partitions)
	slices.SortFunc(partitions, managers.CompareTopicPartition)
	partitions = slices.Compact(partitions)
	for _, tp := range partitions {
		if tp.Topic == "" || tp.Partition < 0 {
			return nil, &InvalidPartitionError{TP: tp}
		}
	}
	return partitions, nil
}

// Assign takes partitions manually.
func (g *Group) Assign(partitions ...managers.TopicPartition) error {
	if err := g.Acquire(); err != nil {
		return err
	}
	defer g.Release()
	partitions, err := AssignPartitions(partitions)
	if err != nil {
		return err
	}
	return g.Call("assign", func(tx *reactor.Tx, reply func(error)) {
		if len(g.Member.Subscription()) > 0 && g.Member.InGroup() {
			reply(ErrSubscribed)
			return
		}
		g.SetManual(partitions)
		reply(nil)
	})
}

// Pause stops fetching partitions.
func (g *Group) Pause(partitions ...managers.TopicPartition) error {
	return g.pauseResume("pause", partitions, g.Fetch.Pause)
}

// Resume undoes Pause.
func (g *Group) Resume(partitions ...managers.TopicPartition) error {
	return g.pauseResume("resume", partitions, g.Fetch.Resume)
}

func (g *Group) pauseResume(name string, partitions []managers.TopicPartition, fn func([]managers.TopicPartition) error) error {
	if err := g.Acquire(); err != nil {
		return err
	}
	defer g.Release()
	partitions = slices.Clone(partitions)
	return g.Call(name, func(tx *reactor.Tx, reply func(error)) {
		g.syncFetch()
		reply(fn(partitions))
	})
}

// syncFetch hands the fetch manager the assignment now (engine goroutine),
// for an event that needs it before the step's poll round: an assign
// applied in the same step is seen (group.Fetch.SyncAssignment).
func (g *Group) syncFetch() {
	g.Fetch.SyncAssignment(g.assignment())
}

// Poll returns the next records.
func (g *Group) Poll(ctx context.Context) ([]Record, error) {
	return guarded(&g.common, func() ([]Record, error) { return g.path.Poll(ctx) })
}

// CommitSync commits what Poll returned and waits. Commits complete in the
// order made, so when it returns every CommitAsync made before it has
// completed (unless its deadline passed first) and its callback has run, on
// this goroutine, before CommitSync returns (Java's commitSync:
// awaitPendingAsyncCommitsAndExecuteCommitCallbacks).
func (g *Group) CommitSync(ctx context.Context) error {
	if err := g.Acquire(); err != nil {
		return err
	}
	defer g.Release()
	if g.Cfg.GroupID == "" {
		return ErrNoGroup
	}
	g.RunCallbacks()
	err := g.path.CommitSync(ctx)
	g.RunCallbacks()
	return err
}

// CommitAsync commits without waiting; cb runs on the application
// goroutine.
func (g *Group) CommitAsync(cb func(error)) {
	if err := g.Acquire(); err != nil {
		if cb != nil {
			cb(err)
		}
		return
	}
	defer g.Release()
	if g.Cfg.GroupID == "" {
		if cb != nil {
			cb(ErrNoGroup)
		}
		return
	}
	g.path.CommitAsync(cb)
}

// Assignment returns the partitions owned, as last published.
func (g *Group) Assignment() []managers.TopicPartition {
	if s, ok := published[*Snapshot](g.Eng); ok {
		return s.Assignment
	}
	return nil
}

// Diagnostics returns the execution's counters, latest decision, trace and
// snapshot.
func (g *Group) Diagnostics() Diagnostics[*Snapshot] {
	return Diagnostics[*Snapshot]{g.Eng, &g.AppSide}
}
