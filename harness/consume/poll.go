package consume

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/managers"
)

// PollStats describes a PollUntil run.
type PollStats struct {
	Polls       int           // Poll calls made
	FirstRecord time.Duration // from the call to the first record; 0 if none
}

// PollUntil polls c, harness.PollSlice at a time, until it has at least n records or
// ctx is done, and returns the records in delivery order. A Poll error stops
// it and is returned with the records so far; ctx ending returns ctx.Err().
func PollUntil(ctx context.Context, c harness.Consumer, n int) ([]consumer.Record, PollStats, error) {
	var out []consumer.Record
	var st PollStats
	start := time.Now()
	for len(out) < n {
		if err := ctx.Err(); err != nil {
			return out, st, fmt.Errorf("%d of %d records after %d polls: %w", len(out), n, st.Polls, err)
		}
		recs, err := pollOnce(ctx, c, harness.PollSlice)
		st.Polls++
		if len(recs) > 0 && st.FirstRecord == 0 {
			st.FirstRecord = time.Since(start)
		}
		out = append(out, recs...)
		if err != nil {
			return out, st, fmt.Errorf("poll %d (after %d records): %w", st.Polls, len(out), err)
		}
	}
	return out, st, nil
}

// PollFor polls c, harness.PollSlice at a time, for d (or until ctx is done) and
// returns every record received: used to show that nothing more arrives, or
// to keep the application polling through a fault window.
func PollFor(ctx context.Context, c harness.Consumer, d time.Duration) ([]consumer.Record, int, error) {
	var out []consumer.Record
	polls := 0
	end := time.Now().Add(d)
	for time.Now().Before(end) && ctx.Err() == nil {
		recs, err := pollOnce(ctx, c, min(harness.PollSlice, time.Until(end)))
		polls++
		out = append(out, recs...)
		if err != nil {
			return out, polls, err
		}
	}
	return out, polls, nil
}

func pollOnce(ctx context.Context, c harness.Consumer, d time.Duration) ([]consumer.Record, error) {
	pctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return c.Poll(pctx)
}

// Delivery summarizes records by partition.
type Delivery struct {
	// Next is, per partition, the offset after the last record delivered
	// (what a commit of everything delivered must store).
	Next map[managers.TopicPartition]int64
	// Count is the number of records per partition.
	Count map[managers.TopicPartition]int
}

// CheckDelivery checks that recs hold every offset in [from[tp], from[tp] +
// want[tp]) of each partition exactly once, in offset order per partition,
// and nothing else. from may be nil (all from offset 0). The error lists the
// first few violations of each kind.
func CheckDelivery(recs []consumer.Record, want map[managers.TopicPartition]int, from map[managers.TopicPartition]int64) (Delivery, error) {
	d := Delivery{Next: map[managers.TopicPartition]int64{}, Count: map[managers.TopicPartition]int{}}
	var problems []string
	add := func(format string, args ...any) {
		if len(problems) < 10 {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	for i, r := range recs {
		tp := managers.TopicPartition{Topic: r.Topic, Partition: r.Partition}
		expect, ok := d.Next[tp]
		if !ok {
			expect = from[tp]
		}
		switch {
		case r.Offset < expect:
			add("record %d: %s offset %d again or out of order (expected %d)", i, tp, r.Offset, expect)
		case r.Offset > expect:
			add("record %d: %s offset %d skips %d..%d", i, tp, r.Offset, expect, r.Offset-1)
		}
		if r.Offset >= expect {
			d.Next[tp] = r.Offset + 1
		}
		d.Count[tp]++
	}
	tps := make([]managers.TopicPartition, 0, len(want))
	for tp := range want {
		tps = append(tps, tp)
	}
	for tp := range d.Count {
		if _, ok := want[tp]; !ok {
			tps = append(tps, tp)
		}
	}
	slices.SortFunc(tps, func(a, b managers.TopicPartition) int { return strings.Compare(a.String(), b.String()) })
	for _, tp := range tps {
		if got, w := d.Count[tp], want[tp]; got != w {
			add("%s: %d records, want %d", tp, got, w)
		}
	}
	if len(problems) > 0 {
		return d, fmt.Errorf("delivery of %d records is not exactly once in order:\n  %s", len(recs), strings.Join(problems, "\n  "))
	}
	return d, nil
}

// Partitions turns Cluster.Produce's per-partition counts for topic into a
// map keyed by TopicPartition.
func Partitions(topic string, counts map[int32]int) map[managers.TopicPartition]int {
	out := make(map[managers.TopicPartition]int, len(counts))
	for p, n := range counts {
		out[managers.TopicPartition{Topic: topic, Partition: p}] = n
	}
	return out
}
