package kgo

import (
	"errors"
	"testing"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
)

// Seek moves only the fetch position: the next Poll delivers from there,
// the next CommitSync commits it, the seek itself commits nothing; a
// partition not assigned is refused. Subscribed and manually assigned.
func TestSeek(t *testing.T) {
	for _, mode := range []string{"subscribed", "assigned"} {
		t.Run(mode, func(t *testing.T) {
			b := startBroker(t, map[string]int32{"t": 1})
			produce(t, b, "t", 10)
			c := startConsumer(t, Subject{}, config(b, "g", "kgo-seek"))
			tp := managers.TopicPartition{Topic: "t", Partition: 0}
			var err error
			if mode == "subscribed" {
				err = c.Subscribe("t")
			} else {
				err = c.Assign(tp)
			}
			if err != nil {
				t.Fatal(err)
			}
			pollN(t, c, 10)
			if err := c.CommitSync(testCtx(t)); err != nil {
				t.Fatal(err)
			}
			if err := c.Seek(tp, 4); err != nil {
				t.Fatal(err)
			}
			if got := committed(b, "g")[tp]; got != 10 {
				t.Fatalf("committed %d after the seek, want 10 (a seek commits nothing)", got)
			}
			recs, _ := pollN(t, c, 6)
			if recs[0].Offset != 4 {
				t.Fatalf("first record after the seek at offset %d, want 4", recs[0].Offset)
			}
			if err := c.Seek(tp, 4); err != nil {
				t.Fatal(err)
			}
			if err := c.CommitSync(testCtx(t)); err != nil {
				t.Fatal(err)
			}
			if got := committed(b, "g")[tp]; got != 4 {
				t.Fatalf("committed %d after seek and CommitSync, want 4", got)
			}
			var pe *group.PartitionError
			if err := c.Seek(managers.TopicPartition{Topic: "t", Partition: 5}, 0); !errors.As(err, &pe) || !errors.Is(err, group.ErrNotAssigned) {
				t.Fatalf("seek of a partition not assigned: %v", err)
			}
		})
	}
}

// A manually assigned partition sought before its first Poll starts at the
// offset sought: kgo's SetOffsets skips a partition it does not consume
// yet, so the subject starts consuming it there (the KAFKA-18569
// never-needed scenario assigns and seeks before any Poll).
func TestSeekBeforeFirstPoll(t *testing.T) {
	b := startBroker(t, map[string]int32{"t": 1})
	produce(t, b, "t", 10)
	c := startConsumer(t, Subject{}, config(b, "g", "kgo-seek-first"))
	tp := managers.TopicPartition{Topic: "t", Partition: 0}
	if err := c.Assign(tp); err != nil {
		t.Fatal(err)
	}
	if err := c.Seek(tp, 7); err != nil {
		t.Fatal(err)
	}
	recs, _ := pollN(t, c, 3)
	if recs[0].Offset != 7 {
		t.Fatalf("first record at offset %d, want 7 (the offset sought before the first Poll)", recs[0].Offset)
	}
}
