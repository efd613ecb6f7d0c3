package kgo

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kadm"
	franz "github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/internal/client"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
)

// mode is how the consumer takes partitions.
type mode int8

const (
	modeNone       mode = 1 + iota // neither subscribed nor assigned; no kgo client
	modeSubscribed                 // kgo group client (ConsumerGroup + ConsumeTopics)
	modeAssigned                   // kgo direct client (AddConsumePartitions)
)

// Consumer is the kgo subject's regular consumer: franz-go's kgo client
// behind the harness's black-box consumer surface, with Java's calling
// contract (see the package doc for what is kgo's own and what is
// emulated). Methods are for one application goroutine at a time
// (consumer.ErrConcurrentUse otherwise), except Wakeup, Assignment and the
// figures (Protocol, RequestsSent).
type Consumer struct {
	cfg   consumer.Config
	base  []franz.Opt // mapped from cfg; read-only
	proto Protocol    // asked for; read-only
	extra []franz.Opt // Subject.Extra, applied last; read-only
	reqs  requestCounter
	calls

	// Application goroutine only (serialized by busy).
	cl       *franz.Client
	clCtx    context.Context    // cl's context (WithContext)
	cancelCl context.CancelFunc // cancels clCtx: fails cl's requests at once
	adm      *kadm.Client       // on cl: manual-assignment OffsetFetch / OffsetCommit
	mode     mode
	topics   []string // subscription (modeSubscribed)
	direct   *direct  // manual assignment state (modeAssigned)

	assigned map[managers.TopicPartition]struct{}   // guarded by calls.mu; group: kgo's callbacks; manual: Assign
	head     map[string]map[int32]franz.EpochOffset // guarded by calls.mu; see onRevoked
}

func newConsumer(cfg consumer.Config, p Protocol, extra []franz.Opt) (*Consumer, error) {
	base, err := consumerOpts(cfg)
	if err != nil {
		return nil, err
	}
	switch p {
	case ProtocolConsumer, ProtocolClassic:
	default:
		return nil, fmt.Errorf("kgo subject: unknown group protocol %q: want %q or %q", p, ProtocolConsumer, ProtocolClassic)
	}
	return &Consumer{cfg: cfg, base: base, proto: p, extra: extra, mode: modeNone, calls: newCalls(),
		assigned: map[managers.TopicPartition]struct{}{}}, nil
}

// startClient creates the kgo client for m: a group client for
// modeSubscribed, a direct client for modeAssigned. Its context is ours to
// cancel, so Close can bound everything kgo still does by the deadline.
func (c *Consumer) startClient(m mode, topics []string) error {
	ctx, cancel := context.WithCancel(context.Background())
	opts := slices.Clone(c.base)
	opts = append(opts, franz.WithContext(ctx), franz.WithHooks(&c.reqs))
	if m == modeSubscribed {
		opts = append(opts, groupOpts(c.cfg, c.proto)...)
		opts = append(opts,
			franz.ConsumeTopics(topics...),
			franz.OnPartitionsAssigned(c.onAssigned),
			franz.OnPartitionsRevoked(c.onRevoked),
			franz.OnPartitionsLost(c.onLost),
		)
	}
	opts = append(opts, c.extra...)
	cl, err := franz.NewClient(opts...)
	if err != nil {
		cancel()
		return fmt.Errorf("kgo subject: %w", err)
	}
	c.cl, c.clCtx, c.cancelCl, c.adm, c.mode = cl, ctx, cancel, kadm.NewClient(cl), m
	if m == modeAssigned {
		c.direct = newDirect()
	}
	return nil
}

// stopClient leaves the group (group client) and closes the client, by
// ctx's deadline: at the deadline the client's context is canceled, which
// fails what kgo still has in flight. It returns an error wrapping
// consumer.ErrCloseDeadline if the leave did not finish in time.
func (c *Consumer) stopClient(ctx context.Context) error {
	if c.cl == nil {
		return nil
	}
	leave := ""
	if c.mode == modeSubscribed {
		leave = fmt.Sprintf("group %q", c.cfg.GroupID)
	}
	err := closeClient(ctx, c.cl, c.cancelCl, leave)
	c.cl, c.clCtx, c.cancelCl, c.adm, c.direct, c.topics, c.mode = nil, nil, nil, nil, nil, nil, modeNone
	c.mu.Lock()
	clear(c.assigned)
	c.head = nil
	c.mu.Unlock()
	return err
}

// Subscribe joins the group with topics, replacing an earlier subscription
// or manual assignment; no topics unsubscribes (leaves the group, as Java's
// unsubscribe). The first Subscribe creates kgo's group client
// (ConsumerGroup, ConsumeTopics); later ones change its topics
// (AddConsumeTopics, PurgeTopicsFromConsuming). Errors: consumer.ErrNoGroup,
// *InvalidTopicError, consumer.ErrClosed, consumer.ErrConcurrentUse, or
// kgo's error creating the client.
func (c *Consumer) Subscribe(topics ...string) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	if c.cfg.GroupID == "" {
		return consumer.ErrNoGroup
	}
	for _, t := range topics {
		if t == "" {
			return &InvalidTopicError{Topic: t}
		}
	}
	topics = slices.Compact(slices.Sorted(slices.Values(topics)))
	if len(topics) == 0 || c.mode == modeAssigned {
		ctx, cancel := context.WithTimeout(context.Background(), c.cfg.DefaultAPITimeout)
		err := c.stopClient(ctx)
		cancel()
		if len(topics) == 0 || err != nil {
			return err
		}
	}
	if c.mode == modeNone {
		if err := c.startClient(modeSubscribed, topics); err != nil {
			return err
		}
		c.topics = topics
		return nil
	}
	changeTopics(c.cl, c.topics, topics)
	c.topics = topics
	return nil
}

// changeTopics moves cl's subscription from topics was to now (both
// sorted): kgo's PurgeTopicsFromConsuming for those gone, AddConsumeTopics.
func changeTopics(cl *franz.Client, was, now []string) {
	var gone []string
	for _, t := range was {
		if _, found := slices.BinarySearch(now, t); !found {
			gone = append(gone, t)
		}
	}
	if len(gone) > 0 {
		cl.PurgeTopicsFromConsuming(gone...)
	}
	cl.AddConsumeTopics(now...)
}

// Assign takes partitions manually (Java's assign): kgo's direct consumer,
// no group membership. With a group id, each new partition starts at the
// group's committed offset (kadm FetchOffsets at the next Poll, as Java
// fetches it in poll) and commits go to the group as a simple consumer
// (kadm CommitOffsets: generation -1, no member id); kgo's group client
// cannot consume assigned partitions. An empty list unassigns. Errors:
// *consumer.InvalidPartitionError, consumer.ErrSubscribed while
// subscribed, consumer.ErrClosed, consumer.ErrConcurrentUse.
func (c *Consumer) Assign(partitions ...managers.TopicPartition) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	partitions, err := client.AssignPartitions(partitions)
	if err != nil {
		return err
	}
	switch c.mode {
	case modeSubscribed:
		return consumer.ErrSubscribed
	case modeNone:
		if len(partitions) == 0 {
			return nil
		}
		if err := c.startClient(modeAssigned, nil); err != nil {
			return err
		}
	}
	c.reassign(partitions)
	return nil
}

// Pause stops fetching the partitions (kgo's PauseFetchPartitions) and
// withholds their buffered records until Resume. Unlike Java, kgo keeps a
// partition paused across a rebalance that takes it away and gives it
// back. Errors: a *group.PartitionError wrapping group.ErrNotAssigned
// (Java's IllegalStateException), consumer.ErrClosed,
// consumer.ErrConcurrentUse.
func (c *Consumer) Pause(partitions ...managers.TopicPartition) error {
	return c.pauseResume(partitions, func(m map[string][]int32) { c.cl.PauseFetchPartitions(m) })
}

// Resume undoes Pause (kgo's ResumeFetchPartitions). Errors as Pause.
func (c *Consumer) Resume(partitions ...managers.TopicPartition) error {
	return c.pauseResume(partitions, func(m map[string][]int32) { c.cl.ResumeFetchPartitions(m) })
}

func (c *Consumer) pauseResume(partitions []managers.TopicPartition, fn func(map[string][]int32)) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	c.mu.Lock()
	for _, tp := range partitions {
		if _, ok := c.assigned[tp]; !ok {
			c.mu.Unlock()
			return &group.PartitionError{TP: tp, Err: group.ErrNotAssigned}
		}
	}
	c.mu.Unlock()
	if len(partitions) > 0 {
		fn(byTopic(partitions))
	}
	return nil
}

// Assignment returns the owned partitions, sorted: in a group, as kgo's
// OnPartitionsAssigned / Revoked / Lost callbacks last reported them;
// manually, the assignment. Safe from any goroutine.
func (c *Consumer) Assignment() []managers.TopicPartition {
	c.mu.Lock()
	out := slices.Collect(maps.Keys(c.assigned))
	c.mu.Unlock()
	slices.SortFunc(out, managers.CompareTopicPartition)
	return out
}

// Protocol is the group protocol kgo ran, as seen on the wire:
// ProtocolConsumer (KIP-848) once it sent a ConsumerGroupHeartbeat,
// ProtocolClassic once it sent a JoinGroup, "" before it joined (or with
// manual assignment). Safe from any goroutine.
func (c *Consumer) Protocol() Protocol { return c.reqs.protocol() }

// RequestsSent is how many requests with this API key the consumer's kgo
// clients wrote (kgo's HookBrokerWrite): the client-side count to set
// beside the broker's. Safe from any goroutine.
func (c *Consumer) RequestsSent(key kmsg.Key) uint64 { return c.reqs.count(key) }

// Group callbacks: run by kgo on its group goroutine.

func (c *Consumer) onAssigned(_ context.Context, _ *franz.Client, m map[string][]int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for t, ps := range m {
		for _, p := range ps {
			c.assigned[managers.TopicPartition{Topic: t, Partition: p}] = struct{}{}
		}
	}
}

// onRevoked tracks the assignment and, with auto-commit, does what kgo's
// default OnPartitionsRevoked (which a user callback replaces) does: a
// blocking commit of every consumed partition's "head", the position after
// the records of all but the latest poll (kgo's at-least-once auto-commit;
// consumer_group.go defaultRevoke, updateUncommitted). Head is not
// exported, so Poll snapshots it: at the start of a PollRecords kgo moves
// head to the positions UncommittedOffsets reports just before. A
// partition is committed only while kgo still tracks it with progress
// (UncommittedOffsets) and its head is past the group's commit
// (CommittedOffsets; kgo moves head forward to a later commit).
func (c *Consumer) onRevoked(ctx context.Context, cl *franz.Client, m map[string][]int32) {
	if c.cfg.EnableAutoCommit {
		c.mu.Lock()
		head := c.head
		c.mu.Unlock()
		if out := headToCommit(head, cl.UncommittedOffsets(), cl.CommittedOffsets()); len(out) > 0 {
			cl.CommitOffsetsSync(ctx, out, nil)
		}
	}
	c.onLost(ctx, cl, m)
}

func (c *Consumer) onLost(_ context.Context, _ *franz.Client, m map[string][]int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for t, ps := range m {
		for _, p := range ps {
			delete(c.assigned, managers.TopicPartition{Topic: t, Partition: p})
			if h := c.head[t]; h != nil {
				delete(h, p)
			}
		}
	}
}

// headToCommit is the part of head that kgo's default revoke would commit:
// partitions still tracked with progress whose head is past the commit.
func headToCommit(head, tracked, committed map[string]map[int32]franz.EpochOffset) map[string]map[int32]franz.EpochOffset {
	var out map[string]map[int32]franz.EpochOffset
	for t, ps := range head {
		for p, h := range ps {
			if _, ok := tracked[t][p]; !ok {
				continue
			}
			if cm, ok := committed[t][p]; ok && cm.Offset >= h.Offset {
				continue
			}
			if out == nil {
				out = map[string]map[int32]franz.EpochOffset{}
			}
			if out[t] == nil {
				out[t] = map[int32]franz.EpochOffset{}
			}
			out[t][p] = h
		}
	}
	return out
}

// byTopic groups partitions by topic, kgo's map shape.
func byTopic(tps []managers.TopicPartition) map[string][]int32 {
	m := make(map[string][]int32, len(tps))
	for _, tp := range tps {
		m[tp.Topic] = append(m[tp.Topic], tp.Partition)
	}
	return m
}
