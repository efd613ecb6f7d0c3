package java

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/managers"
)

// TestConsumerKIP848 drives KafkaConsumer with group.protocol=consumer:
// subscribe, poll every produced record, commitSync, commitAsync whose
// callback runs during a later call, close.
func TestConsumerKIP848(t *testing.T) {
	requireJava(t)
	b := startBroker(t, map[string]int32{"t": 2})
	produce(t, b, "t", 20)
	c := newConsumer(t, DefaultOptions(), props(t, b, "g848", "consumer"))

	info := c.Info()
	if info.Implementation != "AsyncKafkaConsumer" {
		t.Errorf("implementation %q, want AsyncKafkaConsumer for group.protocol=consumer", info.Implementation)
	}
	t.Logf("driver: kafka-clients %s (%s), start %s, create %s", info.ClientsVersion, info.Implementation, info.Start, info.Create)

	if err := c.Subscribe("t"); err != nil {
		t.Fatal(err)
	}
	recs := pollN(t, c, 20)
	if len(recs) != 20 {
		t.Fatalf("%d records, want 20", len(recs))
	}
	seen := map[managers.TopicPartition]int64{}
	for _, r := range recs {
		tp := managers.TopicPartition{Topic: r.Topic, Partition: r.Partition}
		if want := seen[tp]; r.Offset != want {
			t.Fatalf("%s offset %d, want %d (in order, no gaps)", tp, r.Offset, want)
		}
		seen[tp] = r.Offset + 1
		if string(r.Value) != "record-"+itoa(int(r.Offset)*2+int(r.Partition)) {
			t.Errorf("%s@%d value %q", tp, r.Offset, r.Value)
		}
	}
	if got := c.Assignment(); len(got) != 2 {
		t.Errorf("assignment %v, want both partitions of t", got)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.CommitSync(ctx); err != nil {
		t.Fatal(err)
	}
	committed, err := c.Committed(ctx, managers.TopicPartition{Topic: "t", Partition: 0}, managers.TopicPartition{Topic: "t", Partition: 1})
	if err != nil {
		t.Fatal(err)
	}
	for tp, want := range seen {
		if committed[tp].Offset != want {
			t.Errorf("committed %s = %d, want %d", tp, committed[tp].Offset, want)
		}
	}

	// commitAsync: the callback must not run inside CommitAsync's own
	// return path on another goroutine, but during a later call here.
	produce(t, b, "t", 2)
	pollN(t, c, 2)
	done := make(chan error, 1)
	c.CommitAsync(func(err error) { done <- err })
	var cbErr error
	ran := false
	for i := 0; i < 50 && !ran; i++ {
		select {
		case cbErr = <-done:
			ran = true
		default:
			ctx, cancel := pollCtx(100 * time.Millisecond)
			_, err := c.Poll(ctx)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if !ran {
		t.Fatal("commitAsync callback did not run during 50 polls")
	}
	if cbErr != nil {
		t.Fatalf("commitAsync callback error: %v", cbErr)
	}
	if n := c.PendingCommitCallbacks(); n != 0 {
		t.Errorf("%d commit callbacks pending after the callback ran", n)
	}
	var run *CallbackRun
	for _, cb := range c.Callbacks() {
		if cb.Event == evCommitCallback {
			run = &cb
		}
	}
	if run == nil || run.Thread != "kreactor-app" || run.During == "" || run.During == "commitAsync" {
		t.Errorf("commit callback run %+v: want on kreactor-app during a later call", run)
	}
	t.Logf("commitAsync callback ran during %s (id %d) on %s", run.During, run.DuringID, run.Thread)

	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if c.Alive() {
		t.Error("driver alive after Close")
	}
	if err := c.Close(ctx); !errors.Is(err, consumer.ErrClosed) {
		t.Errorf("second Close: %v, want ErrClosed", err)
	}
	if _, err := c.Poll(ctx); !errors.Is(err, consumer.ErrClosed) {
		t.Errorf("Poll after Close: %v, want ErrClosed", err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestWakeupInterruptsPoll: Wakeup from another goroutine ends a blocked
// poll(20 s) with WakeupException (consumer.ErrWakeup); a cancelled ctx
// ends one with ctx.Err().
func TestWakeupInterruptsPoll(t *testing.T) {
	requireJava(t)
	b := startBroker(t, map[string]int32{"idle": 1})
	c := newConsumer(t, DefaultOptions(), props(t, b, "gw", "consumer"))
	if err := c.Subscribe("idle"); err != nil {
		t.Fatal(err)
	}
	const long = 20 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), long)
	defer cancel()
	timer := time.AfterFunc(300*time.Millisecond, c.Wakeup)
	defer timer.Stop()
	start := time.Now()
	_, err := c.Poll(ctx)
	if !errors.Is(err, consumer.ErrWakeup) {
		t.Fatalf("poll(%s) with a wakeup after 300ms: %v, want ErrWakeup", long, err)
	}
	var je *JavaError
	if !errors.As(err, &je) || je.Class != classWakeup {
		t.Errorf("error %v is not Java's WakeupException", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("poll returned only at its deadline (%s): the wakeup did not interrupt it", time.Since(start))
	}
	t.Logf("poll woken after %s", time.Since(start))

	cctx, ccancel := context.WithTimeout(context.Background(), long)
	stop := time.AfterFunc(300*time.Millisecond, ccancel)
	defer stop.Stop()
	_, err = c.Poll(cctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("poll with ctx cancelled after 300ms: %v, want context.Canceled", err)
	}
	// Nothing left over: the next poll times out normally.
	ctx2, cancel2 := pollCtx(100 * time.Millisecond)
	defer cancel2()
	if _, err := c.Poll(ctx2); err != nil {
		t.Fatalf("poll after the cancelled one: %v", err)
	}
}

// TestClassicProtocol drives KafkaConsumer with group.protocol=classic.
func TestClassicProtocol(t *testing.T) {
	requireJava(t)
	b := startBroker(t, map[string]int32{"t": 1})
	produce(t, b, "t", 5)
	c := newConsumer(t, DefaultOptions(), props(t, b, "gclassic", "classic"))
	if got := c.Info().Implementation; got != "ClassicKafkaConsumer" {
		t.Errorf("implementation %q, want ClassicKafkaConsumer", got)
	}
	if err := c.Subscribe("t"); err != nil {
		t.Fatal(err)
	}
	pollN(t, c, 5)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.CommitSync(ctx); err != nil {
		t.Fatal(err)
	}
	g, err := c.GroupMetadata()
	if err != nil || g.GroupID != "gclassic" || g.MemberID == "" || g.GenerationID < 1 {
		t.Errorf("group metadata %+v, %v: want a joined member of gclassic", g, err)
	}
	var assigned bool
	for _, r := range c.Rebalances() {
		assigned = assigned || (r.Kind == "assigned" && len(r.Partitions) == 1 && r.During == "poll")
	}
	if !assigned {
		t.Errorf("rebalances %+v: want an assignment of t/0 during poll", c.Rebalances())
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestAssignWithGroup: manual assignment with a group id, seek, pause and
// resume. kfake answers OffsetFetch for a group that never committed with
// GROUP_ID_NOT_FOUND (Kafka: offset -1, no error) and Java treats that as
// fatal on every poll, so the test commits offset 0 first (until the fake
// broker answers as Kafka does).
func TestAssignWithGroup(t *testing.T) {
	requireJava(t)
	b := startBroker(t, map[string]int32{"t": 1})
	produce(t, b, "t", 6)
	for _, proto := range []string{"consumer", "classic"} {
		t.Run(proto, func(t *testing.T) {
			c := newConsumer(t, DefaultOptions(), props(t, b, "gassign-"+proto, proto))
			tp := managers.TopicPartition{Topic: "t", Partition: 0}
			if err := c.Assign(tp); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := c.CommitOffsets(ctx, map[managers.TopicPartition]managers.Position{tp: {Offset: 0, LeaderEpoch: -1}}); err != nil {
				t.Fatal(err)
			}
			if recs := pollN(t, c, 6); recs[0].Offset != 0 {
				t.Fatalf("first offset %d, want 0", recs[0].Offset)
			}
			if err := c.Seek(tp, 4); err != nil {
				t.Fatal(err)
			}
			if pos, err := c.Position(ctx, tp); err != nil || pos != 4 {
				t.Fatalf("position after seek(4): %d, %v", pos, err)
			}
			if err := c.Pause(tp); err != nil {
				t.Fatal(err)
			}
			pctx, pcancel := pollCtx(300 * time.Millisecond)
			recs, err := c.Poll(pctx)
			pcancel()
			if err != nil || len(recs) != 0 {
				t.Fatalf("poll while paused: %d records, %v; want none", len(recs), err)
			}
			if err := c.Resume(tp); err != nil {
				t.Fatal(err)
			}
			if recs := pollN(t, c, 2); recs[0].Offset != 4 {
				t.Fatalf("after resume first offset %d, want 4", recs[0].Offset)
			}
			if err := c.SeekToBeginning(tp); err != nil {
				t.Fatal(err)
			}
			if recs := pollN(t, c, 1); recs[0].Offset != 0 {
				t.Fatalf("after seekToBeginning first offset %d, want 0", recs[0].Offset)
			}
		})
	}
}
