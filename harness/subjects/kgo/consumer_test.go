package kgo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
)

// checkExactlyOnceInOrder fails unless recs hold each partition's offsets
// 0..counts[p]-1 exactly once, in order, with record-<i> values matching
// fakebroker.Produce's partitioning (record i at partition i mod parts).
func checkExactlyOnceInOrder(t *testing.T, recs []consumer.Record, parts int32, total int) {
	t.Helper()
	if len(recs) != total {
		t.Fatalf("%d records, want %d", len(recs), total)
	}
	next := map[int32]int64{}
	for _, r := range recs {
		if r.Offset != next[r.Partition] {
			t.Fatalf("partition %d: offset %d, want %d (duplicate, gap or out of order)", r.Partition, r.Offset, next[r.Partition])
		}
		next[r.Partition]++
		if want := fmt.Sprintf("record-%d", r.Offset*int64(parts)+int64(r.Partition)); string(r.Value) != want {
			t.Fatalf("partition %d offset %d: value %q, want %q", r.Partition, r.Offset, r.Value, want)
		}
	}
}

func TestSubscribePollExactlyOnceInOrder(t *testing.T) {
	for _, p := range []Protocol{ProtocolConsumer, ProtocolClassic} {
		t.Run(string(p), func(t *testing.T) {
			b := startBroker(t, map[string]int32{"t": 3})
			produce(t, b, "t", 1000)
			cfg := config(b, "g", "kgo-subject")
			cfg.MaxPollRecords = 100
			c := startSubscribed(t, Subject{Protocol: p}, cfg, "t")
			recs, batches := pollN(t, c, 1000)
			checkExactlyOnceInOrder(t, recs, 3, 1000)
			for _, n := range batches {
				if n > cfg.MaxPollRecords {
					t.Fatalf("a Poll returned %d records, MaxPollRecords is %d", n, cfg.MaxPollRecords)
				}
			}
			if extra := poll(t, c); len(extra) != 0 {
				t.Fatalf("%d records after all 1000", len(extra))
			}
			if got := c.Protocol(); got != p {
				t.Fatalf("Protocol() = %q, want %q", got, p)
			}
			hb := kmsg.ConsumerGroupHeartbeat
			if p == ProtocolClassic {
				hb = kmsg.JoinGroup
			}
			if n := b.Recorder().Count(fakebrokerFilter(hb, "kgo-subject")); n == 0 {
				t.Fatalf("the broker saw no %s from client id kgo-subject", hb.Name())
			}
			if got := c.Assignment(); len(got) != 3 {
				t.Fatalf("Assignment() = %v, want the topic's 3 partitions", got)
			}
		})
	}
}

func TestCommitSyncVisibleAtBroker(t *testing.T) {
	b := startBroker(t, map[string]int32{"t": 3})
	produce(t, b, "t", 300)
	cfg := config(b, "g", "c")
	cfg.MaxPollRecords = 50
	c := startConsumer(t, Subject{}, cfg)
	if err := c.CommitSync(testCtx(t)); err != nil { // nothing yet: no error, no commit
		t.Fatal(err)
	}
	if err := c.Subscribe("t"); err != nil {
		t.Fatal(err)
	}
	recs, _ := pollN(t, c, 150)
	if err := c.CommitSync(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if got, want := committed(b, "g"), nextOffsets(recs); !maps.Equal(got, want) {
		t.Fatalf("committed at the broker %v, want the positions Poll returned %v", got, want)
	}
	more, _ := pollN(t, c, 300-len(recs))
	if err := c.CommitSync(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	all := nextOffsets(append(recs, more...))
	if got := committed(b, "g"); !maps.Equal(got, all) {
		t.Fatalf("committed at the broker %v, want %v", got, all)
	}
	for tp, off := range all {
		if off != 100 {
			t.Fatalf("%s: position %d, want 100", tp, off)
		}
	}
}

func TestCommitAsyncCallbackRunsOnApplicationGoroutine(t *testing.T) {
	b := startBroker(t, map[string]int32{"t": 3})
	produce(t, b, "t", 90)
	c := startSubscribed(t, Subject{}, config(b, "g", "c"), "t")
	recs, _ := pollN(t, c, 90)
	app := goroutineID()
	inCall := false // set around this goroutine's calls
	var ran []uint64
	var cbErr error
	c.CommitAsync(func(err error) {
		if !inCall {
			t.Errorf("callback ran outside an application call")
		}
		ran = append(ran, goroutineID())
		cbErr = err
	})
	if len(ran) != 0 {
		t.Fatal("CommitAsync ran its callback before returning")
	}
	eventually(t, "the commit is at the broker", func() bool { return maps.Equal(committed(b, "g"), nextOffsets(recs)) })
	eventually(t, "a later Poll runs the callback", func() bool {
		inCall = true
		poll(t, c)
		inCall = false
		return len(ran) > 0
	})
	if len(ran) != 1 || ran[0] != app {
		t.Fatalf("callback ran on goroutines %v, want once on the application goroutine %d", ran, app)
	}
	if cbErr != nil {
		t.Fatalf("callback error %v", cbErr)
	}

	// A callback still queued at Close runs during Close.
	more := 0
	c.CommitAsync(func(error) { more++ })
	inCall = true
	if err := c.Close(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if more != 1 {
		t.Fatalf("second callback ran %d times by the end of Close, want 1", more)
	}
}

func TestWakeupInterruptsPoll(t *testing.T) {
	b := startBroker(t, map[string]int32{"t": 1})
	c := startSubscribed(t, Subject{}, config(b, "g", "c"), "t")
	ctx := testCtx(t)
	started := make(chan struct{})
	go func() {
		<-started
		time.Sleep(100 * time.Millisecond) // let Poll block
		c.Wakeup()
	}()
	close(started)
	recs, err := c.Poll(ctx)
	if !errors.Is(err, consumer.ErrWakeup) || len(recs) != 0 {
		t.Fatalf("Poll = %d records, %v; want consumer.ErrWakeup", len(recs), err)
	}
	if ctx.Err() != nil {
		t.Fatal("Poll returned only at its deadline, not at Wakeup")
	}
	// A Wakeup with no Poll blocked is delivered to the next Poll, once.
	c.Wakeup()
	if _, err := c.Poll(ctx); !errors.Is(err, consumer.ErrWakeup) {
		t.Fatalf("Poll after an earlier Wakeup = %v, want consumer.ErrWakeup", err)
	}
	if recs := poll(t, c); len(recs) != 0 {
		t.Fatalf("%d records from an empty topic", len(recs))
	}
}

func TestPauseResume(t *testing.T) {
	b := startBroker(t, map[string]int32{"t": 3})
	c := startSubscribed(t, Subject{}, config(b, "g", "c"), "t")
	p0 := managers.TopicPartition{Topic: "t", Partition: 0}
	var ne *group.PartitionError
	if err := c.Pause(managers.TopicPartition{Topic: "t", Partition: 7}); !errors.As(err, &ne) || !errors.Is(err, group.ErrNotAssigned) {
		t.Fatalf("Pause of an unassigned partition = %v, want *group.PartitionError wrapping group.ErrNotAssigned", err)
	}
	eventually(t, "3 partitions assigned", func() bool { poll(t, c); return len(c.Assignment()) == 3 })
	if err := c.Pause(p0); err != nil {
		t.Fatal(err)
	}
	produce(t, b, "t", 300)
	recs, _ := pollN(t, c, 200)
	for i := 0; i < 4; i++ { // paused: partition 0's records never come
		recs = append(recs, poll(t, c)...)
	}
	for _, r := range recs {
		if r.Partition == 0 {
			t.Fatalf("record from paused partition 0 at offset %d", r.Offset)
		}
	}
	if len(recs) != 200 {
		t.Fatalf("%d records from the 2 unpaused partitions, want 200", len(recs))
	}
	if err := c.Resume(p0); err != nil {
		t.Fatal(err)
	}
	resumed, _ := pollN(t, c, 100)
	for _, r := range resumed {
		if r.Partition != 0 {
			t.Fatalf("record from partition %d after resume; want only partition 0's 100", r.Partition)
		}
	}
}

func TestAssign(t *testing.T) {
	b := startBroker(t, map[string]int32{"t": 3})
	produce(t, b, "t", 300)
	tps := []managers.TopicPartition{{Topic: "t", Partition: 0}, {Topic: "t", Partition: 2}}

	// Without a group: from auto.offset.reset, no commits.
	c := startConsumer(t, Subject{}, config(b, "", "c"))
	if err := c.Assign(managers.TopicPartition{Topic: "", Partition: 0}); err == nil {
		t.Fatal("Assign accepted an empty topic")
	}
	if err := c.Assign(tps...); err != nil {
		t.Fatal(err)
	}
	if got := c.Assignment(); !equalTPs(got, tps) {
		t.Fatalf("Assignment() = %v, want %v", got, tps)
	}
	recs, _ := pollN(t, c, 200)
	for _, r := range recs {
		if r.Partition == 1 {
			t.Fatal("record from an unassigned partition")
		}
	}
	if err := c.CommitSync(testCtx(t)); !errors.Is(err, consumer.ErrNoGroup) {
		t.Fatalf("CommitSync without a group = %v, want consumer.ErrNoGroup", err)
	}
	if err := c.Subscribe("t"); !errors.Is(err, consumer.ErrNoGroup) {
		t.Fatalf("Subscribe without a group = %v, want consumer.ErrNoGroup", err)
	}

	// With a group: commits go to the group; no member joins it.
	gcfg := config(b, "manual", "g1")
	gcfg.MaxPollRecords = 20
	g := startConsumer(t, Subject{}, gcfg)
	if err := g.Assign(tps...); err != nil {
		t.Fatal(err)
	}
	first, _ := pollN(t, g, 60)
	if err := g.CommitSync(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	want := nextOffsets(first)
	if got := committed(b, "manual"); !maps.Equal(got, want) {
		t.Fatalf("committed %v, want %v", got, want)
	}
	if n := members(b, "manual"); n != 0 {
		t.Fatalf("manual assignment made %d group members, want 0", n)
	}
	done := make(chan error, 1)
	g.CommitAsync(func(err error) { done <- err }) // nothing new: callback with nil
	poll(t, g)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := g.Close(testCtx(t)); err != nil {
		t.Fatal(err)
	}

	// A new consumer assigned the same partitions starts at the commit.
	h := startConsumer(t, Subject{}, config(b, "manual", "g2"))
	if err := h.Assign(tps...); err != nil {
		t.Fatal(err)
	}
	rest, _ := pollN(t, h, 200-len(first))
	if extra := poll(t, h); len(rest) != 200-len(first) || len(extra) != 0 {
		t.Fatalf("%d+%d records after the commit, want %d", len(rest), len(extra), 200-len(first))
	}
	starts := map[managers.TopicPartition]int64{}
	for _, r := range rest {
		tp := managers.TopicPartition{Topic: r.Topic, Partition: r.Partition}
		if _, ok := starts[tp]; !ok {
			starts[tp] = r.Offset
		}
	}
	for tp, off := range want {
		if starts[tp] != off {
			t.Fatalf("%s: restarted at %d, want the committed %d", tp, starts[tp], off)
		}
	}
	// Subscribing replaces the manual assignment; Assign while subscribed
	// is refused.
	if err := h.Subscribe("t"); err != nil {
		t.Fatal(err)
	}
	if err := h.Assign(tps...); !errors.Is(err, consumer.ErrSubscribed) {
		t.Fatalf("Assign while subscribed = %v, want consumer.ErrSubscribed", err)
	}
}

func TestAssignResetNone(t *testing.T) {
	b := startBroker(t, map[string]int32{"t": 1})
	cfg := config(b, "none", "c")
	cfg.AutoOffsetReset = "none"
	c := startConsumer(t, Subject{}, cfg)
	if err := c.Assign(managers.TopicPartition{Topic: "t", Partition: 0}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(testCtx(t), 5*time.Second)
	defer cancel()
	_, err := c.Poll(ctx)
	var ne *NoOffsetError
	if !errors.As(err, &ne) || ne.TP.Partition != 0 {
		t.Fatalf("Poll = %v, want *NoOffsetError for t/0", err)
	}
}

func TestCloseLeavesGroup(t *testing.T) {
	for _, p := range []Protocol{ProtocolConsumer, ProtocolClassic} {
		t.Run(string(p), func(t *testing.T) {
			b := startBroker(t, map[string]int32{"t": 2})
			c := startSubscribed(t, Subject{Protocol: p}, config(b, "g", "c"), "t")
			eventually(t, "assigned", func() bool { poll(t, c); return len(c.Assignment()) == 2 })
			if n := members(b, "g"); n != 1 {
				t.Fatalf("%d members before Close, want 1", n)
			}
			if err := c.Close(testCtx(t)); err != nil {
				t.Fatal(err)
			}
			if n := members(b, "g"); n != 0 {
				t.Fatalf("%d members after Close, want 0 (kfake GroupInfo)", n)
			}
			if err := c.Close(testCtx(t)); !errors.Is(err, consumer.ErrClosed) {
				t.Fatalf("second Close = %v, want consumer.ErrClosed", err)
			}
			if _, err := c.Poll(testCtx(t)); !errors.Is(err, consumer.ErrClosed) {
				t.Fatalf("Poll after Close = %v, want consumer.ErrClosed", err)
			}
		})
	}
}

func TestCloseInterruptsPollOnAnotherGoroutine(t *testing.T) {
	b := startBroker(t, map[string]int32{"t": 1})
	c := startSubscribed(t, Subject{}, config(b, "g", "c"), "t")
	res := make(chan error, 1)
	go func() {
		_, err := c.Poll(testCtx(t))
		res <- err
	}()
	eventually(t, "Poll is running", c.busy.Load)
	if err := c.CommitSync(testCtx(t)); !errors.Is(err, consumer.ErrConcurrentUse) {
		t.Fatalf("CommitSync during another goroutine's Poll = %v, want consumer.ErrConcurrentUse", err)
	}
	if err := c.Close(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if err := <-res; !errors.Is(err, consumer.ErrClosed) {
		t.Fatalf("interrupted Poll = %v, want consumer.ErrClosed", err)
	}
}

func TestUnsubscribeLeavesGroup(t *testing.T) {
	b := startBroker(t, map[string]int32{"t": 1})
	c := startSubscribed(t, Subject{}, config(b, "g", "c"), "t")
	eventually(t, "assigned", func() bool { poll(t, c); return len(c.Assignment()) == 1 })
	if err := c.Subscribe(); err != nil {
		t.Fatal(err)
	}
	if n := members(b, "g"); n != 0 {
		t.Fatalf("%d members after unsubscribe, want 0", n)
	}
	if got := c.Assignment(); len(got) != 0 {
		t.Fatalf("Assignment() after unsubscribe = %v", got)
	}
	if err := c.Assign(managers.TopicPartition{Topic: "t", Partition: 0}); err != nil {
		t.Fatalf("Assign after unsubscribe: %v", err)
	}
}

func equalTPs(a, b []managers.TopicPartition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
