package explore

import (
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/harness/measure"
	"github.com/kreactor/kreactor/harness/sim"
)

// Each detector is run on a hand-made history that has its anomaly (it must
// be found, with its evidence) and on the same history repaired (it must
// not be).

const ms_ = time.Millisecond // short for the hand-made times

func poll(member string, end time.Duration, epoch EpochKey, recs ...Rec) Op {
	return Op{Member: member, Kind: OpPoll, Start: end - 10*ms_, End: end, Epoch: epoch, Records: recs}
}

func recs(topic string, p int32, offs ...int64) []Rec {
	out := make([]Rec, len(offs))
	for i, o := range offs {
		out[i] = Rec{topic, p, o}
	}
	return out
}

func names(an []Anomaly) []string {
	var out []string
	for _, a := range an {
		out = append(out, a.Name)
	}
	return out
}

func expectOnly(t *testing.T, an []Anomaly, name string, evidence string) {
	t.Helper()
	if len(an) == 0 {
		t.Fatalf("want %s, found nothing", name)
	}
	for _, a := range an {
		if a.Name != name {
			t.Fatalf("want only %s, got %v", name, names(an))
		}
		if !strings.Contains(a.Evidence, evidence) {
			t.Fatalf("%s evidence %q lacks %q", name, a.Evidence, evidence)
		}
	}
}

func expectNone(t *testing.T, an []Anomaly) {
	t.Helper()
	if len(an) != 0 {
		t.Fatalf("want no anomaly, got %v", an)
	}
}

func TestCheckLost(t *testing.T) {
	e := EpochKey{1, 1}
	tr := &Trace{Bubble: true, History: &sim.History{Committed: []sim.Committed{{Group: Group, Topic: "t0", Partition: 0, Offset: 4, At: time.Second}}},
		Ops: []Op{poll("c1", 100*ms_, e, recs("t0", 0, 0, 1)...), poll("c2", 200*ms_, e, recs("t0", 0, 3)...)}}
	expectOnly(t, CheckLost(tr), AnomalyLost, "t0[0] committed at 4")
	tr.Ops = append(tr.Ops, poll("c2", 300*ms_, e, recs("t0", 0, 2)...))
	expectNone(t, CheckLost(tr))
}

func TestCheckOrder(t *testing.T) {
	e1, e2 := EpochKey{1, 3}, EpochKey{2, 5}
	cases := []struct {
		name, want, evidence string
		ops                  []Op
	}{
		{"duplicate in one epoch", AnomalyDuplicate, "offset 1 handed again",
			[]Op{poll("c1", 10*ms_, e1, recs("t0", 0, 0, 1)...), poll("c1", 20*ms_, e1, recs("t0", 0, 1, 2)...)}},
		{"nonmonotonic", AnomalyNonmonotonic, "offset 3 after 5",
			[]Op{poll("c1", 10*ms_, e1, recs("t0", 0, 4, 5, 3)...)}},
		{"skipped", AnomalySkipped, "(2 skipped)",
			[]Op{poll("c1", 10*ms_, e1, recs("t0", 0, 0, 1)...), poll("c1", 20*ms_, e1, recs("t0", 0, 4)...)}},
		{"redelivery after a new epoch", "",
			"", []Op{poll("c1", 10*ms_, e1, recs("t0", 0, 0, 1)...), poll("c1", 20*ms_, e2, recs("t0", 0, 0, 1, 2)...)}},
		{"two members, one partition each time", "",
			"", []Op{poll("c1", 10*ms_, e1, recs("t0", 0, 0, 1)...), poll("c2", 20*ms_, e1, recs("t0", 0, 1, 2)...)}},
	}
	// A rejoin the application did not see (the same assignment before
	// and after): the records after it may repeat what came before.
	rejoined := &Trace{MemberIDs: map[string]string{"m1": "c1"}, Heartbeats: []Heartbeat{{At: 5 * ms_, MemberID: "m1"}, {At: 15 * ms_, MemberID: "m1"}},
		Ops: []Op{poll("c1", 10*ms_, e1, recs("t0", 0, 0, 1)...), poll("c1", 20*ms_, e1, recs("t0", 0, 0, 1, 2)...)}}
	expectNone(t, CheckOrder(rejoined))
	rejoined.Heartbeats[1].Epoch = 7 // an ordinary heartbeat: no join
	expectOnly(t, CheckOrder(rejoined), AnomalyDuplicate, "handed again")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			an := CheckOrder(&Trace{Ops: c.ops})
			if c.want == "" {
				expectNone(t, an)
				return
			}
			expectOnly(t, an, c.want, c.evidence)
		})
	}
}

func TestCheckCommitPastProcessed(t *testing.T) {
	e := EpochKey{1, 1}
	tr := &Trace{Bubble: true, History: &sim.History{CommitRequests: []sim.CommitRequest{
		{At: 150 * ms_, Group: Group, MemberID: "m1", Topic: "t0", Partition: 0, Offset: 2},
		{At: 150 * ms_, Group: Group, MemberID: "m1", Topic: "t0", Partition: 1, Offset: 0},
	}}, Ops: []Op{poll("c1", 100*ms_, e, recs("t0", 0, 0)...), poll("c1", 200*ms_, e, recs("t0", 0, 1)...)}}
	expectOnly(t, CheckCommitPastProcessed(tr), AnomalyCommitPast, "t0[0]=2")
	tr.History.CommitRequests[0].At = 200 * ms_ // the same instant as the Poll's return: allowed
	expectNone(t, CheckCommitPastProcessed(tr))
}

func TestCheckCommitAfterLeave(t *testing.T) {
	tr := &Trace{History: &sim.History{CommitRequests: []sim.CommitRequest{{At: 300 * ms_, Group: Group, MemberID: "m1", Epoch: 4, Topic: "t0", Offset: 1}}},
		Heartbeats: []Heartbeat{{At: 100 * ms_, MemberID: "m1", Epoch: 4}, {At: 200 * ms_, MemberID: "m1", Epoch: -1}}}
	expectOnly(t, CheckCommitAfterLeave(tr), AnomalyCommitAfterLeft, "after its leave heartbeat (epoch -1) at +200ms")
	tr.Heartbeats = append(tr.Heartbeats, Heartbeat{At: 250 * ms_, MemberID: "m1", Epoch: 0}) // rejoined
	expectNone(t, CheckCommitAfterLeave(tr))
}

func TestCheckCallbacks(t *testing.T) {
	base := []Op{
		{Member: "c1", Kind: OpCommitAsync, ID: 1, Start: 10 * ms_},
		{Member: "c1", Kind: OpCommitAsync, ID: 2, Start: 20 * ms_},
		{Member: "c1", Kind: OpCallback, ID: 1, Start: 30 * ms_},
	}
	twice := append(append([]Op{}, base...), Op{Member: "c1", Kind: OpCallback, ID: 2, Start: 40 * ms_}, Op{Member: "c1", Kind: OpCallback, ID: 2, Start: 50 * ms_})
	expectOnly(t, CheckCallbacks(&Trace{Ops: twice}), AnomalyCallbackTwice, "CommitAsync #2")
	never := append(append([]Op{}, base...), Op{Member: "c1", Kind: OpClose, Start: 60 * ms_, End: 70 * ms_})
	expectOnly(t, CheckCallbacks(&Trace{Ops: never}), AnomalyCallbackNever, "CommitAsync #2")
	ok := append(append([]Op{}, base...), Op{Member: "c1", Kind: OpCallback, ID: 2, Start: 40 * ms_}, Op{Member: "c1", Kind: OpClose, Start: 60 * ms_, End: 70 * ms_})
	expectNone(t, CheckCallbacks(&Trace{Ops: ok}))
}

func TestCheckClose(t *testing.T) {
	late := &Trace{Bubble: true, Ops: []Op{{Member: "c1", Kind: OpClose, Start: time.Second, End: time.Second + 600*ms_, Timeout: 500 * ms_}}}
	expectOnly(t, CheckClose(late), AnomalyClosePast, "500ms deadline returned after 600ms")
	late.Ops[0].End = time.Second + 540*ms_ // within the tolerance
	expectNone(t, CheckClose(late))
	// A process subject: the round trip adds the driver's exit; the
	// client's own time is what the deadline bounds.
	proc := &Trace{Subject: "java", Ops: []Op{{Member: "c1", Kind: OpClose, Start: time.Second, End: time.Second + 1900*ms_, Inside: 1400 * ms_, Timeout: 500 * ms_}}}
	expectNone(t, CheckClose(proc))
	proc.Ops[0].Inside = 1600 * ms_
	expectOnly(t, CheckClose(proc), AnomalyClosePast, "500ms deadline returned after 1.6s")
}

func TestCheckRetries(t *testing.T) {
	retry := measure.RetrySchedule{Initial: 100 * ms_, Max: time.Second}
	window := FaultWindow{Fault: Fault{Kind: FaultCoordinatorDown}, From: time.Second, To: 3 * time.Second}
	allowed := retry.MaxAttemptsIn(2*time.Second) + RetryAllowance
	reqs := func(n int) []sim.Request {
		var out []sim.Request
		for i := range n {
			out = append(out, sim.Request{At: time.Second + time.Duration(i)*time.Millisecond, Key: kmsg.FindCoordinator, ClientID: "c1"})
		}
		return out
	}
	tr := &Trace{Retry: retry, Faults: []FaultWindow{window}, History: &sim.History{Requests: reqs(allowed + 1)}, Ops: []Op{{Member: "c1", Kind: OpOther}}}
	expectOnly(t, CheckRetries(tr), AnomalyRetryStorm, "FindCoordinator requests during the coordinator-unavailable fault")
	tr.History.Requests = reqs(allowed)
	expectNone(t, CheckRetries(tr))
	tr.Ops[0].Member = "c2" // c1 is not a member: the harness's producer, say
	tr.History.Requests = reqs(allowed + 1)
	expectNone(t, CheckRetries(tr))
	tr.Ops[0].Member = "c1"
	// A non-retriable error is not bounded by the schedule.
	tr.Faults = []FaultWindow{{Fault: Fault{Kind: FaultError, Key: int16(kmsg.FindCoordinator), Code: kerr.GroupAuthorizationFailed.Code, Count: -1}, From: time.Second, To: 3 * time.Second}}
	tr.History.Requests = reqs(allowed + 10)
	expectNone(t, CheckRetries(tr))
	tr.Faults[0].Code = kerr.CoordinatorLoadInProgress.Code
	expectOnly(t, CheckRetries(tr), AnomalyRetryStorm, "during the error fault")
}

func TestCheckSpin(t *testing.T) {
	tr := &Trace{Samples: []Sample{{At: 100 * ms_, Member: "c1", Steps: 10}, {At: 200 * ms_, Member: "c1", Steps: 40}, {At: 300 * ms_, Member: "c1", Steps: 40 + SpinSteps + 1, Spurious: 900}}}
	expectOnly(t, CheckSpin(tr), AnomalySpin, "spurious")
	tr.Samples[2].Steps = 40 + SpinSteps
	expectNone(t, CheckSpin(tr))
}

func TestCheckLeaks(t *testing.T) {
	expectOnly(t, CheckLeaks(&Trace{Leaked: []string{"goroutine 7 [chan receive]:\ngithub.com/kreactor/kreactor/reactor.(*Loop).run"}}), AnomalyLeak, "reactor.(*Loop).run")
	expectNone(t, CheckLeaks(&Trace{}))
}

func TestCheckShareAcks(t *testing.T) {
	r := Rec{"t0", 0, 5}
	handed := Op{Member: "c1", Kind: OpPoll, End: 100 * ms_, Records: []Rec{r}}
	accepted := Op{Member: "c1", Kind: OpAck, AckType: 1, Start: 100 * ms_, End: 100 * ms_, Records: []Rec{r}}
	commit := Op{Member: "c1", Kind: OpCommitSync, Start: 200 * ms_, End: 300 * ms_}
	ack := func(at time.Duration) Ack { return Ack{At: at, Key: int16(kmsg.ShareAcknowledge), Rec: r, Type: 1} }

	twice := &Trace{Ops: []Op{handed, accepted, commit}, Acks: []Ack{ack(250 * ms_), ack(260 * ms_)}}
	expectOnly(t, CheckShareAcks(twice), AnomalyAckTwice, "accepted 2 times at the broker")
	lost := &Trace{Ops: []Op{handed, accepted, commit}, Acks: []Ack{ack(400 * ms_)}}
	expectOnly(t, CheckShareAcks(lost), AnomalyAckLost, "no broker had read its acknowledgement")
	reported := Op{Member: "c1", Kind: OpAckResult, Start: 250 * ms_, End: 250 * ms_, Records: []Rec{r}, Err: "NOT_LEADER_OR_FOLLOWER"}
	expectNone(t, CheckShareAcks(&Trace{Ops: []Op{handed, accepted, reported, commit}, Acks: []Ack{ack(400 * ms_)}}))
	failed := commit
	failed.Failed = []Rec{{Topic: "t0", Partition: 0, Offset: -1}}
	expectNone(t, CheckShareAcks(&Trace{Ops: []Op{handed, accepted, failed}, Acks: []Ack{ack(400 * ms_)}}))
	expectNone(t, CheckShareAcks(&Trace{Ops: []Op{handed, accepted, commit}, Acks: []Ack{ack(250 * ms_)}}))
	other := ack(250 * ms_)
	other.Rec.Offset = 6 // never handed
	expectOnly(t, CheckShareAcks(&Trace{Ops: []Op{handed, accepted, commit}, Acks: []Ack{ack(250 * ms_), other}}), AnomalyAckUndelivered, "t0[0]@6 accepted at the broker")
}

// TestCheckAllOnGoodHistory: a history with every kind of item and no
// anomaly passes Check as a whole.
func TestCheckAllOnGoodHistory(t *testing.T) {
	e := EpochKey{1, 1}
	tr := &Trace{Bubble: true, Retry: measure.RetrySchedule{Initial: 100 * ms_, Max: time.Second},
		History: &sim.History{
			CommitRequests: []sim.CommitRequest{{At: 150 * ms_, Group: Group, MemberID: "m1", Epoch: 1, Topic: "t0", Offset: 3}},
			Committed:      []sim.Committed{{Group: Group, Topic: "t0", Offset: 3, At: 150 * ms_}},
		},
		Heartbeats: []Heartbeat{{At: 10 * ms_, MemberID: "m1", Epoch: 0}, {At: 400 * ms_, MemberID: "m1", Epoch: -1}},
		Ops: []Op{
			poll("c1", 100*ms_, e, recs("t0", 0, 0, 1, 2)...),
			{Member: "c1", Kind: OpCommitAsync, ID: 1, Start: 120 * ms_},
			{Member: "c1", Kind: OpCallback, ID: 1, Start: 200 * ms_},
			{Member: "c1", Kind: OpClose, Start: 300 * ms_, End: 400 * ms_, Timeout: time.Second},
		}}
	expectNone(t, Check(tr))
}

func TestCheckPanics(t *testing.T) {
	expectOnly(t, CheckPanics(&Trace{Ops: []Op{{Member: "c1", Kind: OpPanic, Err: "runtime error: nil map"}}}), AnomalyPanic, "nil map")
	expectNone(t, CheckPanics(&Trace{Ops: []Op{{Member: "c1", Kind: OpOther, Err: "an error"}}}))
}
