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

// A reader holding a next from before a Reset sees the requests recorded
// after it: sequence numbers go on from where they were.
func TestRecorderSeqSurvivesReset(t *testing.T) {
	r := NewRecorder(4)
	for i := range 6 {
		r.Add(Request{Key: kmsg.Fetch, CorrelationID: int32(i)})
	}
	_, next := r.Since(0, 0, Filter{})
	r.Reset()
	if r.Recorded() != 0 || r.Dropped() != 0 || r.NextSeq() != 6 {
		t.Fatalf("after Reset: Recorded %d, Dropped %d, NextSeq %d; want 0, 0, 6", r.Recorded(), r.Dropped(), r.NextSeq())
	}
	if page, n := r.Since(next, 0, Filter{}); len(page) != 0 || n != 6 {
		t.Fatalf("Since(%d) right after Reset = %+v, %d; want nothing, 6", next, page, n)
	}
	for i := range 2 {
		r.Add(Request{Key: kmsg.Fetch, CorrelationID: int32(10 + i)})
	}
	page, n := r.Since(next, 0, Filter{})
	if len(page) != 2 || page[0].Seq != 6 || page[0].CorrelationID != 10 || page[1].Seq != 7 || n != 8 {
		t.Fatalf("Since(%d) after Reset and 2 requests = %+v, next %d; want seqs 6, 7, next 8", next, page, n)
	}
	// Eviction after a Reset keeps counting from there.
	for i := range 4 {
		r.Add(Request{Key: kmsg.Fetch, CorrelationID: int32(20 + i)})
	}
	if page, n := r.Since(0, 0, Filter{}); len(page) != 4 || page[0].Seq != 8 || n != 12 || r.Dropped() != 2 {
		t.Fatalf("Since(0) = %+v, next %d, Dropped %d; want seqs 8..11, next 12, 2 dropped", page, n, r.Dropped())
	}
}
