package java

import (
	"context"
	"encoding/binary"
	"testing"
	"time"
)

// The consume command: the assignment first (its records untimed), then
// exactly the records asked for, counted with time, CPU and allocations
// from inside the JVM; the latency of stamped values; a deadline that
// passes first is reported, not an error.
func TestConsume(t *testing.T) {
	requireJava(t)
	const n = 300
	b := startBroker(t, map[string]int32{"c": 3})
	stamp := make([]byte, 16)
	binary.BigEndian.PutUint64(stamp, uint64(time.Now().Add(-time.Second).UnixNano()))
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if _, err := b.Produce(ctx, "c", n, func(int) ([]byte, []byte) { return nil, stamp }); err != nil {
		t.Fatal(err)
	}
	c := newConsumer(t, DefaultOptions(), props(t, b, "consume-group", "consumer"))
	if err := c.Subscribe("c"); err != nil {
		t.Fatal(err)
	}
	w, err := c.Consume(ctx, ConsumeArgs{Partitions: 3, StampAt: -1})
	if err != nil || w.TimedOut || w.Count != 0 {
		t.Fatalf("waiting for the assignment: %+v, %v", w, err)
	}
	res, err := c.Consume(ctx, ConsumeArgs{Records: n - int(w.Untimed), StampAt: 0})
	if err != nil {
		t.Fatal(err)
	}
	if res.TimedOut || res.Count+w.Untimed < n || res.Elapsed <= 0 || res.CPU <= 0 || res.Polls < 1 || res.HeapUsed <= 0 {
		t.Fatalf("consume %+v (untimed %d)", res, w.Untimed)
	}
	if l := res.Latency; l == nil || l.N != res.Count || l.P50 < time.Second || l.Max < l.P99 {
		t.Fatalf("latency %+v: every value was stamped a second before it was produced", l)
	}
	short, scancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer scancel()
	more, err := c.Consume(short, ConsumeArgs{Records: 1, StampAt: -1})
	if err != nil || !more.TimedOut || more.Count != 0 {
		t.Fatalf("nothing more to consume: %+v, %v", more, err)
	}
	if _, err := c.Consume(ctx, ConsumeArgs{Records: -1}); err == nil {
		t.Fatal("records -1 accepted")
	}
}
