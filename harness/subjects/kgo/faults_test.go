package kgo

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/managers"
)

// closeBound is the close deadline in TestCloseDeadline; Close may take
// longer only by kgo's shutdown after its context is canceled, which is
// bounded generously by closeSlack.
const (
	closeBound = 500 * time.Millisecond
	closeSlack = 10 * time.Second
)

// TestCloseDeadline: a leave the coordinator never answers fails Close at
// its deadline with consumer.ErrCloseDeadline, and nothing is left running
// (goleak in TestMain).
func TestCloseDeadline(t *testing.T) {
	b := startBroker(t, map[string]int32{"t": 1})
	c := startSubscribed(t, Subject{}, config(b, "g", "c"), "t")
	eventually(t, "assigned", func() bool { poll(t, c); return len(c.Assignment()) == 1 })
	h, err := b.HoldKey(kmsg.ConsumerGroupHeartbeat)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Remove()
	ctx, cancel := context.WithTimeout(context.Background(), closeBound)
	defer cancel()
	start := time.Now()
	err = c.Close(ctx)
	took := time.Since(start)
	if !errors.Is(err, consumer.ErrCloseDeadline) {
		t.Fatalf("Close with the leave held = %v, want consumer.ErrCloseDeadline", err)
	}
	if took > closeBound+closeSlack {
		t.Fatalf("Close took %s with a %s deadline", took, closeBound)
	}
	t.Logf("Close returned after %s: %v", took, err)
}

// TestCommitErrors: the broker's commit errors reach CommitSync and the
// CommitAsync callback as kerr errors (errors.Is).
func TestCommitErrors(t *testing.T) {
	b := startBroker(t, map[string]int32{"t": 1})
	produce(t, b, "t", 10)
	c := startSubscribed(t, Subject{}, config(b, "g", "c"), "t")
	pollN(t, c, 10)
	h, err := b.AnswerKeyWithError(kmsg.OffsetCommit, kerr.GroupAuthorizationFailed, -1)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CommitSync(testCtx(t)); !errors.Is(err, kerr.GroupAuthorizationFailed) {
		t.Fatalf("CommitSync = %v, want GROUP_AUTHORIZATION_FAILED", err)
	}
	var got error
	ran := false
	c.CommitAsync(func(err error) { got, ran = err, true })
	eventually(t, "the callback ran", func() bool { poll(t, c); return ran })
	if !errors.Is(got, kerr.GroupAuthorizationFailed) {
		t.Fatalf("CommitAsync callback error %v, want GROUP_AUTHORIZATION_FAILED", got)
	}
	h.Remove()

	// Manual assignment: the kadm commit's partition error.
	m := startConsumer(t, Subject{}, config(b, "manual", "m"))
	if err := m.Assign(managers.TopicPartition{Topic: "t", Partition: 0}); err != nil {
		t.Fatal(err)
	}
	pollN(t, m, 10)
	if _, err := b.AnswerKeyWithError(kmsg.OffsetCommit, kerr.OffsetMetadataTooLarge, 0); err != nil {
		t.Fatal(err)
	}
	if err := m.CommitSync(testCtx(t)); !errors.Is(err, kerr.OffsetMetadataTooLarge) {
		t.Fatalf("manual CommitSync = %v, want OFFSET_METADATA_TOO_LARGE", err)
	}
	if err := m.CommitSync(testCtx(t)); err != nil { // the fault was once: the retry commits
		t.Fatalf("second manual CommitSync = %v", err)
	}
	if got := committed(b, "manual")[managers.TopicPartition{Topic: "t", Partition: 0}]; got != 10 {
		t.Fatalf("committed %d, want 10", got)
	}
}
