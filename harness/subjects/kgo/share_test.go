package kgo

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/fakebroker"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/share"
)

func startShare(t *testing.T, b *fakebroker.Broker, group, clientID string) *ShareConsumer {
	t.Helper()
	b.Cluster().SetGroupConfigs(group, map[string]string{"share.auto.offset.reset": "earliest"})
	cfg := consumer.DefaultShareConfig()
	cfg.BootstrapServers = b.Addrs()
	cfg.GroupID = group
	cfg.ClientID = clientID
	c, err := Subject{}.NewShare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	if err := c.Subscribe("s"); err != nil {
		t.Fatal(err)
	}
	return c
}

func sharePoll(t *testing.T, c *ShareConsumer) []consumer.ShareRecord {
	t.Helper()
	return pollOnce(t, c.Poll)
}

func TestShareConsumeCommitClose(t *testing.T) {
	b := startBroker(t, map[string]int32{"s": 2})
	produce(t, b, "s", 100)
	c := startShare(t, b, "sg", "share-1")
	app := goroutineID()
	inCall := false
	acked := map[managers.TopicPartition]int{}
	c.SetAcknowledgementCommitCallback(func(offsets map[managers.TopicPartition][]int64, err error) {
		if !inCall || goroutineID() != app {
			t.Errorf("acknowledgement callback ran outside an application call on the application goroutine")
		}
		if err != nil {
			t.Errorf("acknowledgement error %v", err)
		}
		for tp, offs := range offsets {
			acked[tp] += len(offs)
		}
	})
	seen := map[managers.TopicPartition]map[int64]bool{}
	n := 0
	eventually(t, "100 records delivered", func() bool {
		inCall = true
		recs := sharePoll(t, c)
		inCall = false
		for _, r := range recs {
			tp := managers.TopicPartition{Topic: r.Topic, Partition: r.Partition}
			if seen[tp] == nil {
				seen[tp] = map[int64]bool{}
			}
			if seen[tp][r.Offset] {
				t.Fatalf("%s offset %d delivered twice", tp, r.Offset)
			}
			if r.DeliveryCount != 1 {
				t.Fatalf("%s offset %d: delivery count %d, want 1", tp, r.Offset, r.DeliveryCount)
			}
			seen[tp][r.Offset] = true
			n++
		}
		return n == 100
	})
	if got := c.Assignment(); len(got) != 2 {
		t.Fatalf("Assignment() = %v, want both partitions of s", got)
	}
	inCall = true
	res, err := c.CommitSync(testCtx(t)) // implicit mode: accepts the last batch
	if err != nil {
		t.Fatal(err)
	}
	for tp, e := range res {
		if e != nil {
			t.Fatalf("CommitSync: %s: %v", tp, e)
		}
	}
	total := 0
	for _, k := range acked {
		total += k
	}
	if total != 100 {
		t.Fatalf("the callback saw %d acknowledged offsets by the end of CommitSync, want 100 (%v)", total, acked)
	}
	if err := c.Close(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if n := members(b, "sg"); n != 0 {
		t.Fatalf("%d share group members after Close, want 0", n)
	}
}

func TestShareExplicitRelease(t *testing.T) {
	b := startBroker(t, map[string]int32{"s": 1})
	produce(t, b, "s", 5)
	c := startShare(t, b, "sg", "share-1")
	var recs []consumer.ShareRecord
	eventually(t, "records delivered", func() bool { recs = sharePoll(t, c); return len(recs) > 0 })
	first := recs[0]
	if err := c.Acknowledge(first, consumer.Release); err != nil {
		t.Fatal(err)
	}
	if err := c.Acknowledge(first, consumer.Accept); !errors.Is(err, share.ErrNotDelivered) {
		t.Fatalf("second acknowledgement = %v, want share.ErrNotDelivered", err)
	}
	if err := c.Acknowledge(first, consumer.AcknowledgeType(9)); !errors.Is(err, share.ErrInvalidAckType) {
		t.Fatalf("acknowledgement type 9 = %v, want share.ErrInvalidAckType", err)
	}
	if len(recs) > 1 {
		// Explicit mode now: the rest of the batch must be acknowledged.
		if _, err := c.Poll(testCtx(t)); !errors.Is(err, share.ErrUnacknowledged) {
			t.Fatalf("Poll with unacknowledged records in explicit mode = %v, want share.ErrUnacknowledged", err)
		}
		for _, r := range recs[1:] {
			if err := c.Acknowledge(r, consumer.Accept); err != nil {
				t.Fatal(err)
			}
		}
	}
	var again consumer.ShareRecord
	eventually(t, "the released record is delivered again", func() bool {
		for _, r := range sharePoll(t, c) {
			if err := c.Acknowledge(r, consumer.Accept); err != nil {
				t.Fatal(err)
			}
			if r.Offset == first.Offset {
				again = r
			}
		}
		return again.DeliveryCount > 0
	})
	if again.DeliveryCount != 2 {
		t.Fatalf("released record redelivered with delivery count %d, want 2", again.DeliveryCount)
	}
}

func TestShareWakeup(t *testing.T) {
	b := startBroker(t, map[string]int32{"s": 1})
	c := startShare(t, b, "sg", "share-1")
	go func() {
		time.Sleep(100 * time.Millisecond)
		c.Wakeup()
	}()
	ctx := testCtx(t)
	if _, err := c.Poll(ctx); !errors.Is(err, consumer.ErrWakeup) || ctx.Err() != nil {
		t.Fatalf("Poll = %v, want consumer.ErrWakeup before the deadline", err)
	}
}
