package java

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/managers"
)

// Consumer is Java's KafkaConsumer in a driver process, on the harness's
// black-box consumer surface. Application methods are for one goroutine at
// a time, as in Java; Wakeup, Metrics, JVMThreads, CPU and the logs may be
// called from any goroutine. Always Close it: that reaps the process.
type Consumer struct {
	*base
}

// NewConsumer starts a driver and creates a KafkaConsumer<byte[], byte[]>
// from props: any consumer property, e.g. group.protocol=consumer|classic.
// client.id and bootstrap.servers are required; key/value deserializers
// are byte arrays. ctx bounds the start (with Options.StartTimeout).
func NewConsumer(ctx context.Context, o Options, props map[string]string) (*Consumer, error) {
	b, err := start(ctx, o, "consumer", props)
	if err != nil {
		return nil, err
	}
	return &Consumer{b}, nil
}

func partitionsArg(tps []managers.TopicPartition) map[string]any {
	return map[string]any{"partitions": toWire(tps)}
}

// Assign takes partitions manually (KafkaConsumer.assign).
func (c *Consumer) Assign(partitions ...managers.TopicPartition) error {
	return c.call("assign", partitionsArg(partitions))
}

// Pause stops fetching from partitions (KafkaConsumer.pause).
func (c *Consumer) Pause(partitions ...managers.TopicPartition) error {
	return c.call("pause", partitionsArg(partitions))
}

// Resume restarts fetching from partitions (KafkaConsumer.resume).
func (c *Consumer) Resume(partitions ...managers.TopicPartition) error {
	return c.call("resume", partitionsArg(partitions))
}

// Seek sets the next offset to fetch from tp (KafkaConsumer.seek).
func (c *Consumer) Seek(tp managers.TopicPartition, offset int64) error {
	return c.call("seek", map[string]any{"t": tp.Topic, "p": tp.Partition, "o": offset})
}

// SeekToBeginning and SeekToEnd move partitions' positions lazily
// (KafkaConsumer.seekToBeginning / seekToEnd).
func (c *Consumer) SeekToBeginning(partitions ...managers.TopicPartition) error {
	return c.call("seekToBeginning", partitionsArg(partitions))
}

// SeekToEnd: see SeekToBeginning.
func (c *Consumer) SeekToEnd(partitions ...managers.TopicPartition) error {
	return c.call("seekToEnd", partitionsArg(partitions))
}

// Position returns tp's next offset to fetch (KafkaConsumer.position with
// ctx's deadline as the timeout; a ctx without one is an error).
func (c *Consumer) Position(ctx context.Context, tp managers.TopicPartition) (int64, error) {
	ms, ok := timeoutMs(ctx)
	if !ok {
		return 0, fmt.Errorf("java position: ctx needs a deadline (the Java timeout)")
	}
	r, err := c.do(ctx, "position", map[string]any{"t": tp.Topic, "p": tp.Partition, "timeoutMs": ms}, msDur(ms), nil)
	if err != nil {
		return 0, err
	}
	var p struct {
		Offset int64 `json:"offset"`
	}
	err = json.Unmarshal(r.raw, &p)
	return p.Offset, err
}

// Committed returns the group's committed offsets for partitions
// (KafkaConsumer.committed with ctx's deadline as the timeout; a ctx
// without one is an error). A partition without a commit is absent.
func (c *Consumer) Committed(ctx context.Context, partitions ...managers.TopicPartition) (map[managers.TopicPartition]managers.Position, error) {
	ms, ok := timeoutMs(ctx)
	if !ok {
		return nil, fmt.Errorf("java committed: ctx needs a deadline (the Java timeout)")
	}
	args := partitionsArg(partitions)
	args["timeoutMs"] = ms
	r, err := c.do(ctx, "committed", args, msDur(ms), nil)
	if err != nil {
		return nil, err
	}
	var w struct {
		Offsets []wireOffset `json:"offsets"`
	}
	if err := json.Unmarshal(r.raw, &w); err != nil {
		return nil, err
	}
	out := map[managers.TopicPartition]managers.Position{}
	for _, o := range w.Offsets {
		if o.O == nil {
			continue
		}
		le := int32(-1)
		if o.LE != nil {
			le = *o.LE
		}
		out[managers.TopicPartition{Topic: o.T, Partition: o.P}] = managers.Position{Offset: *o.O, LeaderEpoch: le}
	}
	return out, nil
}

// Poll returns the records Java's poll returned within ctx's deadline (the
// poll timeout), or (nil, nil) when the deadline passed without records.
// Errors: consumer.ErrWakeup after Wakeup (a *JavaError for
// WakeupException), the exception Java threw, ctx.Err() when ctx was
// cancelled (the poll is woken up), a *DriverError. Commit and rebalance
// callbacks Java ran during the poll run on this goroutine first.
func (c *Consumer) Poll(ctx context.Context) ([]consumer.Record, error) {
	return poll(c.base, ctx, wireRecord.record)
}

// CommitSync commits the consumed positions (KafkaConsumer.commitSync with
// ctx's deadline as the timeout; without one, default.api.timeout.ms).
// Callbacks of earlier CommitAsync calls that Java completes meanwhile run
// first. A cancelled ctx wakes the call up.
func (c *Consumer) CommitSync(ctx context.Context) error {
	return c.commitSync(ctx, nil)
}

// CommitOffsets commits explicit offsets (KafkaConsumer.commitSync(Map,
// Duration)); Position.LeaderEpoch -1 sends none.
func (c *Consumer) CommitOffsets(ctx context.Context, offsets map[managers.TopicPartition]managers.Position) error {
	return c.commitSync(ctx, offsets)
}

func (c *Consumer) commitSync(ctx context.Context, offsets map[managers.TopicPartition]managers.Position) error {
	args, javaTimeout := timeoutArgs(ctx, c.d.opts.MaxCallWait)
	if offsets != nil {
		args["offsets"] = offsetsArg(offsets)
	}
	_, err := c.do(ctx, "commitSync", args, javaTimeout, c.Wakeup)
	return cancelled(ctx, err)
}

func offsetsArg(offsets map[managers.TopicPartition]managers.Position) []wireOffset {
	out := make([]wireOffset, 0, len(offsets))
	for tp, p := range offsets {
		o, le := p.Offset, p.LeaderEpoch
		w := wireOffset{T: tp.Topic, P: tp.Partition, O: &o}
		if le >= 0 {
			w.LE = &le
		}
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].T != out[j].T {
			return out[i].T < out[j].T
		}
		return out[i].P < out[j].P
	})
	return out
}

// CommitAsync starts a commit of the consumed positions
// (KafkaConsumer.commitAsync). cb (may be nil) runs on the application
// goroutine when Java runs the commit callback: during a later Poll,
// CommitSync, Close or other call, as Java's contract says (Callbacks
// records which). If the command itself fails (a closed consumer, a dead
// driver) cb runs at once with that error.
func (c *Consumer) CommitAsync(cb func(error)) {
	c.commitAsync(nil, cb)
}

// CommitOffsetsAsync is CommitAsync with explicit offsets.
func (c *Consumer) CommitOffsetsAsync(offsets map[managers.TopicPartition]managers.Position, cb func(error)) {
	c.commitAsync(offsets, cb)
}

func (c *Consumer) commitAsync(offsets map[managers.TopicPartition]managers.Position, cb func(error)) {
	if cb == nil {
		cb = func(error) {}
	}
	args := map[string]any{}
	if offsets != nil {
		args["offsets"] = offsetsArg(offsets)
	}
	// The driver reports the callback with "ref" = this command's id;
	// register it before any callback of this call runs.
	var id int64
	_, err := c.doWith(context.Background(), "commitAsync", args, 0, nil, func(cmdID int64) {
		id = cmdID
		c.mu.Lock()
		c.commitCBs[id] = cb
		c.mu.Unlock()
	})
	if err != nil {
		// Java never took the commit: no callback will come from it.
		c.mu.Lock()
		_, waiting := c.commitCBs[id]
		delete(c.commitCBs, id)
		c.mu.Unlock()
		if waiting || id == 0 {
			cb(err)
		}
	}
}

// Assignment returns the assigned partitions, sorted (nil if the driver
// cannot answer; the error surfaces on the next call).
func (c *Consumer) Assignment() []managers.TopicPartition {
	r, err := c.do(context.Background(), "assignment", nil, 0, nil)
	if err != nil {
		return nil
	}
	var a struct {
		Partitions []wirePartition `json:"partitions"`
	}
	if json.Unmarshal(r.raw, &a) != nil {
		return nil
	}
	out := fromWire(a.Partitions)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Topic != out[j].Topic {
			return out[i].Topic < out[j].Topic
		}
		return out[i].Partition < out[j].Partition
	})
	return out
}

// GroupMetadata is KafkaConsumer.groupMetadata().
type GroupMetadata struct {
	GroupID         string `json:"groupId"`
	GenerationID    int32  `json:"generationId"` // the member epoch under KIP-848
	MemberID        string `json:"memberId"`
	GroupInstanceID string `json:"groupInstanceId"`
}

// GroupMetadata returns the consumer's group membership as Java sees it.
func (c *Consumer) GroupMetadata() (GroupMetadata, error) {
	var g GroupMetadata
	r, err := c.do(context.Background(), "groupMetadata", nil, 0, nil)
	if err == nil {
		err = json.Unmarshal(r.raw, &g)
	}
	return g, err
}

// PendingCommitCallbacks is how many CommitAsync callbacks Java has not
// run yet (KAFKA-19357: a callback that never runs, even after close). A
// driver that died never runs its pending callbacks; they stay counted here
// rather than being invoked with an invented result.
func (c *Consumer) PendingCommitCallbacks() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.commitCBs)
}

// Rebalances returns the rebalance listener calls so far (bounded).
func (c *Consumer) Rebalances() []Rebalance {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Rebalance(nil), c.rebalances...)
}

// RebalanceCalls returns the listener calls as harness.RebalanceReporter
// reports them: Java runs them on its application thread, during the
// command named in Rebalance.During (a poll or a close: inside the
// application's call).
func (c *Consumer) RebalanceCalls() []harness.RebalanceCall {
	rs := c.Rebalances()
	out := make([]harness.RebalanceCall, len(rs))
	for i, r := range rs {
		out[i] = harness.RebalanceCall{Method: r.Kind, Partitions: r.Partitions, InPoll: r.During == "poll" || r.During == "close"}
	}
	return out
}

func msDur(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }

// Close closes the consumer (KafkaConsumer.close with ctx's deadline as the
// close timeout; without one, Java's default 30 s) and always ends the
// driver process. Callbacks Java runs during close run first. A second
// Close returns consumer.ErrClosed.
func (c *Consumer) Close(ctx context.Context) error { return c.close(ctx) }
