package fakebroker

import (
	"context"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/wire"
)

// On kfake's in-memory network inside a synctest bubble, the recorder, the
// delays, holds and node stops all work on the bubble's virtual clock: a
// 3 s delay takes 3 s of virtual time and next to no wall time, and Close
// leaves no goroutine in the bubble (synctest fails the test otherwise).
func TestVirtualNetworkInBubble(t *testing.T) {
	wall := time.Now()
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		b, err := Start(Config{Network: new(kfake.VirtualNetwork), Topics: map[string]int32{"t": 3}, SpreadLeaders: true})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		for i, a := range b.Addrs() {
			if want := "localhost:" + itoa(VirtualBasePort+i); a != want {
				t.Fatalf("node %d listens on %s, want %s", i, a, want)
			}
		}
		for p := range int32(3) {
			if l := b.Cluster().LeaderFor("t", p); l != p {
				t.Fatalf("partition %d led by node %d, want %d (SpreadLeaders)", p, l, p)
			}
		}
		ctx := context.Background()
		if counts, err := b.Produce(ctx, "t", 9, nil); err != nil || counts[0] != 3 || counts[2] != 3 {
			t.Fatalf("Produce: %v %v", counts, err)
		}

		cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addrs()...), kgo.Dialer(b.Dial), kgo.ClientID("vn"))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		const delay = 3 * time.Second
		h, err := b.DelayKey(kmsg.ListGroups, delay, 0)
		if err != nil {
			t.Fatal(err)
		}
		sent := time.Now()
		if _, err := cl.Broker(1).Request(ctx, kmsg.NewPtrListGroupsRequest()); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(sent); took < delay || h.Hits() != 1 {
			t.Fatalf("delayed ListGroups answered after %s (hits %d), want >= %s", took, h.Hits(), delay)
		}
		lg := b.Recorder().Filter(wire.Filter{ClientID: "vn", Keys: []kmsg.Key{kmsg.ListGroups}})
		if len(lg) != 1 || lg[0].Node != 1 || lg[0].At.Before(start) || lg[0].At.After(sent) {
			t.Fatalf("recorded %+v, want one ListGroups on node 1 read at the bubble's time, by %s", lg, sent)
		}

		// A held request waits until released, in virtual time.
		hold, err := b.HoldKey(kmsg.ListOffsets)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			time.Sleep(time.Second)
			hold.Release()
		}()
		sent = time.Now()
		lo := kmsg.NewPtrListOffsetsRequest()
		lt := kmsg.NewListOffsetsRequestTopic()
		lt.Topic = "t"
		lp := kmsg.NewListOffsetsRequestTopicPartition()
		lp.Timestamp = -1
		lt.Partitions = append(lt.Partitions, lp)
		lo.Topics = append(lo.Topics, lt)
		if _, err := cl.Broker(0).Request(ctx, lo); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(sent); took != time.Second {
			t.Fatalf("held ListOffsets answered after %s, want exactly 1s of virtual time", took)
		}

		// A stopped node refuses connections; healed, it listens again on
		// its port of the virtual network.
		stop, err := b.StopNode(2)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Dial(ctx, "tcp", b.Addrs()[0]); err != nil {
			t.Fatalf("dial node 0 while node 2 is stopped: %v", err)
		}
		if c, err := b.Dial(ctx, "tcp", "localhost:"+itoa(VirtualBasePort+2)); err == nil {
			c.Close()
			t.Fatal("dialed a stopped node")
		}
		stop.Heal()
		c, err := b.Dial(ctx, "tcp", "localhost:"+itoa(VirtualBasePort+2))
		if err != nil {
			t.Fatalf("dial node 2 after heal: %v", err)
		}
		c.Close()
		t.Logf("virtual %s", time.Since(start))
	})
	t.Logf("wall %s", time.Since(wall))
}

func itoa(i int) string { return strconv.Itoa(i) }
