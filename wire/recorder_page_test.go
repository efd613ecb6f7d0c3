package wire

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestRecorderSince(t *testing.T) {
	r := NewRecorder(4)
	for i := range 6 { // 0 and 1 are evicted
		key := kmsg.Fetch
		if i%2 == 1 {
			key = kmsg.Heartbeat
		}
		r.Add(Request{Key: key, CorrelationID: int32(i)})
	}
	if got := r.Recorded(); got != 6 {
		t.Fatalf("Recorded = %d, want 6", got)
	}
	page, next := r.Since(0, 3, Filter{})
	if len(page) != 3 || page[0].Seq != 2 || page[0].CorrelationID != 2 || page[2].Seq != 4 || next != 5 {
		t.Fatalf("Since(0, 3) = %+v, next %d; want seqs 2..4, next 5", page, next)
	}
	page, next = r.Since(next, 0, Filter{})
	if len(page) != 1 || page[0].Seq != 5 || next != 6 {
		t.Fatalf("Since(5) = %+v, next %d; want seq 5, next 6", page, next)
	}
	page, next = r.Since(0, 0, Filter{Keys: []kmsg.Key{kmsg.Heartbeat}})
	if len(page) != 2 || page[0].Seq != 3 || page[1].Seq != 5 || next != 6 {
		t.Fatalf("Since(heartbeats) = %+v, next %d; want seqs 3, 5", page, next)
	}
	if page, next = r.Since(6, 0, Filter{}); len(page) != 0 || next != 6 {
		t.Fatalf("Since(6) = %+v, next %d; want nothing, next 6", page, next)
	}
}
