package reports

import (
	"slices"
	"testing"
)

func TestShardFilterRoundTrip(t *testing.T) {
	for _, user := range []string{"", "covers:KAFKA-20253", "!judges:cpu && covers:P6"} {
		f := ShardFilter(user, []string{"bounded.trace", "kafka-20253-coordinator-lost"}, 2, 4)
		if got := UserFilter(f); got != user {
			t.Errorf("UserFilter(%q) = %q, want %q", f, got, user)
		}
	}
	if got := UserFilter("covers:P6"); got != "covers:P6" {
		t.Errorf("a user's filter changed: %q", got)
	}
}

func TestMergeShards(t *testing.T) {
	row := func(id string, v Verdict, msg string, run int) Row {
		return Row{ID: id, Subject: "reactor", Target: "kfake", Verdict: v, Message: msg, Run: run}
	}
	rows := []Row{
		row("a", VerdictPass, "", 1),                  // shard 1 ran a
		row("b", VerdictSkipped, "", 1),               // shard 1 filtered b out
		row("c", VerdictSkipped, "not applicable", 1), // c skipped itself: kept
		row("a", VerdictSkipped, "", 1),               // shard 2 filtered a out
		row("b", VerdictFail, "boom", 1),              // shard 2 ran b
		row("d", VerdictSkipped, "", 1),               // d filtered out of every shard: one row
		row("d", VerdictSkipped, "", 1),
		row("a", VerdictSkipped, "", 2), // another run: its own key
	}
	got := mergeShards(rows)
	var ids []string
	for _, r := range got {
		ids = append(ids, r.ID+":"+string(r.Verdict))
	}
	want := []string{"a:pass", "c:skipped", "b:fail", "d:skipped", "a:skipped"}
	if !slices.Equal(ids, want) {
		t.Fatalf("mergeShards = %v, want %v", ids, want)
	}
}
