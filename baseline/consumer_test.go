package baseline_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kreactor/kreactor/baseline"
	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/internal/clienttest"
	"github.com/kreactor/kreactor/managers"
)

// pollN polls until n records arrived, checking offset order per
// partition, and returns the last offset of each partition.
func pollN(t *testing.T, c *baseline.Consumer, n int) map[int32]int64 {
	t.Helper()
	seen := map[int32]int64{}
	clienttest.PollUntil(t, n, c.Poll, func(r consumer.Record) {
		if last, ok := seen[r.Partition]; ok && r.Offset != last+1 {
			t.Fatalf("partition %d: offset %d after %d", r.Partition, r.Offset, last)
		}
		seen[r.Partition] = r.Offset
	}, func() string { return c.Diagnostics().Diagnose() })
	return seen
}

// The baseline consumer models today's execution; it is not expected to
// fail ordinary use: it consumes in order, commits, and closes leaving the
// group.
func TestConsumeCommitClose(t *testing.T) {
	b := clienttest.StartBroker(t, "t", 3, 300)
	c, err := baseline.New(clienttest.Config(b, "g"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Subscribe("t"); err != nil {
		t.Fatal(err)
	}
	seen := pollN(t, c, 300)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.CommitSync(ctx); err != nil {
		t.Fatal(err)
	}
	async := make(chan error, 1)
	c.CommitAsync(func(err error) { async <- err })
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-async:
		if err != nil {
			t.Fatalf("CommitAsync callback: %v", err)
		}
	default:
		t.Fatal("the CommitAsync callback did not run by the end of Close")
	}
	if err := c.Close(ctx); !errors.Is(err, consumer.ErrClosed) {
		t.Fatalf("second Close = %v, want ErrClosed", err)
	}
	clienttest.CheckLeftAndCommitted(t, b, "g", "t", seen)
	d := c.Diagnostics()
	if returns, _ := d.CommitReturns(); returns < 1 || d.Stats().Steps == 0 || d.Decision() == nil || len(d.Trace()) == 0 || d.AppWakeups() == 0 {
		t.Fatalf("diagnostics: want commit returns, steps, a decision, a trace and app wakeups:\n%s", d.Diagnose())
	}
}

// The close-time pass ends once nothing is in flight and no request
// manager has a request to send or a retry due; the periodic metadata
// refresh (metadata.max.age.ms) is no pending request and must not hold
// Close to its timer, as Java's close-time pass waits only on the network
// client's pending requests. A manually assigned member has no leave to
// wait for.
func TestCloseEndsWhenNothingIsPending(t *testing.T) {
	b := clienttest.StartBroker(t, "t", 1, 10)
	c, err := baseline.New(clienttest.Config(b, "g"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Assign(managers.TopicPartition{Topic: "t", Partition: 0}); err != nil {
		t.Fatal(err)
	}
	pollN(t, c, 10)
	const timer = 10 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), timer)
	defer cancel()
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatalf("Close returned at its %s timer with nothing pending:\n%s", timer, c.Diagnostics().Diagnose())
	}
}

// Today's consumer accepts retry.backoff.ms = 0 (KAFKA-21049); every other
// invalid field is refused as consumer.New refuses it.
func TestConfigValidation(t *testing.T) {
	cfg := consumer.DefaultConfig()
	cfg.BootstrapServers = []string{"127.0.0.1:1"}
	cfg.RetryBackoff = 0
	c, err := baseline.New(cfg)
	if err != nil {
		t.Fatalf("zero RetryBackoff refused: %v", err)
	}
	// Nothing is reachable: today's close-time pass runs to its deadline.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	cfg.MaxPollRecords = 0
	cfg.RetryBackoff = time.Millisecond
	_, err = baseline.New(cfg)
	var ce *consumer.ConfigError
	if !errors.As(err, &ce) || ce.Field != "MaxPollRecords" {
		t.Fatalf("err = %v, want a ConfigError on MaxPollRecords", err)
	}
	scfg := consumer.DefaultShareConfig()
	scfg.BootstrapServers = []string{"127.0.0.1:1"}
	if _, err := baseline.NewShare(scfg); !errors.As(err, &ce) || ce.Field != "GroupID" {
		t.Fatalf("share err = %v, want a ConfigError on GroupID", err)
	}
}

// Wakeup interrupts a blocked Poll (a sticky flag the next wait sees);
// manual assignment, pause and resume work without a group.
func TestWakeupAssignPause(t *testing.T) {
	b := clienttest.StartBroker(t, "t", 1, 10)
	cfg := clienttest.Config(b, "")
	cfg.EnableAutoCommit = false
	c, err := baseline.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// A fetch is always outstanding: today's close-time pass runs to its
	// deadline, so the test gives it a short one.
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		_ = c.Close(ctx)
	}()
	tp := managers.TopicPartition{Topic: "t", Partition: 0}
	if err := c.Subscribe("t"); !errors.Is(err, consumer.ErrNoGroup) {
		t.Fatalf("Subscribe without a group = %v, want ErrNoGroup", err)
	}
	if err := c.Assign(tp); err != nil {
		t.Fatal(err)
	}
	pollN(t, c, 10)
	if err := c.Pause(tp); err != nil {
		t.Fatal(err)
	}
	if err := c.Resume(tp); err != nil {
		t.Fatal(err)
	}
	c.Wakeup()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if _, err := c.Poll(ctx); !errors.Is(err, consumer.ErrWakeup) {
		t.Fatalf("Poll after Wakeup = %v, want ErrWakeup", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("Poll after Wakeup took %s", took)
	}
	if got := c.Assignment(); len(got) != 1 || got[0] != tp {
		t.Fatalf("assignment %v, want [%s]", got, tp)
	}
}

// The baseline share consumer consumes (implicit acknowledgement), commits,
// is woken, and closes leaving the share group.
func TestShareConsumeCommitClose(t *testing.T) {
	b := clienttest.StartShareBroker(t, "sg")
	if _, err := b.Produce(context.Background(), "s", 100, nil); err != nil {
		t.Fatal(err)
	}
	c, err := baseline.NewShare(clienttest.ShareConfig(b, "sg"))
	if err != nil {
		t.Fatal(err)
	}
	var acked int
	c.SetAcknowledgementCommitCallback(func(offs map[managers.TopicPartition][]int64, err error) {
		for _, o := range offs {
			if err == nil {
				acked += len(o)
			}
		}
	})
	if err := c.Subscribe("s"); err != nil {
		t.Fatal(err)
	}
	clienttest.PollUntil(t, 100, c.Poll, nil, func() string { return c.Diagnostics().Diagnose() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.CommitSync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.CommitAsync(); err != nil {
		t.Fatal(err)
	}
	c.Wakeup()
	if _, err := c.Poll(ctx); !errors.Is(err, consumer.ErrWakeup) {
		t.Fatalf("Poll after Wakeup = %v, want ErrWakeup", err)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if acked != 100 {
		t.Fatalf("%d offsets acknowledged, want 100", acked)
	}
	if gi := b.GroupInfo("sg"); gi != nil && len(gi.Members) != 0 {
		t.Fatalf("members after close: %+v", gi.Members)
	}
	if d := c.Diagnostics(); d.Snapshot() == nil {
		t.Fatalf("no snapshot:\n%s", d.Diagnose())
	} else if returns, _ := d.CommitReturns(); returns != 1 {
		t.Fatalf("%d commit returns, want 1:\n%s", returns, d.Diagnose())
	}
}
