package fakebroker

import (
	"fmt"
	"testing"

	"github.com/kreactor/kreactor/wire"
)

func TestProduceSpreadsRecordsRoundRobin(t *testing.T) {
	b := startBroker(t, Config{Topics: map[string]int32{"t": 3}})
	ctx := testCtx(t)
	counts, err := b.Produce(ctx, "t", 10, func(i int) ([]byte, []byte) {
		return nil, fmt.Appendf(nil, "v%d", i)
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int32]int{0: 4, 1: 3, 2: 3}
	for p, n := range want {
		if counts[p] != n {
			t.Fatalf("counts %v, want %v", counts, want)
		}
		if hw := b.Cluster().PartitionInfo("t", p).HighWatermark; hw != int64(n) {
			t.Fatalf("partition %d high watermark %d, want %d", p, hw, n)
		}
	}
	if b.Recorder().Count(wire.Filter{ClientID: ProducerClientID}) == 0 {
		t.Fatal("producer requests not recorded")
	}
	if _, err := b.Produce(ctx, "missing", 1, nil); err == nil {
		t.Fatal("Produce to a missing topic succeeded")
	}
}
