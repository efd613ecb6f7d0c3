package kgo

import (
	"context"
	"testing"
	"time"

	franz "github.com/twmb/franz-go/pkg/kgo"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/fakebroker"
	"github.com/kreactor/kreactor/managers"
)

// TestCloseAutoCommitMatchesKgo checks the emulation of kgo's default
// revoke commit (Consumer.onRevoked replaces it to track the assignment):
// with auto-commit on (and its interval too long to fire), Close commits
// the position after all but the last poll, exactly as a raw kgo client
// with the same options does.
func TestCloseAutoCommitMatchesKgo(t *testing.T) {
	for _, p := range []Protocol{ProtocolConsumer, ProtocolClassic} {
		t.Run(string(p), func(t *testing.T) {
			b := startBroker(t, map[string]int32{"t": 1})
			produce(t, b, "t", 300)
			cfg := config(b, "adapter", "adapter")
			cfg.EnableAutoCommit = true
			cfg.AutoCommitInterval = time.Hour
			cfg.MaxPollRecords = 50
			tp := managers.TopicPartition{Topic: "t", Partition: 0}

			c := startSubscribed(t, Subject{Protocol: p}, cfg, "t")
			var batches [][]consumer.Record
			for len(batches) < 3 {
				if recs := poll(t, c); len(recs) > 0 {
					batches = append(batches, recs)
				}
			}
			if err := c.Close(testCtx(t)); err != nil {
				t.Fatal(err)
			}
			want := batches[1][len(batches[1])-1].Offset + 1
			if got := committed(b, "adapter")[tp]; got != want {
				t.Fatalf("adapter committed %d at Close, want %d (after the second of three polls)", got, want)
			}

			// The rule checked above is kgo's own: a raw client commits the
			// same way.
			got, afterSecond := rawCommitAtClose(t, b, cfg, p)
			if got != afterSecond {
				t.Fatalf("raw kgo committed %d at Close, want %d (after its second of three polls): kgo's rule is not what the adapter emulates", got, afterSecond)
			}
		})
	}
}

// rawCommitAtClose runs the same three polls on a raw kgo client with the
// adapter's options (group "raw") and returns what its Close committed and
// the position after its second poll.
func rawCommitAtClose(t *testing.T, b *fakebroker.Broker, cfg consumer.Config, p Protocol) (got, afterSecond int64) {
	t.Helper()
	cfg.GroupID, cfg.ClientID = "raw", "raw"
	opts, err := consumerOpts(cfg)
	if err != nil {
		t.Fatal(err)
	}
	opts = append(opts, groupOpts(cfg, p)...)
	cl, err := franz.NewClient(append(opts, franz.ConsumeTopics("t"))...)
	if err != nil {
		t.Fatal(err)
	}
	var batches []franz.Fetches
	deadline := time.Now().Add(testTimeout)
	for len(batches) < 3 && time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), pollTimeout)
		f := cl.PollRecords(ctx, cfg.MaxPollRecords)
		cancel()
		if f.NumRecords() > 0 {
			batches = append(batches, f)
		}
	}
	cl.Close()
	if len(batches) < 3 {
		t.Fatalf("raw kgo: %d polls with records in %s", len(batches), testTimeout)
	}
	second := batches[1].Records()
	return committed(b, "raw")[managers.TopicPartition{Topic: "t", Partition: 0}], second[len(second)-1].Offset + 1
}
