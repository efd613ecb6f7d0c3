package consumer_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/fakebroker"
	"github.com/kreactor/kreactor/internal/clienttest"
	"github.com/kreactor/kreactor/managers"
)

func newShare(t *testing.T, b *fakebroker.Broker, group string) *consumer.ShareConsumer {
	t.Helper()
	c, err := consumer.NewShare(clienttest.ShareConfig(b, group))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Subscribe("s"); err != nil {
		t.Fatal(err)
	}
	return c
}

func pollShare(t *testing.T, c *consumer.ShareConsumer, n int, ack func(consumer.ShareRecord)) []consumer.ShareRecord {
	t.Helper()
	return clienttest.PollUntil(t, n, c.Poll, ack, func() string { return c.Diagnostics().Diagnose() })
}

func TestShareConsumeImplicitAndClose(t *testing.T) {
	b := clienttest.StartShareBroker(t, "sg")
	if _, err := b.Produce(context.Background(), "s", 100, nil); err != nil {
		t.Fatal(err)
	}
	c := newShare(t, b, "sg")
	var acked []int64
	var ackErrs []error
	c.SetAcknowledgementCommitCallback(func(offs map[managers.TopicPartition][]int64, err error) {
		for _, o := range offs {
			acked = append(acked, o...)
		}
		if err != nil {
			ackErrs = append(ackErrs, err)
		}
	})
	recs := pollShare(t, c, 100, nil)
	if len(recs) != 100 {
		t.Fatalf("got %d records", len(recs))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("close %s, %d acknowledged offsets, errors %v, stats %+v", time.Since(start), len(acked), ackErrs, c.Diagnostics().Stats())
	if len(acked) != 100 || len(ackErrs) != 0 {
		t.Fatalf("acknowledged %d offsets with errors %v, want 100 accepted", len(acked), ackErrs)
	}
	if gi := b.GroupInfo("sg"); gi != nil && len(gi.Members) != 0 {
		t.Fatalf("members after close: %+v", gi.Members)
	}
}

func TestShareReleaseRedelivers(t *testing.T) {
	b := clienttest.StartShareBroker(t, "sg2")
	if _, err := b.Produce(context.Background(), "s", 10, nil); err != nil {
		t.Fatal(err)
	}
	c := newShare(t, b, "sg2")
	defer c.Close(context.Background())
	first := pollShare(t, c, 10, func(r consumer.ShareRecord) {
		typ := consumer.Accept
		if r.Offset == 0 {
			typ = consumer.Release
		}
		if err := c.Acknowledge(r, typ); err != nil {
			t.Fatal(err)
		}
	})
	for _, r := range first {
		if r.DeliveryCount != 1 {
			t.Fatalf("first delivery count %d", r.DeliveryCount)
		}
	}
	again := pollShare(t, c, 1, func(r consumer.ShareRecord) { _ = c.Acknowledge(r, consumer.Accept) })
	if again[0].DeliveryCount != 2 {
		t.Fatalf("redelivered %s/%d@%d with delivery count %d, want 2", again[0].Topic, again[0].Partition, again[0].Offset, again[0].DeliveryCount)
	}
	// Explicit mode: acknowledging twice is an error.
	if err := c.Acknowledge(again[0], consumer.Accept); !errors.Is(err, errNotDelivered()) {
		t.Fatalf("second acknowledge err = %v", err)
	}
}
