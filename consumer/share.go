package consumer

// The share consumer (KIP-932) on the same execution mechanics as the
// regular consumer (reactor.Loop), with the managers of managers/share. It
// shares no manager state with the regular consumer (P5).

import (
	"context"

	"github.com/kreactor/kreactor/internal/client"
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

// AcknowledgementCommitCallback receives each partition's acknowledged
// offsets and the broker's answer (nil: accepted), on the application
// goroutine during a later Poll, CommitSync, CommitAsync or Close (Java's
// AcknowledgementCommitCallback). Its signature is func(offsets
// map[managers.TopicPartition][]int64, err error).
type AcknowledgementCommitCallback = client.AcknowledgementCommitCallback

// ShareConsumer is a KIP-932 share group consumer. Its methods are for one
// application goroutine at a time, except Wakeup.
type ShareConsumer struct {
	s *client.Share
}

// NewShare validates cfg and starts a share consumer on the reactor.
// Errors: *ConfigError.
func NewShare(cfg ShareConfig) (*ShareConsumer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := client.NewShare(cfg)
	loop, err := reactor.New(s.EngineConfig())
	if err != nil {
		return nil, err
	}
	s.Start(loop, &sharePath{s: s})
	return &ShareConsumer{s: s}, nil
}

// SetAcknowledgementCommitCallback sets the callback for acknowledgement
// outcomes (nil removes it). Application goroutine only.
func (c *ShareConsumer) SetAcknowledgementCommitCallback(cb AcknowledgementCommitCallback) {
	c.s.SetAcknowledgementCommitCallback(cb)
}

// Subscribe records the subscription to the given topics; the member joins
// the share group at the next Poll (Java's ShareMembershipManager joins on
// poll). Errors: ErrClosed, ErrConcurrentUse.
func (c *ShareConsumer) Subscribe(topics ...string) error { return c.s.Subscribe(topics...) }

// Acknowledge acknowledges one delivered record with typ. The first call
// puts the consumer in explicit mode for good: every record of a batch must
// then be acknowledged before the next Poll. Without any call, each Poll
// accepts the previous batch (implicit mode). Errors: share.ErrNotDelivered
// (not delivered by this consumer, or already acknowledged),
// share.ErrInvalidAckType, ErrClosed, ErrConcurrentUse.
func (c *ShareConsumer) Acknowledge(r ShareRecord, typ AcknowledgeType) error {
	return c.s.Acknowledge(r, typ)
}

// Poll returns the next acquired records, acknowledging the previous batch
// first (implicit mode: accept all; explicit mode: every record must have
// been acknowledged, else share.ErrUnacknowledged and nothing is fetched).
// It blocks until records are available, an error is owed, Wakeup is called
// or ctx is done ((nil, nil) when its deadline passes, as Java's
// poll(timeout)). Queued acknowledgement callbacks run first. Errors:
// ErrWakeup, ErrClosed, ErrConcurrentUse, share.ErrUnacknowledged, a
// *share.PartitionError. A ctx whose deadline has already passed (Java's
// poll(Duration.ZERO)) returns what is buffered, and the ShareFetch it
// asks for still goes. The member joins the share group at the first Poll
// after Subscribe.
func (c *ShareConsumer) Poll(ctx context.Context) ([]ShareRecord, error) { return c.s.Poll(ctx) }

// CommitSync sends every acknowledgement made so far (in implicit mode,
// accepting the delivered records first) and waits for the brokers'
// answers, until ctx's deadline (default.api.timeout.ms without one). It
// returns each partition's outcome (nil: accepted); the callback sees them
// too. Errors: ctx.Err(), ErrClosed, ErrConcurrentUse.
func (c *ShareConsumer) CommitSync(ctx context.Context) (map[managers.TopicPartition]error, error) {
	return c.s.CommitSync(ctx)
}

// CommitAsync sends every acknowledgement made so far without waiting; the
// outcomes reach the acknowledgement commit callback. Errors: ErrClosed,
// ErrConcurrentUse.
func (c *ShareConsumer) CommitAsync() error { return c.s.CommitAsync() }

// Wakeup makes a blocked Poll return ErrWakeup, or the next Poll if none is
// blocked. Safe from any goroutine.
func (c *ShareConsumer) Wakeup() { c.s.Wakeup() }

// Close acknowledges the delivered records (implicit mode: accept; explicit
// mode: release the unacknowledged), sends every acknowledgement in each
// share session's closing request, then leaves the share group, by one
// deadline: ctx's, capped at request.timeout.ms (30 s without one), shared
// out in phases as Consumer.Close's: the acknowledgements get all but the
// last quarter (at least 50 ms kept back for the leave); what is outstanding
// then fails, those in a request still unanswered included: their offsets
// reach the callback with ErrCloseDeadline (every acknowledged offset is
// reported exactly once, accepted or failed), and the leave is sent anyway.
// Close returns an error wrapping ErrCloseDeadline. Callbacks run before
// Close returns. A second Close returns ErrClosed.
func (c *ShareConsumer) Close(ctx context.Context) error { return c.s.Close(ctx) }

// Assignment returns the assigned partitions, as last published.
func (c *ShareConsumer) Assignment() []managers.TopicPartition { return c.s.Assignment() }

// Diagnostics returns what the execution shows of itself (see
// ShareDiagnostics). Safe from any goroutine.
func (c *ShareConsumer) Diagnostics() ShareDiagnostics { return c.s.Diagnostics() }

// sharePath is the share consumer's application side on the reactor: Poll
// and Close enqueue events and wait for the effects that answer them.
type sharePath struct{ s *client.Share }

func (p *sharePath) Poll(ctx context.Context) ([]ShareRecord, error) {
	w := client.NewPollWait[client.SharePollReply]()
	r, ok, err := client.AwaitReply(ctx, &p.s.EngineSide, p.s.Woke, w,
		func(tx *reactor.Tx) { p.s.App.OnPoll(tx, w) },
		func(tx *reactor.Tx) { p.s.App.OnCancel(tx, w) })
	if !ok {
		return nil, err
	}
	return r.Records, r.Err
}

func (p *sharePath) Wakeup() {
	_ = p.s.Submit(context.Background(), "wakeup", func(tx *reactor.Tx) { p.s.App.OnWakeup(tx) })
}

func (p *sharePath) Close(ctx context.Context) error {
	deadline := client.CloseDeadline(ctx, p.s.Cfg.RequestTimeout)
	return p.s.CloseOnEngine(func(tx *reactor.Tx, done chan error) { p.s.App.OnClose(tx.Now, deadline, done) })
}
