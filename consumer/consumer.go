// Package consumer is the public API of the regular (KIP-848) consumer: the
// request managers of managers/ and managers/group driven by an execution
// engine, with a franz-go transport. New builds it on the reactor
// (reactor.Loop); NewBaseline builds the same managers on the model of
// today's execution (reactor/baseline), the suite's negative control.
package consumer

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/reactor"
)

// path is the application side of the public API: how calls wait and what
// they see. reactorPath waits on published decisions; baselinePath models
// today's application thread.
type path interface {
	poll(ctx context.Context) ([]Record, error)
	commitSync(ctx context.Context) error
	commitAsync(cb func(error))
	wakeup()
	close(ctx context.Context) error
}

// Consumer is a KIP-848 group consumer. Its methods are for one application
// goroutine at a time (like Java's KafkaConsumer), except Wakeup.
type Consumer struct {
	cfg     Config
	subject string // "reactor" or "baseline"
	engineSide
	path path
	tr   *transport
	log  *slog.Logger

	// Managers and loop-side state: engine goroutine only.
	coord         *managers.Coordinator
	meta          *managers.Metadata
	member        *group.Membership
	commit        *group.Commit
	fetch         *group.Fetch
	offsets       *group.Offsets
	manual        []managers.TopicPartition
	manualVersion uint64
	closing       bool
	needsCoord    func(v group.View) bool

	// Application side.
	appSide
	appMu    sync.Mutex // guards received
	received map[managers.TopicPartition]managers.Position
}

// New validates cfg and starts a consumer on the reactor. It sends nothing
// until Subscribe or Assign. Errors: *ConfigError.
func New(cfg Config) (*Consumer, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	c := newConsumer(cfg, "reactor")
	app := &application{c: c}
	c.needsCoord = c.outstandingNeedsCoordinator
	loop, err := reactor.New(reactor.Config[group.View]{
		// The application manager goes first: what it starts (the final
		// commit, the leave) is polled by its owner in the same round.
		Managers:  append([]reactor.Manager[group.View]{app}, c.managers()...),
		View:      c.view,
		Snapshot:  c.snapshot,
		Transport: c.tr,
		Logger:    c.log,
	})
	if err != nil {
		return nil, err
	}
	c.eng = loop
	c.path = &reactorPath{c: c, app: app}
	loop.Start()
	return c, nil
}

func newConsumer(cfg Config, subject string) *Consumer {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	backoff := managers.NewBackoff(cfg.RetryBackoff, cfg.RetryBackoffMax)
	c := &Consumer{cfg: cfg, subject: subject, log: cfg.Logger, tr: newTransport(&cfg), received: map[managers.TopicPartition]managers.Position{}}
	c.coord = managers.NewCoordinator(cfg.GroupID, managers.KeyTypeGroup, backoff)
	c.meta = managers.NewMetadata(cfg.BootstrapServers, cfg.MetadataMaxAge, backoff)
	c.member = group.NewMembership(cfg.GroupID, cfg.RebalanceTimeout, backoff, c.coord)
	c.fetch = group.NewFetch(group.FetchConfig{
		MaxWait: cfg.FetchMaxWait, MinBytes: cfg.FetchMinBytes, MaxBytes: cfg.FetchMaxBytes,
		PartitionMaxBytes: cfg.MaxPartitionFetchBytes, MaxBuffered: cfg.MaxBufferedRecords,
		ReadCommitted: cfg.IsolationLevel == "read_committed", Backoff: backoff,
	}, c.meta)
	c.offsets = group.NewOffsets(cfg.AutoOffsetReset, backoff, c.coord, c.meta, c.fetch)
	return c
}

// managers builds the commit manager (whose consumed-positions source
// differs per path) and lists the protocol managers in poll order.
func (c *Consumer) managers(consumed ...group.ConsumedSource) []reactor.Manager[group.View] {
	src := group.ConsumedSource(c.fetch)
	if len(consumed) > 0 {
		src = consumed[0]
	}
	backoff := managers.NewBackoff(c.cfg.RetryBackoff, c.cfg.RetryBackoffMax)
	c.commit = group.NewCommit(group.CommitConfig{AutoCommit: c.cfg.EnableAutoCommit, AutoCommitInterval: c.cfg.AutoCommitInterval, Backoff: backoff},
		c.cfg.GroupID, c.coord, src)
	return []reactor.Manager[group.View]{
		&coordinatorManager{c: c}, &metadataManager{c: c},
		c.member, c.commit, c.fetch, c.offsets,
	}
}

// coordinatorManager and metadataManager adapt the shared managers to the
// regular consumer's view; LocalTimer passes through for the baseline.
type coordinatorManager struct{ c *Consumer }

func (m *coordinatorManager) Name() string { return m.c.coord.Name() }
func (m *coordinatorManager) Poll(tx *reactor.Tx, v group.View) reactor.Result {
	return m.c.coord.Poll(tx, m.c.needsCoord(v), m.c.meta.Addrs())
}
func (m *coordinatorManager) LocalTimer() (time.Time, bool) { return m.c.coord.LocalTimer() }

type metadataManager struct{ c *Consumer }

func (m *metadataManager) Name() string { return m.c.meta.Name() }
func (m *metadataManager) Poll(tx *reactor.Tx, v group.View) reactor.Result {
	return m.c.meta.Poll(tx, m.c.metadataTopics())
}

// view builds the immutable per-round view (engine goroutine).
func (c *Consumer) view(time.Time) group.View {
	coord, known := c.coord.Known()
	assignment, version := c.assignment()
	return group.View{
		Coordinator: coord, CoordinatorKnown: known, Meta: c.meta, GroupID: c.cfg.GroupID,
		InGroup: c.member.InGroup(), MemberID: c.member.MemberID(), MemberEpoch: c.member.Epoch(),
		Assignment: assignment, AssignmentVersion: version, Closing: c.closing,
	}
}

// assignment is the group's reconciled assignment while in a group, else the
// manual one; the version sums both monotone counters so it changes when
// either does.
func (c *Consumer) assignment() ([]managers.TopicPartition, uint64) {
	owned, ov := c.member.Owned()
	if c.member.InGroup() {
		return owned, ov + c.manualVersion
	}
	return c.manual, ov + c.manualVersion
}

// outstandingNeedsCoordinator: on the reactor, discovery runs only while
// outstanding work needs the coordinator (invariant 7; KAFKA-18569).
func (c *Consumer) outstandingNeedsCoordinator(v group.View) bool {
	if c.cfg.GroupID == "" {
		return false
	}
	return c.member.NeedsCoordinator() || c.commit.NeedsCoordinator() || c.offsets.NeedsCoordinator(v)
}

// metadataTopics are the subscribed topics plus the assigned ones.
func (c *Consumer) metadataTopics() []string {
	set := map[string]bool{}
	if c.member.InGroup() {
		for _, t := range c.member.Subscription() {
			set[t] = true
		}
	}
	assignment, _ := c.assignment()
	for _, tp := range assignment {
		set[tp.Topic] = true
	}
	return slices.Sorted(maps.Keys(set))
}

func (c *Consumer) snapshot(d *reactor.Decision) any {
	assignment, _ := c.assignment()
	return &Snapshot{
		Assignment: assignment, MemberState: c.member.State(), MemberEpoch: c.member.Epoch(),
		Buffered: c.fetch.Buffered(), PendingCommits: c.commit.Pending(), InFlight: c.tr.inFlight(),
		Closing: c.closing, Closed: d.Closed,
	}
}

// queueCallback hands a completed CommitAsync callback to the application
// goroutine.
func (c *Consumer) queueCallback(cb func(error), err error) {
	if cb != nil {
		c.queue(func() { cb(err) })
	}
}

func (c *Consumer) receivedCopy() map[managers.TopicPartition]managers.Position {
	c.appMu.Lock()
	defer c.appMu.Unlock()
	return maps.Clone(c.received)
}

func (c *Consumer) addReceived(pos map[managers.TopicPartition]managers.Position) {
	if len(pos) == 0 {
		return
	}
	c.appMu.Lock()
	maps.Copy(c.received, pos)
	c.appMu.Unlock()
}

// Subscribe joins the group with the given topics (replacing any earlier
// subscription or manual assignment); no topics unsubscribes. Errors:
// ErrNoGroup without a group.id, ErrClosed, ErrConcurrentUse.
func (c *Consumer) Subscribe(topics ...string) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	if c.cfg.GroupID == "" {
		return ErrNoGroup
	}
	topics = slices.Clone(topics)
	return c.call("subscribe", func(tx *reactor.Tx, reply func(error)) {
		if len(c.manual) > 0 {
			c.manual = nil
			c.manualVersion++
		}
		c.member.Subscribe(topics)
		reply(nil)
	})
}

// Assign takes the partitions manually, without group membership (Java's
// assign); the group.id, if any, is used for commits only. An empty list
// unassigns. Errors: *InvalidPartitionError for an empty topic or a negative
// partition, ErrSubscribed while subscribed, ErrClosed, ErrConcurrentUse.
func (c *Consumer) Assign(partitions ...managers.TopicPartition) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	partitions = slices.Clone(partitions)
	slices.SortFunc(partitions, managers.CompareTopicPartition)
	partitions = slices.Compact(partitions)
	for _, tp := range partitions {
		if tp.Topic == "" || tp.Partition < 0 {
			return &InvalidPartitionError{TP: tp}
		}
	}
	return c.call("assign", func(tx *reactor.Tx, reply func(error)) {
		if len(c.member.Subscription()) > 0 && c.member.InGroup() {
			reply(ErrSubscribed)
			return
		}
		c.manual = partitions
		c.manualVersion++
		reply(nil)
	})
}

// Pause stops fetching the partitions and withholds their buffered records
// until Resume. Errors: a *group.PartitionError wrapping
// group.ErrNotAssigned, ErrClosed, ErrConcurrentUse.
func (c *Consumer) Pause(partitions ...managers.TopicPartition) error {
	return c.pauseResume("pause", partitions, c.fetch.Pause)
}

// Resume undoes Pause. Errors as Pause.
func (c *Consumer) Resume(partitions ...managers.TopicPartition) error {
	return c.pauseResume("resume", partitions, c.fetch.Resume)
}

func (c *Consumer) pauseResume(name string, partitions []managers.TopicPartition, fn func([]managers.TopicPartition) error) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	partitions = slices.Clone(partitions)
	return c.call(name, func(tx *reactor.Tx, reply func(error)) { reply(fn(partitions)) })
}

// Poll returns the next records. It blocks until records are available, an
// error is owed to the application (a fetch or metadata error such as
// TOPIC_AUTHORIZATION_FAILED, a fatal group error), Wakeup is called, or
// ctx is done. When ctx's deadline passes with no records it returns
// (nil, nil), as Java's poll(timeout) returns an empty batch; a canceled
// ctx returns ctx.Err(). Completed CommitAsync callbacks run first, on this
// goroutine. Errors: ErrWakeup, ErrClosed, ErrConcurrentUse, or the owed
// error.
func (c *Consumer) Poll(ctx context.Context) ([]Record, error) {
	if err := c.acquire(); err != nil {
		return nil, err
	}
	defer c.release()
	c.runCallbacks()
	return c.path.poll(ctx)
}

// CommitSync commits the positions of every record returned by completed
// Polls (for assigned partitions) and waits for the coordinator to accept
// them, until ctx's deadline (default.api.timeout.ms without one).
// Completed CommitAsync callbacks run first. Errors: *group.CommitError
// (wrapping the kerr error or group.ErrCommitTimeout), ErrNoGroup,
// ErrClosed, ErrConcurrentUse, ctx.Err().
func (c *Consumer) CommitSync(ctx context.Context) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	if c.cfg.GroupID == "" {
		return ErrNoGroup
	}
	c.runCallbacks()
	return c.path.commitSync(ctx)
}

// CommitAsync commits like CommitSync without waiting; cb (may be nil)
// runs exactly once with the outcome, on the application goroutine during a
// later Poll, CommitSync or Close (Java's callback thread guarantee). The
// commit's deadline is default.api.timeout.ms or the close deadline,
// whichever comes first.
func (c *Consumer) CommitAsync(cb func(error)) {
	if err := c.acquire(); err != nil {
		if cb != nil {
			cb(err)
		}
		return
	}
	defer c.release()
	if c.cfg.GroupID == "" {
		if cb != nil {
			cb(ErrNoGroup)
		}
		return
	}
	c.path.commitAsync(cb)
}

// Wakeup makes a blocked Poll return ErrWakeup, or the next Poll if none is
// blocked. Safe from any goroutine.
func (c *Consumer) Wakeup() {
	if c.closed.Load() {
		return
	}
	c.path.wakeup()
}

// Close commits consumed positions (with auto-commit), then leaves the
// group, then stops, all by ctx's deadline (30 s without one, as Java's
// close()). On the reactor, work still outstanding at the deadline is
// failed: pending commits complete with *group.CommitError wrapping
// ErrCloseDeadline, and Close returns an error wrapping ErrCloseDeadline
// listing what was left. Completed CommitAsync callbacks run before Close
// returns. A second Close returns ErrClosed.
func (c *Consumer) Close(ctx context.Context) error {
	if !c.closed.CompareAndSwap(false, true) {
		return ErrClosed
	}
	err := c.path.close(ctx)
	c.eng.Stop()
	c.tr.close()
	c.runCallbacks()
	return err
}

// closeDeadline is ctx's deadline, now for a ctx already done (a canceled
// Close fails what is outstanding at once), else 30 s (Java's close()).
func closeDeadline(ctx context.Context) time.Time {
	if ctx.Err() != nil {
		return time.Now()
	}
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now().Add(30 * time.Second)
}

// Subject is "reactor" or "baseline".
func (c *Consumer) Subject() string { return c.subject }

// Assignment returns the partitions the consumer owns, as last published.
func (c *Consumer) Assignment() []managers.TopicPartition {
	if s := c.Snapshot(); s != nil {
		return s.Assignment
	}
	return nil
}

// Snapshot returns the last published application-visible snapshot.
func (c *Consumer) Snapshot() *Snapshot {
	s, _ := c.eng.Current().Snapshot.(*Snapshot)
	return s
}

// WaitFor blocks until cond holds for a published snapshot (see
// reactor.Loop.WaitFor). Errors: ctx.Err(), ErrClosed.
func (c *Consumer) WaitFor(ctx context.Context, cond func(*Snapshot) bool) error {
	return waitSnapshot(ctx, c.eng, cond)
}
