package java

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/fakebroker"
	"github.com/kreactor/kreactor/managers"
)

func newShareConsumer(t testing.TB, o Options, b *fakebroker.Broker, group string) *ShareConsumer {
	t.Helper()
	b.Cluster().SetGroupConfigs(group, map[string]string{"share.auto.offset.reset": "earliest"})
	p := props(t, b, group, "")
	delete(p, "auto.offset.reset")
	delete(p, "enable.auto.commit")
	p["share.acknowledgement.mode"] = "explicit" // 4.1+; 4.0 switches on the first acknowledge
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout+DefaultStartTimeout)
	defer cancel()
	s, err := NewShareConsumer(ctx, o, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeQuietly(t, s.base) })
	t.Cleanup(func() { logOnFailure(t, s.base) })
	return s
}

func pollShareN(t testing.TB, s *ShareConsumer, n int, each func(consumer.ShareRecord)) []consumer.ShareRecord {
	t.Helper()
	var out []consumer.ShareRecord
	deadline := time.Now().Add(testTimeout)
	for len(out) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d share records within %s", len(out), n, testTimeout)
		}
		ctx, cancel := pollCtx(200 * time.Millisecond)
		recs, err := s.Poll(ctx)
		cancel()
		if err != nil {
			t.Fatalf("share poll after %d records: %v", len(out), err)
		}
		for _, r := range recs {
			if each != nil {
				each(r)
			}
		}
		out = append(out, recs...)
	}
	return out
}

// TestShareConsumer drives KafkaShareConsumer: acquire records, accept all
// but one, release that one (redelivered with delivery count 2), commit
// with per-partition results, and the acknowledgement commit callback run
// during a later call.
func TestShareConsumer(t *testing.T) {
	requireJava(t)
	b := startBroker(t, map[string]int32{"s": 1})
	produce(t, b, "s", 10)
	s := newShareConsumer(t, DefaultOptions(), b, "share-g")
	if s.Info().Implementation != "KafkaShareConsumer" {
		t.Errorf("implementation %q", s.Info().Implementation)
	}

	type ackRun struct {
		offsets map[managers.TopicPartition][]int64
		err     error
	}
	var acks []ackRun
	s.SetAcknowledgementCommitCallback(func(o map[managers.TopicPartition][]int64, err error) {
		acks = append(acks, ackRun{o, err})
	})
	if err := s.Subscribe("s"); err != nil {
		t.Fatal(err)
	}

	var released int64 = -1
	first := pollShareN(t, s, 10, func(r consumer.ShareRecord) {
		if r.DeliveryCount != 1 {
			t.Errorf("offset %d delivery count %d, want 1", r.Offset, r.DeliveryCount)
		}
		typ := consumer.Accept
		if released < 0 {
			typ, released = consumer.Release, r.Offset
		}
		if err := s.Acknowledge(r, typ); err != nil {
			t.Fatalf("acknowledge %d: %v", r.Offset, err)
		}
	})
	if len(first) != 10 {
		t.Fatalf("%d records", len(first))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := s.CommitSync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tp := managers.TopicPartition{Topic: "s", Partition: 0}
	if e, ok := res[tp]; !ok || e != nil {
		t.Fatalf("commitSync results %v: want s/0 accepted", res)
	}

	again := pollShareN(t, s, 1, nil)
	if again[0].Offset != released || again[0].DeliveryCount != 2 {
		t.Fatalf("redelivered %d (delivery count %d), want the released offset %d with count 2", again[0].Offset, again[0].DeliveryCount, released)
	}
	if err := s.Acknowledge(again[0], consumer.Accept); err != nil {
		t.Fatal(err)
	}
	if err := s.CommitAsync(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50 && len(acks) < 2; i++ {
		ctx, cancel := pollCtx(100 * time.Millisecond)
		if _, err := s.Poll(ctx); err != nil {
			t.Fatal(err)
		}
		cancel()
	}
	if len(acks) < 2 {
		t.Fatalf("acknowledgement commit callback ran %d times, want 2 (commitSync, commitAsync)", len(acks))
	}
	for _, a := range acks {
		if a.err != nil {
			t.Errorf("ack callback error: %v", a.err)
		}
	}
	if got := acks[len(acks)-1].offsets[tp]; len(got) != 1 || got[0] != released {
		t.Errorf("last ack callback offsets %v, want [%d]", got, released)
	}
	for _, cb := range s.Callbacks() {
		t.Logf("callback %s ran during %s on %s", cb.Event, cb.During, cb.Thread)
	}

	// An invalid type never reaches Java.
	if err := s.Acknowledge(again[0], consumer.AcknowledgeType(9)); err == nil {
		t.Error("acknowledge type 9 accepted")
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	_ = fmt.Sprint
	_ = errors.Is
}
