package explore

import (
	"testing"
	"time"
)

// TestRunRecordsGroupState: a run samples the group at the broker: the
// commits it accepted (the last one equal to what the history's end state
// says) and the member ids by client id; each Poll records the assignment
// the application read.
func TestRunRecordsGroupState(t *testing.T) {
	s := Schedule{Brokers: 1, Topics: []Topic{{Name: "t0", Partitions: 2}}, Length: 2 * time.Second,
		Produce: ProduceWorkload{Initial: 20},
		Members: []Member{{Name: "c1", AutoCommit: true, MaxPollInterval: 5 * time.Second, PollTimeout: 100 * time.Millisecond}}}
	tr, err := Run(t, s, RunOptions{Subject: "reactor", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.History.Committed) == 0 || len(tr.Commits) == 0 {
		t.Fatalf("committed %v, sampled commits %v: want both", tr.History.Committed, tr.Commits)
	}
	for _, c := range tr.History.Committed {
		var last CommitPoint
		for _, p := range tr.Commits {
			if p.Topic == c.Topic && p.Partition == c.Partition {
				last = p
			}
		}
		if last.Offset != c.Offset || last.At != c.At {
			t.Errorf("%s[%d]: last sampled commit %+v, the broker's end state %+v", c.Topic, c.Partition, last, c)
		}
	}
	named := false
	for _, client := range tr.MemberIDs {
		named = named || client == "c1"
	}
	if !named {
		t.Errorf("member ids %v: none names c1", tr.MemberIDs)
	}
	held := false
	for _, o := range tr.Ops {
		held = held || (o.Kind == OpPoll && len(o.Assigned) == 2)
	}
	if !held {
		t.Error("no Poll recorded the 2-partition assignment")
	}
	expectNone(t, Check(tr))
}
