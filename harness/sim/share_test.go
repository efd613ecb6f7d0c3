package sim

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/fakebroker"
)

// Share consumers (KIP-932) run in a bubble too: two members of one share
// group, each polling on its own goroutine, receive every record once
// (implicit acceptance), and close.
func TestShareConsumersInBubble(t *testing.T) {
	const (
		topic   = "s"
		group   = "sg"
		records = 120
	)
	cluster := fakebroker.Config{Topics: map[string]int32{topic: 3}, BrokerConfigs: map[string]string{
		"group.share.record.lock.duration.ms": "1000",
		"share.record.lock.sweep.interval.ms": "100",
	}}
	h, err := Run(t, Config{Seed: seed, Cluster: cluster}, func(env *Env) error {
		ctx := env.Context()
		env.Broker.Cluster().SetGroupConfigs(group, map[string]string{"share.auto.offset.reset": "earliest"})
		if _, err := env.Broker.Produce(ctx, topic, records, nil); err != nil {
			return err
		}
		var (
			mu   sync.Mutex
			seen = map[string]bool{}
			wg   sync.WaitGroup
			errs = make(chan error, 2)
		)
		for _, id := range []string{"s1", "s2"} {
			cfg := env.ShareConfig(id)
			cfg.GroupID = group
			c, err := consumer.NewShare(cfg)
			if err != nil {
				return err
			}
			env.Defer(func() { _ = c.Close(context.Background()) })
			if err := c.Subscribe(topic); err != nil {
				return err
			}
			wg.Go(func() {
				for {
					mu.Lock()
					done := len(seen) == records
					mu.Unlock()
					if done || ctx.Err() != nil {
						break
					}
					pctx, cancel := context.WithTimeout(ctx, pollTimeout)
					recs, err := c.Poll(pctx)
					cancel()
					if err != nil {
						errs <- fmt.Errorf("%s: poll: %w", id, err)
						return
					}
					plain := make([]consumer.Record, len(recs))
					mu.Lock()
					for i, r := range recs {
						plain[i] = r.Record
						seen[fmt.Sprintf("%d@%d", r.Partition, r.Offset)] = true
					}
					mu.Unlock()
					env.Delivered(id, plain)
				}
				cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				defer cancel()
				env.Note(id, "close: %v", c.Close(cctx))
			})
		}
		wg.Wait()
		close(errs)
		return <-errs
	})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, tail(h, 40))
	}
	members := map[string]int{}
	offsets := map[string]int{}
	for _, d := range h.Deliveries {
		members[d.Member]++
		offsets[fmt.Sprintf("%d@%d", d.Partition, d.Offset)]++
	}
	if len(offsets) != records {
		t.Fatalf("%d distinct records delivered, want %d", len(offsets), records)
	}
	for k, n := range offsets {
		if n != 1 {
			t.Errorf("record %s delivered %d times, want once (accepted on delivery)", k, n)
		}
	}
	t.Logf("virtual %s, wall %s; deliveries per member %v", h.Virtual, h.Wall, members)
}
