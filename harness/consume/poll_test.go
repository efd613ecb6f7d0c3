package consume

import (
	"testing"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/managers"
)

func rec(p int32, off int64) consumer.Record {
	return consumer.Record{Topic: "t", Partition: p, Offset: off}
}

func TestCheckDelivery(t *testing.T) {
	tp0, tp1 := managers.TopicPartition{Topic: "t", Partition: 0}, managers.TopicPartition{Topic: "t", Partition: 1}
	want := map[managers.TopicPartition]int{tp0: 2, tp1: 1}
	d, err := CheckDelivery([]consumer.Record{rec(0, 0), rec(1, 0), rec(0, 1)}, want, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Next[tp0] != 2 || d.Next[tp1] != 1 {
		t.Fatalf("Next = %v", d.Next)
	}
	for name, recs := range map[string][]consumer.Record{
		"duplicate": {rec(0, 0), rec(0, 0), rec(0, 1), rec(1, 0)},
		"reordered": {rec(0, 1), rec(0, 0), rec(1, 0)},
		"gap":       {rec(0, 0), rec(1, 0)},
		"extra":     {rec(0, 0), rec(0, 1), rec(1, 0), rec(2, 0)},
	} {
		if _, err := CheckDelivery(recs, want, nil); err == nil {
			t.Errorf("%s: CheckDelivery accepted %v", name, recs)
		}
	}
	if _, err := CheckDelivery([]consumer.Record{rec(0, 5)}, map[managers.TopicPartition]int{tp0: 1}, map[managers.TopicPartition]int64{tp0: 5}); err != nil {
		t.Errorf("resuming at offset 5: %v", err)
	}
}
