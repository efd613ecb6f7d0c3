package kgo

// The share consumer (KIP-932) on kgo's ShareGroup client.

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	franz "github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/share"
)

// ShareConsumer is the kgo subject's share consumer: kgo's ShareGroup client
// behind the harness's black-box share consumer surface, with Java's
// calling contract (package doc). Methods are for one application
// goroutine at a time (consumer.ErrConcurrentUse otherwise), except Wakeup,
// Assignment and the figures.
type ShareConsumer struct {
	cfg   consumer.ShareConfig
	base  []franz.Opt // read-only
	extra []franz.Opt // read-only
	reqs  requestCounter
	calls

	// Application goroutine only (serialized by busy).
	cl       *franz.Client
	clCtx    context.Context
	cancelCl context.CancelFunc
	topics   []string
	batch    map[shareKey]*shareEntry // records of the last Poll
	explicit bool                     // an Acknowledge took effect: explicit mode for good (Java's rule)
	ackCB    consumer.AcknowledgementCommitCallback

	acked      map[managers.TopicPartition][]int64 // guarded by calls.mu; terminal acks kgo has not reported yet
	collect    map[managers.TopicPartition]error   // guarded by calls.mu; outcomes for a running CommitSync, or nil
	describer  *franz.Client                       // guarded by calls.mu; Assignment's own client, made on first use
	lastAssign []managers.TopicPartition           // guarded by calls.mu; Assignment's last answer
}

type shareKey struct {
	tp     managers.TopicPartition
	offset int64
}

// shareEntry is a delivered record and whether the application (or the
// implicit accept) acknowledged it; application goroutine only.
type shareEntry struct {
	r     *franz.Record
	acked bool
}

func newShareConsumer(cfg consumer.ShareConfig, extra []franz.Opt) (*ShareConsumer, error) {
	base, err := shareOpts(cfg)
	if err != nil {
		return nil, err
	}
	return &ShareConsumer{cfg: cfg, base: base, extra: extra, calls: newCalls(),
		batch: map[shareKey]*shareEntry{}, acked: map[managers.TopicPartition][]int64{}}, nil
}

// SetAcknowledgementCommitCallback sets the callback for acknowledgement
// outcomes (nil removes it). kgo reports them (ShareAckCallback) on its own
// goroutine; they are queued and cb runs on the application goroutine
// during a later Poll, CommitSync, CommitAsync or Close, once per
// partition outcome, with the offsets this consumer acknowledged on that
// partition since its previous outcome (kgo's result carries no offsets).
// Application goroutine only.
func (c *ShareConsumer) SetAcknowledgementCommitCallback(cb consumer.AcknowledgementCommitCallback) {
	c.ackCB = cb
}

// Subscribe joins the share group with topics (kgo's ShareGroup and
// ConsumeTopics on the first call; AddConsumeTopics and
// PurgeTopicsFromConsuming later); no topics leaves the group. Errors:
// *InvalidTopicError, consumer.ErrClosed, consumer.ErrConcurrentUse, kgo's
// error creating the client.
func (c *ShareConsumer) Subscribe(topics ...string) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	for _, t := range topics {
		if t == "" {
			return &InvalidTopicError{Topic: t}
		}
	}
	topics = slices.Compact(slices.Sorted(slices.Values(topics)))
	if len(topics) == 0 {
		ctx, cancel := context.WithTimeout(context.Background(), c.cfg.DefaultAPITimeout)
		defer cancel()
		return c.stopClient(ctx)
	}
	if c.cl == nil {
		ctx, cancel := context.WithCancel(context.Background())
		opts := slices.Clone(c.base)
		opts = append(opts, franz.WithContext(ctx), franz.WithHooks(&c.reqs),
			franz.ConsumeTopics(topics...), franz.ShareAckCallback(c.onAck))
		opts = append(opts, c.extra...)
		cl, err := franz.NewClient(opts...)
		if err != nil {
			cancel()
			return fmt.Errorf("kgo subject: %w", err)
		}
		c.cl, c.clCtx, c.cancelCl, c.topics = cl, ctx, cancel, topics
		return nil
	}
	changeTopics(c.cl, c.topics, topics)
	c.topics = topics
	return nil
}

// Acknowledge acknowledges one record of the last Poll (kgo's Record.Ack).
// The first call puts the consumer in explicit mode for good: every record
// of a batch must then be acknowledged before the next Poll (Java's rule;
// kgo itself accepts what is left). Renew extends the acquisition lock and
// leaves the record unacknowledged. Errors: share.ErrInvalidAckType,
// share.ErrNotDelivered (not in the last Poll, or already acknowledged),
// consumer.ErrClosed, consumer.ErrConcurrentUse.
func (c *ShareConsumer) Acknowledge(r consumer.ShareRecord, typ consumer.AcknowledgeType) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	if !typ.Valid() {
		return share.ErrInvalidAckType
	}
	tp := managers.TopicPartition{Topic: r.Topic, Partition: r.Partition}
	e := c.batch[shareKey{tp, r.Offset}]
	if e == nil || e.acked {
		return share.ErrNotDelivered
	}
	e.r.Ack(ackStatus(typ))
	if typ != consumer.Renew {
		e.acked = true
		c.mu.Lock()
		c.acked[tp] = append(c.acked[tp], r.Offset)
		c.mu.Unlock()
	}
	c.explicit = true
	return nil
}

// ackStatus maps the acknowledgement type to kgo's (KIP-932 / KIP-1222
// codes: accept 1, release 2, reject 3, renew 4).
func ackStatus(t consumer.AcknowledgeType) franz.AckStatus {
	switch t {
	case consumer.Accept:
		return franz.AckAccept
	case consumer.Release:
		return franz.AckRelease
	case consumer.Reject:
		return franz.AckReject
	}
	return franz.AckRenew
}

// acceptRest accepts every unacknowledged record of the last Poll
// (implicit mode), recording the offsets for the callback.
func (c *ShareConsumer) acceptRest() {
	var keys []shareKey
	for k, e := range c.batch {
		if !e.acked {
			e.r.Ack(franz.AckAccept)
			e.acked = true
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b shareKey) int {
		if c := managers.CompareTopicPartition(a.tp, b.tp); c != 0 {
			return c
		}
		return int(a.offset - b.offset)
	})
	c.mu.Lock()
	for _, k := range keys {
		c.acked[k.tp] = append(c.acked[k.tp], k.offset)
	}
	c.mu.Unlock()
}

// Poll returns the next acquired records (kgo's PollRecords, at most
// MaxPollRecords). The previous batch is finished first: in implicit mode
// its unacknowledged records are accepted (kgo's own rule at its next
// poll); in explicit mode every record must have been acknowledged, else
// share.ErrUnacknowledged and nothing is fetched. It blocks until records
// are available, an error, Wakeup or ctx is done ((nil, nil) at ctx's
// deadline). Queued acknowledgement callbacks run first. Errors:
// consumer.ErrWakeup, consumer.ErrClosed, consumer.ErrConcurrentUse,
// share.ErrUnacknowledged, kgo's errors as in Consumer.Poll.
func (c *ShareConsumer) Poll(ctx context.Context) ([]consumer.ShareRecord, error) {
	return pollCall(&c.calls, ctx, c.finishBatch, c.poll)
}

// finishBatch finishes the last Poll's batch before the next: in implicit
// mode its unacknowledged records are accepted; in explicit mode every
// record must have been acknowledged (share.ErrUnacknowledged).
func (c *ShareConsumer) finishBatch() error {
	if c.explicit {
		for _, e := range c.batch {
			if !e.acked {
				return share.ErrUnacknowledged
			}
		}
	} else {
		c.acceptRest()
	}
	clear(c.batch)
	return nil
}

func (c *ShareConsumer) poll(pctx context.Context) ([]consumer.ShareRecord, error) {
	if c.cl == nil {
		<-pctx.Done()
		return nil, nil
	}
	fetches := pollRecords(c.cl, pctx, c.cfg.MaxPollRecords)
	var out []consumer.ShareRecord
	if n := fetches.NumRecords(); n > 0 {
		out = make([]consumer.ShareRecord, 0, n)
	}
	err := eachPartition(fetches, func(_ string, p *franz.FetchPartition) {
		for _, r := range p.Records {
			out = out[:len(out)+1] // capacity is NumRecords; the new element is zero
			sr := &out[len(out)-1]
			fillRecord(&sr.Record, r)
			sr.DeliveryCount = int16(min(r.DeliveryCount(), 1<<15-1))
			c.batch[shareKey{managers.TopicPartition{Topic: r.Topic, Partition: r.Partition}, r.Offset}] = &shareEntry{r: r}
		}
	})
	return out, err
}

// onAck is kgo's ShareAckCallback (its goroutine): each partition outcome
// goes to a running CommitSync and, with the offsets acknowledged since,
// to the application's callback through the queue.
func (c *ShareConsumer) onAck(_ *franz.Client, results franz.ShareAckResults) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range results {
		tp := managers.TopicPartition{Topic: r.Topic, Partition: r.Partition}
		offsets := c.acked[tp]
		delete(c.acked, tp)
		if c.collect != nil {
			c.collect[tp] = r.Err
		}
		if len(offsets) == 0 && r.Err == nil {
			continue // a renew, or acks kgo sent for records never delivered
		}
		err := r.Err
		c.cbs.push(func() {
			if c.ackCB != nil {
				c.ackCB(map[managers.TopicPartition][]int64{tp: offsets}, err)
			}
		})
	}
}

// CommitSync sends every acknowledgement made so far (in implicit mode,
// accepting the last Poll's records first) and waits for the brokers'
// answers (kgo's FlushAcks), until ctx's deadline (DefaultAPITimeout
// without one). It returns each partition's outcome (nil: accepted) for
// the partitions with acknowledgements kgo had not reported before; the
// callback sees them too. Errors: ctx.Err(), consumer.ErrClosed,
// consumer.ErrConcurrentUse.
func (c *ShareConsumer) CommitSync(ctx context.Context) (map[managers.TopicPartition]error, error) {
	if err := c.acquire(); err != nil {
		return nil, err
	}
	defer c.release()
	c.cbs.run()
	c.acceptImplicit()
	out := map[managers.TopicPartition]error{}
	if c.cl == nil {
		return out, nil
	}
	ctx, cancel := withDefaultTimeout(ctx, c.cfg.DefaultAPITimeout)
	defer cancel()
	c.mu.Lock()
	expected := slices.Collect(maps.Keys(c.acked))
	c.collect = out
	c.mu.Unlock()
	err := c.cl.FlushAcks(ctx)
	c.mu.Lock()
	c.collect = nil
	for _, tp := range expected {
		if _, ok := out[tp]; !ok && err == nil {
			out[tp] = nil // flushed: kgo reported it, or had sent it with an earlier background flush
		}
	}
	c.mu.Unlock()
	c.cbs.run()
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CommitAsync sends every acknowledgement made so far without waiting
// (kgo's FlushAcks on its own goroutine, deadline DefaultAPITimeout); the
// outcomes reach the acknowledgement commit callback. Errors:
// consumer.ErrClosed, consumer.ErrConcurrentUse.
func (c *ShareConsumer) CommitAsync() error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	c.cbs.run()
	c.acceptImplicit()
	if c.cl == nil {
		return nil
	}
	cl := c.cl
	ctx, cancel := context.WithTimeout(c.clCtx, c.cfg.DefaultAPITimeout)
	c.async.add()
	go func() {
		defer c.async.done()
		defer cancel()
		_ = cl.FlushAcks(ctx) // outcomes arrive through onAck
	}()
	return nil
}

// Close finishes the last Poll's records (implicit mode: accept; explicit
// mode: kgo releases the unacknowledged), waits for CommitAsync flushes,
// then leaves the share group (kgo's LeaveGroupContext: pending
// acknowledgements, each share session's closing request, the leave
// heartbeat) and closes the client, all by ctx's deadline (30 s without
// one). At the deadline the client's context is canceled and Close returns
// an error wrapping consumer.ErrCloseDeadline. Callbacks run before Close
// returns. A second Close returns consumer.ErrClosed.
func (c *ShareConsumer) Close(ctx context.Context) error {
	return closeCall(&c.calls, ctx, c.acceptImplicit, func(ctx context.Context) error {
		err := c.stopClient(ctx)
		c.mu.Lock()
		d := c.describer
		c.describer = nil
		c.mu.Unlock()
		if d != nil {
			d.Close()
		}
		return err
	})
}

// acceptImplicit accepts the last Poll's unacknowledged records in
// implicit mode (nothing in explicit mode).
func (c *ShareConsumer) acceptImplicit() {
	if !c.explicit {
		c.acceptRest()
	}
}

// ackCallbackGrace bounds how long Close waits, after kgo's client
// closed, for the acknowledgement callbacks kgo still delivers.
const ackCallbackGrace = time.Second

// stopClient leaves the share group and closes the client by ctx's
// deadline (as Consumer.stopClient), then waits for kgo's last
// acknowledgement callbacks.
func (c *ShareConsumer) stopClient(ctx context.Context) error {
	if c.cl == nil {
		return nil
	}
	err := closeClient(ctx, c.cl, c.cancelCl, fmt.Sprintf("share group %q", c.cfg.GroupID))
	// kgo reports the acknowledgements its close failed (their ShareFetch
	// or ShareAcknowledge cut off) through ShareAckCallback on a goroutine
	// of its own (consumer_share.go, drainCallbacks), which Client.Close
	// does not wait for. FlushAcks on the closed client returns once every
	// pending acknowledgement's callback has run, so the last run of the
	// callback queue (closeCall) sees each outcome. The callbacks are
	// already on their way: ackCallbackGrace only keeps a stuck one from
	// hanging Close.
	fctx, fcancel := context.WithTimeout(context.Background(), ackCallbackGrace)
	_ = c.cl.FlushAcks(fctx)
	fcancel()
	c.cl, c.clCtx, c.cancelCl, c.topics = nil, nil, nil, nil
	clear(c.batch)
	return err
}

// Assignment returns the partitions the share group assigned this member,
// sorted. kgo does not expose a share member's assignment (nor its member
// id), so this asks the coordinator (ShareGroupDescribe, on a client of its
// own with client id ClientID+"-assignment", so the consumer's own request
// counts stay clean) and picks the member whose client id is ClientID: the
// client id must be unique in the group. It returns the last answer if the
// broker does not answer within 5 s, and nil before the first. Safe from
// any goroutine; it does network I/O.
func (c *ShareConsumer) Assignment() []managers.TopicPartition {
	if c.closed.Load() {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.describer == nil {
		opts := []franz.Opt{franz.SeedBrokers(c.cfg.BootstrapServers...),
			franz.ClientID(c.cfg.ClientID + "-assignment"), franz.WithLogger(newLogger(c.cfg.Logger))}
		if c.cfg.Dial != nil {
			opts = append(opts, franz.Dialer(c.cfg.Dial))
		}
		cl, err := franz.NewClient(opts...)
		if err != nil {
			return slices.Clone(c.lastAssign)
		}
		c.describer = cl
	}
	ctx, cancel := context.WithTimeout(context.Background(), assignmentQueryTimeout)
	defer cancel()
	req := kmsg.NewPtrShareGroupDescribeRequest()
	req.GroupIDs = []string{c.cfg.GroupID}
	resp, err := req.RequestWith(ctx, c.describer)
	if err != nil {
		return slices.Clone(c.lastAssign)
	}
	var found []managers.TopicPartition
	n := 0
	for _, g := range resp.Groups {
		for _, m := range g.Members {
			if m.ClientID != c.cfg.ClientID {
				continue
			}
			n++
			for _, t := range m.Assignment.TopicPartitions {
				for _, p := range t.Partitions {
					found = append(found, managers.TopicPartition{Topic: t.Topic, Partition: p})
				}
			}
		}
	}
	if n > 1 {
		found = nil // ambiguous: the client id is not unique in the group
	}
	slices.SortFunc(found, managers.CompareTopicPartition)
	c.lastAssign = found
	return slices.Clone(found)
}

// RequestsSent is how many requests with this API key the share consumer's
// kgo client wrote. Safe from any goroutine.
func (c *ShareConsumer) RequestsSent(key kmsg.Key) uint64 { return c.reqs.count(key) }
