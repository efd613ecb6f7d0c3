// Package consumer is the public API of the KIP-1371 reference consumers:
// Consumer, a regular (KIP-848) group consumer, and ShareConsumer, a share
// (KIP-932) consumer. Both run the request managers of managers/ on the
// reactor (reactor.Loop) with a franz-go transport. The application API
// follows Java's KafkaConsumer and KafkaShareConsumer; Diagnostics is the one
// accessor for what the execution shows of itself (P6, "diagnosable").
package consumer

import (
	"context"

	"github.com/kreactor/kreactor/internal/client"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// Consumer is a KIP-848 group consumer. Its methods are for one application
// goroutine at a time (like Java's KafkaConsumer), except Wakeup.
type Consumer struct {
	g  *client.Group
	rb *rebalance // the rebalance listener and its queued calls (listener.go)
}

// New validates cfg and starts a consumer on the reactor. It sends nothing
// until Subscribe or Assign. Errors: *ConfigError.
func New(cfg Config) (*Consumer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return start(client.NewGroup(cfg))
}

// NewOn is New on tr instead of the franz-go transport: every request the
// request managers build is handed to tr (its Payload a *managers.Call:
// node, address, kmsg request), and tr completes it (reactor.Transport's
// contract: exactly once, from any goroutine) or never. It is for
// harnesses, not applications: kreactor's null subject runs this consumer
// on a transport that never sends, to show that every regression spec needs
// progress to pass; a fault-injecting transport is another use. tr belongs
// to the caller: Close does not close it. Errors: *ConfigError.
func NewOn(cfg Config, tr reactor.Transport) (*Consumer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if tr == nil {
		return nil, &ConfigError{Field: "transport", Value: nil, Reason: "NewOn needs a transport"}
	}
	return start(client.NewGroupOn(cfg, tr))
}

// start builds the reactor and the application side over g's managers and
// starts them.
func start(g *client.Group) (*Consumer, error) {
	app := newApplication(g)
	g.PollPending = app.poll.Pending
	g.Fetch.WaitPollAfterEmpty() // the application reports its Polls (onPoll)
	g.Fetch.SendAfterAnswer()    // a Poll's answer goes before the next Fetch
	// The application manager goes first: what it starts (the final
	// commit, the leave) is polled by its owner in the same round.
	loop, err := reactor.New(g.EngineConfig(g.Fetch, app))
	if err != nil {
		return nil, err
	}
	rb := &rebalance{}
	useRebalance(g, app, rb)
	g.Start(loop, &reactorPath{g: g, app: app})
	return &Consumer{g: g, rb: rb}, nil
}

// Subscribe records the subscription to the given topics (replacing any
// earlier subscription or manual assignment); the member joins the group at
// the next Poll, as Java's subscribe only records it and the join happens
// in poll (AbstractMembershipManager.onConsumerPoll). No topics
// unsubscribes (the member leaves the group). Errors:
// ErrNoGroup without a group.id, ErrClosed, ErrConcurrentUse.
func (c *Consumer) Subscribe(topics ...string) error { return c.g.Subscribe(topics...) }

// Assign takes the partitions manually, without group membership (Java's
// assign); the group.id, if any, is used for commits only. An empty list
// unassigns. Errors: *InvalidPartitionError for an empty topic or a negative
// partition, ErrSubscribed while subscribed, ErrClosed, ErrConcurrentUse.
func (c *Consumer) Assign(partitions ...managers.TopicPartition) error {
	return c.g.Assign(partitions...)
}

// Pause stops fetching the partitions and withholds their buffered records
// until Resume. Errors: a *group.PartitionError wrapping
// group.ErrNotAssigned, ErrClosed, ErrConcurrentUse.
func (c *Consumer) Pause(partitions ...managers.TopicPartition) error {
	return c.g.Pause(partitions...)
}

// Resume undoes Pause. Errors as Pause.
func (c *Consumer) Resume(partitions ...managers.TopicPartition) error {
	return c.g.Resume(partitions...)
}

// Seek moves the fetch position of an assigned partition to offset (Java's
// seek): the next Poll delivers from offset, and a commit with no Poll in
// between commits it. Errors: a *group.PartitionError wrapping
// group.ErrNotAssigned, an error wrapping client.ErrNegativeOffset,
// ErrClosed, ErrConcurrentUse.
func (c *Consumer) Seek(tp managers.TopicPartition, offset int64) error { return c.g.Seek(tp, offset) }

// Poll returns the next records. It blocks until records are available, an
// error is owed to the application (a fetch or metadata error such as
// TOPIC_AUTHORIZATION_FAILED, a fatal group error), Wakeup is called, or
// ctx is done. When ctx's deadline passes with no records it returns
// (nil, nil), as Java's poll(timeout) returns an empty batch; a ctx whose
// deadline has already passed (Java's poll(Duration.ZERO)) still returns
// the records already buffered and lets what is due be sent (the join, a
// Fetch). A canceled ctx returns ctx.Err(). Completed CommitAsync callbacks run first, on this
// goroutine. Errors: ErrWakeup, ErrClosed, ErrConcurrentUse, or the owed
// error.
// Rebalance listener methods (RebalanceListener) run inside Poll, on its
// goroutine.
func (c *Consumer) Poll(ctx context.Context) ([]Record, error) { return c.poll(ctx) }

// CommitSync commits the positions of every record returned by completed
// Polls (for assigned partitions) and waits for the coordinator to accept
// them, until ctx's deadline (default.api.timeout.ms without one). Commits
// complete in the order made: when CommitSync returns, every CommitAsync
// made before it has completed (unless its own deadline came first) and its
// callback has run, on this goroutine (Java's commitSync contract), each
// callback exactly once. A ctx whose deadline has already passed
// (commitSync(Duration.ZERO)) still sends the commit once when it can go
// at once, and returns ctx.Err() without waiting for the answer (Java's
// TimeoutException). Errors: *group.CommitError
// (wrapping the kerr error or group.ErrCommitTimeout), ErrNoGroup,
// ErrClosed, ErrConcurrentUse, ctx.Err().
func (c *Consumer) CommitSync(ctx context.Context) error { return c.g.CommitSync(ctx) }

// CommitAsync commits like CommitSync without waiting; cb (may be nil)
// runs exactly once with the outcome, on the application goroutine during a
// later Poll, CommitSync or Close (Java's callback thread guarantee). The
// commit's deadline is default.api.timeout.ms, or the end of Close's commit
// phase, whichever comes first.
func (c *Consumer) CommitAsync(cb func(error)) { c.g.CommitAsync(cb) }

// Wakeup makes a blocked Poll return ErrWakeup, or the next Poll if none is
// blocked. Safe from any goroutine.
func (c *Consumer) Wakeup() { c.g.Wakeup() }

// Close commits the positions after every record Poll returned (with
// auto-commit: Java's close commits the consumed positions), then leaves the
// group (a heartbeat with member epoch -1), then stops, by one deadline:
// ctx's, capped at request.timeout.ms from now as Java's close timer is
// (30 s without one, as Java's close()). The deadline is shared out in
// phases: the commits (the final one and CommitAsync calls still pending)
// get all but the last quarter of it (at least 50 ms kept back); whatever is
// still outstanding then fails (*group.CommitError wrapping
// ErrCloseDeadline) and the leave is sent anyway, answered or not by the
// deadline. A ctx already done (Close(0)) fails the commits at once and
// still sends the leave, waiting at most 50 ms past the deadline for its
// answer (client.CloseLeaveFloor). Close returns an error wrapping
// ErrCloseDeadline listing what was left. Every CommitAsync callback runs
// exactly once, before Close returns. A second Close returns ErrClosed.
// With a rebalance listener (SubscribeWithListener), its
// OnPartitionsRevoked runs first, on this goroutine, for the partitions
// owned.
func (c *Consumer) Close(ctx context.Context) error {
	if !c.g.Closed() {
		c.releaseOnClose()
	}
	return c.g.Close(ctx)
}

// Assignment returns the partitions the consumer owns, as last published.
func (c *Consumer) Assignment() []managers.TopicPartition { return c.g.Assignment() }

// Diagnostics returns what the execution shows of itself: the loop's
// counters, the latest decision and the recent ones, the application's
// wakeups and commit returns, and the latest snapshot (see Diagnostics).
// Safe from any goroutine.
func (c *Consumer) Diagnostics() Diagnostics { return c.g.Diagnostics() }
