// Package consumer is the public API of the regular (KIP-848) consumer built
// on the reactor: managers from managers/ and managers/group driven by one
// reactor.Loop, with a franz-go transport. Application calls only enqueue
// events and wait on what the loop publishes (DESIGN.md, "The loop").
package consumer

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/reactor"
)

// Consumer is a KIP-848 group consumer. Its methods are for one application
// goroutine at a time (like Java's KafkaConsumer), except Wakeup.
type Consumer struct {
	cfg  Config
	loop *reactor.Loop[group.View]
	tr   *transport
	log  *slog.Logger

	// Managers and loop-side state: loop goroutine only.
	coord   *managers.Coordinator
	meta    *managers.Metadata
	member  *group.Membership
	commit  *group.Commit
	fetch   *group.Fetch
	offsets *group.Offsets
	app     *application

	// Application side.
	inUse     atomic.Bool // guards against concurrent application calls
	closed    atomic.Bool
	pollID    atomic.Uint64
	appMu     sync.Mutex // guards received, callbacks
	received  map[managers.TopicPartition]managers.Position
	callbacks []func()
}

// New validates cfg and starts the consumer's loop. It sends nothing until
// Subscribe. Errors: *ConfigError.
func New(cfg Config) (*Consumer, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	backoff := managers.Backoff{Initial: cfg.RetryBackoff, Max: cfg.RetryBackoffMax, Jitter: 0.2}
	c := &Consumer{cfg: cfg, log: cfg.Logger, tr: newTransport(&cfg), received: map[managers.TopicPartition]managers.Position{}}
	c.coord = managers.NewCoordinator(cfg.GroupID, managers.KeyTypeGroup, backoff)
	c.meta = managers.NewMetadata(cfg.BootstrapServers, cfg.MetadataMaxAge, backoff)
	c.member = group.NewMembership(cfg.GroupID, cfg.RebalanceTimeout, backoff, c.coord)
	c.fetch = group.NewFetch(group.FetchConfig{
		MaxWait: cfg.FetchMaxWait, MinBytes: cfg.FetchMinBytes, MaxBytes: cfg.FetchMaxBytes,
		PartitionMaxBytes: cfg.MaxPartitionFetchBytes, MaxBuffered: cfg.MaxBufferedRecords,
		ReadCommitted: cfg.IsolationLevel == "read_committed", Backoff: backoff,
	}, c.meta)
	c.commit = group.NewCommit(group.CommitConfig{AutoCommit: cfg.EnableAutoCommit, AutoCommitInterval: cfg.AutoCommitInterval, Backoff: backoff},
		cfg.GroupID, c.coord, c.fetch)
	c.offsets = group.NewOffsets(cfg.AutoOffsetReset, backoff, c.coord, c.fetch)
	c.app = &application{c: c}

	loop, err := reactor.New(reactor.Config[group.View]{
		// The application manager goes first: what it starts (the final
		// commit, the leave) is polled by its owner in the same round.
		Managers: []reactor.Manager[group.View]{
			c.app,
			adapt("coordinator", func(tx *reactor.Tx, v group.View) reactor.Result {
				return c.coord.Poll(tx, c.needsCoordinator(v), c.meta.Addrs())
			}),
			adapt("metadata", func(tx *reactor.Tx, v group.View) reactor.Result {
				return c.meta.Poll(tx, c.metadataTopics())
			}),
			c.member, c.commit, c.fetch, c.offsets,
		},
		View:      c.view,
		Snapshot:  c.snapshot,
		Transport: c.tr,
		Logger:    cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	c.loop = loop
	loop.Start()
	return c, nil
}

// adapt turns a poll function into a reactor.Manager.
func adapt(name string, poll func(*reactor.Tx, group.View) reactor.Result) reactor.Manager[group.View] {
	return &managerFunc{name: name, poll: poll}
}

type managerFunc struct {
	name string
	poll func(*reactor.Tx, group.View) reactor.Result
}

func (m *managerFunc) Name() string                                     { return m.name }
func (m *managerFunc) Poll(tx *reactor.Tx, v group.View) reactor.Result { return m.poll(tx, v) }

// view builds the immutable per-round view (loop goroutine).
func (c *Consumer) view(time.Time) group.View {
	coord, known := c.coord.Known()
	owned, version := c.member.Owned()
	return group.View{
		Coordinator: coord, CoordinatorKnown: known, Meta: c.meta, GroupID: c.cfg.GroupID,
		InGroup: c.member.InGroup(), MemberID: c.member.MemberID(), MemberEpoch: c.member.Epoch(),
		Assignment: owned, AssignmentVersion: version, Closing: c.app.closing != nil,
	}
}

// needsCoordinator: discovery runs only while some outstanding work needs
// the coordinator (invariant 7; KAFKA-18569).
func (c *Consumer) needsCoordinator(v group.View) bool {
	if c.cfg.GroupID == "" {
		return false
	}
	return c.member.NeedsCoordinator() || c.commit.NeedsCoordinator() || c.offsets.NeedsCoordinator(v)
}

// metadataTopics are the subscribed topics plus the assigned ones.
func (c *Consumer) metadataTopics() []string {
	set := map[string]bool{}
	for _, t := range c.subscription() {
		set[t] = true
	}
	owned, _ := c.member.Owned()
	for _, tp := range owned {
		set[tp.Topic] = true
	}
	return slices.Sorted(maps.Keys(set))
}

func (c *Consumer) subscription() []string {
	if !c.member.InGroup() {
		return nil
	}
	return c.member.Subscription()
}

func (c *Consumer) snapshot(d *reactor.Decision) any {
	owned, _ := c.member.Owned()
	return &Snapshot{
		Assignment: owned, MemberState: c.member.State(), MemberEpoch: c.member.Epoch(),
		Buffered: c.fetch.Buffered(), PendingCommits: c.commit.Pending(),
		Closing: c.app.closing != nil, Closed: d.Closed,
	}
}

// acquire guards against concurrent application calls.
func (c *Consumer) acquire() error {
	if c.closed.Load() {
		return ErrClosed
	}
	if !c.inUse.CompareAndSwap(false, true) {
		return ErrConcurrentUse
	}
	return nil
}

func (c *Consumer) release() { c.inUse.Store(false) }

// runCallbacks invokes completed CommitAsync callbacks on the calling
// (application) goroutine, in completion order.
func (c *Consumer) runCallbacks() {
	c.appMu.Lock()
	cbs := c.callbacks
	c.callbacks = nil
	c.appMu.Unlock()
	for _, cb := range cbs {
		cb()
	}
}

func (c *Consumer) receivedCopy() map[managers.TopicPartition]managers.Position {
	c.appMu.Lock()
	defer c.appMu.Unlock()
	return maps.Clone(c.received)
}

// submit enqueues an application event, mapping a stopped loop to ErrClosed.
func (c *Consumer) submit(ctx context.Context, name string, apply func(*reactor.Tx)) error {
	err := c.loop.Submit(ctx, name, apply)
	if errors.Is(err, reactor.ErrStopped) {
		return ErrClosed
	}
	return err
}

// Subscribe joins the group with the given topics (replacing any earlier
// subscription); no topics unsubscribes. Errors: ErrNoGroup without a
// group.id, ErrClosed, ErrConcurrentUse.
func (c *Consumer) Subscribe(topics ...string) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	if c.cfg.GroupID == "" {
		return ErrNoGroup
	}
	topics = slices.Clone(topics)
	return c.submit(context.Background(), "subscribe", func(tx *reactor.Tx) { c.member.Subscribe(topics) })
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
	p := &pendingPoll{id: c.pollID.Add(1), reply: make(chan pollReply, 1)}
	received := c.receivedCopy()
	if err := c.submit(ctx, "poll", func(tx *reactor.Tx) { c.app.onPoll(tx, p, received) }); err != nil {
		return nil, c.ctxResult(err)
	}
	select {
	case r := <-p.reply:
		return c.deliver(r)
	case <-c.loop.Done():
		return c.drainReply(p, ErrClosed)
	case <-ctx.Done():
	}
	// Cancel through the loop so records handed over concurrently are
	// returned, never lost.
	acked := make(chan struct{})
	if c.submit(context.Background(), "poll-cancel", func(tx *reactor.Tx) {
		c.app.onCancel(tx, p.id)
		tx.Effect(func() { close(acked) })
	}) == nil {
		select {
		case <-acked:
		case <-c.loop.Done():
		}
	}
	return c.drainReply(p, c.ctxResult(ctx.Err()))
}

func (c *Consumer) drainReply(p *pendingPoll, err error) ([]Record, error) {
	select {
	case r := <-p.reply:
		return c.deliver(r)
	default:
		return nil, err
	}
}

func (c *Consumer) ctxResult(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return err
}

func (c *Consumer) deliver(r pollReply) ([]Record, error) {
	if len(r.positions) > 0 {
		c.appMu.Lock()
		maps.Copy(c.received, r.positions)
		c.appMu.Unlock()
	}
	return r.records, r.err
}

func (c *Consumer) commitDeadline(ctx context.Context) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now().Add(c.cfg.DefaultAPITimeout)
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
	result := make(chan error, 1)
	received := c.receivedCopy()
	deadline := c.commitDeadline(ctx)
	if err := c.submit(ctx, "commit-sync", func(tx *reactor.Tx) {
		c.fetch.MarkConsumed(received)
		c.commit.Enqueue(tx, c.fetch.Consumed(), deadline, func(err error) { result <- err })
	}); err != nil {
		return err
	}
	select {
	case err := <-result:
		return err
	case <-c.loop.Done():
		select {
		case err := <-result:
			return err
		default:
			return ErrClosed
		}
	case <-ctx.Done():
		return ctx.Err()
	}
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
	received := c.receivedCopy()
	deadline := time.Now().Add(c.cfg.DefaultAPITimeout)
	done := func(err error) {
		if cb == nil {
			return
		}
		c.appMu.Lock()
		c.callbacks = append(c.callbacks, func() { cb(err) })
		c.appMu.Unlock()
	}
	if err := c.submit(context.Background(), "commit-async", func(tx *reactor.Tx) {
		c.fetch.MarkConsumed(received)
		c.commit.Enqueue(tx, c.fetch.Consumed(), deadline, done)
	}); err != nil && cb != nil {
		cb(err)
	}
}

// Wakeup makes a blocked Poll return ErrWakeup, or the next Poll if none is
// blocked. Safe from any goroutine.
func (c *Consumer) Wakeup() {
	if c.closed.Load() {
		return
	}
	_ = c.submit(context.Background(), "wakeup", func(tx *reactor.Tx) { c.app.onWakeup(tx) })
}

// Close commits consumed positions (with auto-commit), then leaves the
// group, then stops the loop, all by ctx's deadline (30 s without one, as
// Java's close()). Work still outstanding at the deadline is failed: pending
// commits complete with *group.CommitError wrapping ErrCloseDeadline, and
// Close returns an error wrapping ErrCloseDeadline listing what was left.
// Completed CommitAsync callbacks run before Close returns. A second Close
// returns ErrClosed.
func (c *Consumer) Close(ctx context.Context) error {
	if !c.closed.CompareAndSwap(false, true) {
		return ErrClosed
	}
	deadline := time.Now().Add(30 * time.Second)
	if d, ok := ctx.Deadline(); ok {
		deadline = d
	}
	done := make(chan error, 1)
	err := c.loop.Submit(context.Background(), "close", func(tx *reactor.Tx) {
		c.app.closing = &closeState{deadline: deadline, done: done}
	})
	if err == nil {
		select {
		case err = <-done:
		case <-c.loop.Done():
			select {
			case err = <-done:
			default:
			}
		}
	}
	c.loop.Stop()
	c.tr.close()
	c.runCallbacks()
	if errors.Is(err, reactor.ErrStopped) {
		err = nil
	}
	return err
}

// Assignment returns the partitions the consumer owns, as last published.
func (c *Consumer) Assignment() []managers.TopicPartition {
	if s, ok := c.loop.Current().Snapshot.(*Snapshot); ok {
		return s.Assignment
	}
	return nil
}

// Snapshot returns the last published application-visible snapshot.
func (c *Consumer) Snapshot() *Snapshot {
	s, _ := c.loop.Current().Snapshot.(*Snapshot)
	return s
}

// Decision returns the latest published timing decision.
func (c *Consumer) Decision() *reactor.Decision { return c.loop.Current().Decision }

// Stats returns the loop's counters (steps, spurious wakeups, contract
// violations).
func (c *Consumer) Stats() reactor.Stats { return c.loop.Stats() }

// Trace returns the recent decisions, oldest first.
func (c *Consumer) Trace() []*reactor.Decision { return c.loop.Trace() }

// WaitFor blocks until cond holds for a published snapshot (see
// reactor.Loop.WaitFor). Errors: ctx.Err(), ErrClosed.
func (c *Consumer) WaitFor(ctx context.Context, cond func(*Snapshot) bool) error {
	_, err := c.loop.WaitFor(ctx, func(p *reactor.Publication) bool {
		s, ok := p.Snapshot.(*Snapshot)
		return ok && cond(s)
	})
	if errors.Is(err, reactor.ErrStopped) {
		return ErrClosed
	}
	return err
}
