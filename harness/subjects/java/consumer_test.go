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
