package sim

import (
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestDiffNatures(t *testing.T) {
	ms := time.Millisecond
	base := &History{
		Requests: []Request{
			{At: 10 * ms, Key: kmsg.Fetch, Node: 0, Conn: 1, ClientID: "c"},
			{At: 10 * ms, Key: kmsg.Fetch, Node: 1, Conn: 2, ClientID: "c"},
			{At: 20 * ms, Key: kmsg.OffsetCommit, Node: 2, Conn: 3, ClientID: "c"},
		},
		Deliveries: []Delivery{{At: 10 * ms, Member: "c", Topic: "t", Partition: 0, Offset: 0}},
	}
	swapped := &History{Requests: []Request{base.Requests[1], base.Requests[0], base.Requests[2]}, Deliveries: base.Deliveries}
	later := &History{Requests: []Request{base.Requests[0], base.Requests[1], {At: 25 * ms, Key: kmsg.OffsetCommit, Node: 2, Conn: 3, ClientID: "c"}}, Deliveries: base.Deliveries}
	renumbered := &History{Requests: []Request{{At: 10 * ms, Key: kmsg.Fetch, Node: 1, Conn: 1, ClientID: "c"}, {At: 10 * ms, Key: kmsg.Fetch, Node: 0, Conn: 2, ClientID: "c"}, base.Requests[2]}, Deliveries: base.Deliveries}
	fewer := &History{Requests: base.Requests[:2], Deliveries: base.Deliveries}

	if d := Diff(base, base); len(d) != 0 || !base.Equal(base) {
		t.Fatalf("a history differs from itself: %v", d)
	}
	cases := []struct {
		name   string
		other  *History
		nature string
		canon  bool // canonical forms equal
	}{
		{"simultaneous requests swapped", swapped, "same items and times, different order", true},
		{"a request later", later, "same items in the same order, different times", false},
		{"connections accepted in the other order", renumbered, "different items", true},
		{"a request missing", fewer, "different items (3 vs 2)", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Diff(base, c.other)
			if len(d) != 1 || d[0].Section != SectionRequests || d[0].Nature() != c.nature {
				t.Fatalf("Diff = %v, want one requests difference: %s", d, c.nature)
			}
			if got := base.Canonical().Equal(c.other.Canonical()); got != c.canon {
				t.Fatalf("canonical forms equal = %v, want %v", got, c.canon)
			}
			if got := base.Canonical().Fingerprint() == c.other.Canonical().Fingerprint(); got != c.canon {
				t.Fatalf("canonical fingerprints equal = %v, want %v", got, c.canon)
			}
		})
	}
	if base.Fingerprint() == swapped.Fingerprint() {
		t.Fatal("histories in another order have one fingerprint")
	}
}

func TestConfigRejectsNegatives(t *testing.T) {
	for _, c := range []struct {
		cfg   Config
		field string
	}{
		{Config{MaxVirtual: -1}, "MaxVirtual"},
		{Config{Procs: -1}, "Procs"},
	} {
		_, err := RunWall(t.Context(), c.cfg, func(*Env) error { return nil })
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != c.field {
			t.Fatalf("RunWall(%+v) = %v, want a *ConfigError for %s", c.cfg, err, c.field)
		}
	}
}
