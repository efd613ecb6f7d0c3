package vocab

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestParseNames(t *testing.T) {
	if k, ok := ParseAPIKey("ConsumerGroupHeartbeat"); !ok || k != kmsg.ConsumerGroupHeartbeat {
		t.Errorf("ParseAPIKey(ConsumerGroupHeartbeat) = %v, %v", k, ok)
	}
	if k, ok := ParseAPIKey("10"); !ok || k != kmsg.FindCoordinator {
		t.Errorf("ParseAPIKey(10) = %v, %v", k, ok)
	}
	for _, bad := range []string{"", "Nope", "9999", "-1"} {
		if _, ok := ParseAPIKey(bad); ok {
			t.Errorf("ParseAPIKey(%q) accepted", bad)
		}
	}
	if e, ok := ParseError("FENCED_MEMBER_EPOCH"); !ok || e != kerr.FencedMemberEpoch {
		t.Errorf("ParseError = %v, %v", e, ok)
	}
	if _, ok := ParseError("fenced_member_epoch"); ok {
		t.Error("ParseError accepted a lower-case name")
	}
}

func TestCompileWhere(t *testing.T) {
	sel, err := CompileWhere(kmsg.ConsumerGroupHeartbeat, map[string]string{"member_epoch": "-1", "group": "g"})
	if err != nil {
		t.Fatal(err)
	}
	hb := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	hb.Group, hb.MemberEpoch = "g", -1
	if !sel(hb) {
		t.Error("leave heartbeat of g not selected")
	}
	hb.MemberEpoch = 3
	if sel(hb) {
		t.Error("epoch 3 selected")
	}
	if sel(kmsg.NewPtrHeartbeatRequest()) {
		t.Error("another API selected")
	}
	_, err = CompileWhere(kmsg.ConsumerGroupHeartbeat, map[string]string{"colour": "red"})
	if err == nil || !strings.Contains(err.Error(), `no field "colour"`) || !strings.Contains(err.Error(), "member_epoch") {
		t.Errorf("unknown field: %v", err)
	}
	if _, err := CompileWhere(kmsg.ConsumerGroupHeartbeat, map[string]string{"member_epoch": "x"}); err == nil {
		t.Error("non-integer epoch accepted")
	}
	if !slices.Contains(WhereFields(kmsg.FindCoordinator), "coordinator_type") {
		t.Errorf("WhereFields(FindCoordinator) = %v", WhereFields(kmsg.FindCoordinator))
	}
}

func TestTrigger(t *testing.T) {
	count := func(tr Trigger, n int) []bool {
		sel := tr.Wrap(nil)
		var out []bool
		for range n {
			out = append(out, sel == nil || sel(nil))
		}
		return out
	}
	if got := count(Trigger{First: 2}, 4); !slices.Equal(got, []bool{true, true, false, false}) {
		t.Errorf("first 2: %v", got)
	}
	if got := count(Trigger{Nth: 3}, 4); !slices.Equal(got, []bool{false, false, true, false}) {
		t.Errorf("nth 3: %v", got)
	}
	a, b := count(Trigger{Probability: 0.5, Seed: 9}, 50), count(Trigger{Probability: 0.5, Seed: 9}, 50)
	if !slices.Equal(a, b) {
		t.Error("same seed, different picks")
	}
	for _, bad := range []Trigger{{First: -1}, {Nth: -1}, {First: 1, Nth: 1}, {Probability: 1.5}} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// TestDefs: every Kind has a Def of its name; the others (restart,
// stop-broker) are the kinds installed by stopping brokers.
func TestDefs(t *testing.T) {
	for _, n := range KindNames() {
		if _, ok := DefOf(n); !ok {
			t.Errorf("kind %s has no Def", n)
		}
	}
	for _, d := range Defs {
		if _, ok := ParseKind(d.Name); !ok && d.Name != "restart" && d.Name != "stop-broker" {
			t.Errorf("Def %s is neither a Kind nor a broker stop", d.Name)
		}
		for _, r := range d.Requires {
			if !slices.Contains(d.Args, r) {
				t.Errorf("Def %s requires %s it does not take", d.Name, r)
			}
		}
	}
}

func TestCarriesTopics(t *testing.T) {
	for _, k := range []kmsg.Key{kmsg.Fetch, kmsg.Produce, kmsg.Metadata, kmsg.OffsetCommit, kmsg.OffsetFetch, kmsg.ListOffsets,
		kmsg.ConsumerGroupHeartbeat, kmsg.ShareFetch, kmsg.ShareAcknowledge, kmsg.ShareGroupDescribe} {
		if !CarriesTopics(k) {
			t.Errorf("CarriesTopics(%s) = false", k.Name())
		}
	}
	for _, k := range []kmsg.Key{kmsg.ApiVersions, kmsg.FindCoordinator, kmsg.Heartbeat, kmsg.JoinGroup, kmsg.SyncGroup, kmsg.LeaveGroup, kmsg.Key(9999)} {
		if CarriesTopics(k) {
			t.Errorf("CarriesTopics(%d) = true", k)
		}
	}
}

// A topic selector on an API whose requests name no topic would never
// fire: Validate refuses it, naming the API and the topic.
func TestSpecTopicOnTopiclessAPI(t *testing.T) {
	s := Spec{Kind: Error, Key: kmsg.ApiVersions, Err: kerr.NotCoordinator, Topic: "t"}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "ApiVersions") || !strings.Contains(err.Error(), `"t"`) {
		t.Errorf("topic on ApiVersions: %v", err)
	}
	s.Key = kmsg.Fetch
	if err := s.Validate(); err != nil {
		t.Errorf("topic on Fetch: %v", err)
	}
	if err := (Spec{Kind: Hold, Key: kmsg.Fetch, Topic: "t"}).Validate(); err == nil {
		t.Error("topic on a hold accepted")
	}
}

func TestCheckTopicName(t *testing.T) {
	for _, ok := range []string{"t", "orders.v2", "a_b-C9", "...", strings.Repeat("x", 249)} {
		if err := CheckTopicName(ok); err != nil {
			t.Errorf("CheckTopicName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "a/b", "a b", "ü", strings.Repeat("x", 250)} {
		if err := CheckTopicName(bad); err == nil || !strings.Contains(err.Error(), strconv.Quote(bad)) {
			t.Errorf("CheckTopicName(%q) = %v, want an error naming it", bad, err)
		}
	}
}

// TestKindNamesListsEveryKind: a kind added to kindNames shows in the
// error messages' list, in Kind order, whatever its place.
func TestKindNamesListsEveryKind(t *testing.T) {
	names := KindNames()
	if len(names) != len(kindNames) {
		t.Fatalf("KindNames() = %v: %d names, kindNames has %d", names, len(names), len(kindNames))
	}
	for i, n := range names {
		k, ok := ParseKind(n)
		if !ok || int(k) != i+1 {
			t.Errorf("KindNames()[%d] = %q parses to %d, %v; want Kind %d", i, n, k, ok, i+1)
		}
	}
}
