package wire

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestRecorderIsBounded(t *testing.T) {
	rec := NewRecorder(3)
	for i := range 5 {
		rec.Add(Request{CorrelationID: int32(i)})
	}
	got := rec.Requests()
	if len(got) != 3 || got[0].CorrelationID != 2 || got[2].CorrelationID != 4 {
		t.Fatalf("want the newest three (2, 3, 4) oldest first, got %+v", got)
	}
	if d := rec.Dropped(); d != 2 {
		t.Fatalf("Dropped = %d, want 2", d)
	}
	if c := rec.Cap(); c != 3 {
		t.Fatalf("Cap = %d, want 3", c)
	}
	if c := NewRecorder(0).Cap(); c != 1 {
		t.Fatalf("NewRecorder(0).Cap = %d, want 1", c)
	}
}

func TestRecorderFilters(t *testing.T) {
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	rec := NewRecorder(100)
	rec.Add(Request{Key: kmsg.FindCoordinator, ClientID: "a", Node: 0, At: at(0)})
	rec.Add(Request{Key: kmsg.ConsumerGroupHeartbeat, ClientID: "a", Node: 1, At: at(10)})
	rec.Add(Request{Key: kmsg.ConsumerGroupHeartbeat, ClientID: "b", Node: 1, At: at(20)})
	rec.Add(Request{Key: kmsg.OffsetCommit, ClientID: "a", Node: 2, At: at(30)})
	rec.AddMalformed()

	cases := []struct {
		name string
		f    Filter
		want int
	}{
		{"zero filter matches all", Filter{}, 4},
		{"one key", Filter{Keys: []kmsg.Key{kmsg.ConsumerGroupHeartbeat}}, 2},
		{"two keys", Filter{Keys: []kmsg.Key{kmsg.FindCoordinator, kmsg.OffsetCommit}}, 2},
		{"client", Filter{ClientID: "a"}, 3},
		{"key and client", Filter{Keys: []kmsg.Key{kmsg.ConsumerGroupHeartbeat}, ClientID: "b"}, 1},
		{"node", Filter{Nodes: []int32{1, 2}}, 3},
		{"from is inclusive", Filter{From: at(10)}, 3},
		{"to is exclusive", Filter{To: at(20)}, 2},
		{"window", Filter{From: at(10), To: at(30)}, 2},
		{"empty window", Filter{From: at(15), To: at(15)}, 0},
		{"unknown client", Filter{ClientID: "c"}, 0},
	}
	for _, c := range cases {
		if got := rec.Count(c.f); got != c.want {
			t.Errorf("%s: Count = %d, want %d", c.name, got, c.want)
		}
		if got := len(rec.Filter(c.f)); got != c.want {
			t.Errorf("%s: len(Filter) = %d, want %d", c.name, got, c.want)
		}
	}
	if m := rec.Malformed(); m != 1 {
		t.Fatalf("Malformed = %d, want 1", m)
	}
	if !rec.Mark().After(t0) {
		t.Fatal("Mark is not after the records' start")
	}
	rec.Reset()
	if n, m, d := rec.Count(Filter{}), rec.Malformed(), rec.Dropped(); n+int(m)+int(d) != 0 {
		t.Fatalf("after Reset: %d records, %d malformed, %d dropped; want none", n, m, d)
	}
}
