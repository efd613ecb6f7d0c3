package explore

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/harness/sim"
)

// The group detectors, each on a hand-made history that has its anomaly and
// on the same history repaired.

func req(client string, key kmsg.Key, at time.Duration) sim.Request {
	return sim.Request{At: at, Key: key, ClientID: client}
}

func assigned(o Op, tps ...Rec) Op {
	for _, r := range tps {
		o.Assigned = append(o.Assigned, Rec{r.Topic, r.Partition, -1})
	}
	return o
}

func TestCheckCrossDuplicates(t *testing.T) {
	e := EpochKey{1, 0}
	// c1 delivers t0[0]@0..3 and commits 4; the partition moves to c2,
	// whose OffsetFetch (+300ms) comes after the commit (+150ms): c2 must
	// start at 4, and delivering 2 again is a duplicate no rebalance allows.
	bad := &Trace{
		Commits: []CommitPoint{{At: 150 * ms_, Topic: "t0", Partition: 0, Offset: 4}},
		History: &sim.History{Requests: []sim.Request{req("c2", kmsg.OffsetFetch, 300*ms_)}},
		Ops:     []Op{poll("c1", 100*ms_, e, recs("t0", 0, 0, 1, 2, 3)...), poll("c2", 400*ms_, e, recs("t0", 0, 2, 3, 4)...)},
	}
	expectOnly(t, CheckCrossDuplicates(bad), AnomalyCrossDuplicate, "t0[0]@2 delivered by c1 (+100ms) and again by c2 (+400ms)")

	// Repaired: c2 starts at the committed offset.
	good := *bad
	good.Ops = []Op{poll("c1", 100*ms_, e, recs("t0", 0, 0, 1, 2, 3)...), poll("c2", 400*ms_, e, recs("t0", 0, 4, 5)...)}
	expectNone(t, CheckCrossDuplicates(&good))
	// Allowed: c1 committed only 2, so 2 and 3 may come again.
	allowed := *bad
	allowed.Commits = []CommitPoint{{At: 150 * ms_, Topic: "t0", Partition: 0, Offset: 2}}
	expectNone(t, CheckCrossDuplicates(&allowed))
	// Not judged: the commit was accepted after c2 fetched its position.
	late := *bad
	late.Commits = []CommitPoint{{At: 350 * ms_, Topic: "t0", Partition: 0, Offset: 4}}
	expectNone(t, CheckCrossDuplicates(&late))
}

func TestCheckCommitBackwards(t *testing.T) {
	h := &sim.History{CommitRequests: []sim.CommitRequest{
		{At: 90 * ms_, Group: Group, MemberID: "m1", Epoch: 3, Topic: "t0", Offset: 10},
		{At: 190 * ms_, Group: Group, MemberID: "m2", Epoch: 5, Topic: "t0", Offset: 6},
	}}
	bad := &Trace{History: h, MemberIDs: map[string]string{"m1": "c1", "m2": "c2"}, Commits: []CommitPoint{
		{At: 100 * ms_, Topic: "t0", Offset: 10}, {At: 200 * ms_, Topic: "t0", Offset: 6},
	}}
	expectOnly(t, CheckCommitBackwards(bad), AnomalyCommitBackward, "t0[0] committed offset went from 10 (+100ms, by c1 (epoch 3, read +90ms)) back to 6 (+200ms, by c2")
	good := *bad
	good.Commits = []CommitPoint{{At: 100 * ms_, Topic: "t0", Offset: 6}, {At: 200 * ms_, Topic: "t0", Offset: 10}, {At: 300 * ms_, Topic: "t0", Offset: 10}}
	expectNone(t, CheckCommitBackwards(&good))
	other := *bad // another partition's lower offset is no step back
	other.Commits = []CommitPoint{{At: 100 * ms_, Topic: "t0", Offset: 10}, {At: 200 * ms_, Topic: "t0", Partition: 1, Offset: 6}}
	expectNone(t, CheckCommitBackwards(&other))
}

func TestCheckKeptAfterRevocation(t *testing.T) {
	p0, p1 := Rec{"t0", 0, -1}, Rec{"t0", 1, -1}
	e := EpochKey{1, 0}
	// c1 reports owning t0[0] and t0[1] (+100ms), then only t0[1] (+300ms:
	// t0[0]'s revocation acknowledged); its Poll of +400..+500ms returns a
	// record of t0[0].
	hbs := []Heartbeat{
		{At: 100 * ms_, MemberID: "m1", Epoch: 1, OwnedSent: true, Owned: []Rec{p0, p1}},
		{At: 200 * ms_, MemberID: "m1", Epoch: 1}, // owned partitions unchanged: not sent
		{At: 300 * ms_, MemberID: "m1", Epoch: 2, OwnedSent: true, Owned: []Rec{p1}},
		{At: 600 * ms_, MemberID: "m1", Epoch: 2, OwnedSent: true, Owned: []Rec{p1}}, // still without t0[0] after the Poll
	}
	late := Op{Member: "c1", Kind: OpPoll, Start: 400 * ms_, End: 500 * ms_, Epoch: e, Records: recs("t0", 0, 7)}
	bad := &Trace{History: &sim.History{}, MemberIDs: map[string]string{"m1": "c1"}, Heartbeats: hbs, Ops: []Op{late}}
	expectOnly(t, CheckKeptAfterRevocation(bad), AnomalyKeptRevoked, "its Poll of +400ms..+500ms returned records of it")
	listed := &Trace{History: &sim.History{}, MemberIDs: bad.MemberIDs, Heartbeats: hbs,
		Ops: []Op{assigned(Op{Member: "c1", Kind: OpPoll, Start: 400 * ms_, End: 500 * ms_, Epoch: e}, p0, p1)}}
	expectOnly(t, CheckKeptAfterRevocation(listed), AnomalyKeptRevoked, "left it in the assignment the application read")

	// Repaired: the Poll returns only the partition it still owns.
	good := &Trace{History: &sim.History{}, MemberIDs: bad.MemberIDs, Heartbeats: hbs,
		Ops: []Op{{Member: "c1", Kind: OpPoll, Start: 400 * ms_, End: 500 * ms_, Epoch: e, Records: recs("t0", 1, 7)}}}
	expectNone(t, CheckKeptAfterRevocation(good))
	// Not judged: the Poll started before the acknowledgement was read.
	early := &Trace{History: &sim.History{}, MemberIDs: bad.MemberIDs, Heartbeats: hbs,
		Ops: []Op{{Member: "c1", Kind: OpPoll, Start: 250 * ms_, End: 500 * ms_, Epoch: e, Records: recs("t0", 0, 7)}}}
	expectNone(t, CheckKeptAfterRevocation(early))
	// Allowed: the partition came back (the next report, after the Poll
	// ended, owns it again: the client listed it before reporting it).
	back := &Trace{History: &sim.History{}, MemberIDs: bad.MemberIDs, Ops: []Op{late},
		Heartbeats: append(append([]Heartbeat{}, hbs[:3]...), Heartbeat{At: 700 * ms_, MemberID: "m1", Epoch: 3, OwnedSent: true, Owned: []Rec{p0, p1}})}
	expectNone(t, CheckKeptAfterRevocation(back))
	// Not judged: no report after the Poll.
	unknown := &Trace{History: &sim.History{}, MemberIDs: bad.MemberIDs, Ops: []Op{late}, Heartbeats: hbs[:3]}
	expectNone(t, CheckKeptAfterRevocation(unknown))
}

func TestCheckAckForeign(t *testing.T) {
	r := Rec{"t0", 0, 5}
	ops := []Op{
		{Member: "c1", Kind: OpPoll, Start: 90 * ms_, End: 100 * ms_, Records: []Rec{r}},
		{Member: "c1", Kind: OpAck, AckType: 1, Start: 100 * ms_, End: 100 * ms_, Records: []Rec{r}},
		{Member: "c2", Kind: OpPoll, Start: 2900 * ms_, End: 3000 * ms_, Records: []Rec{r}}, // c1's lock expired
		{Member: "c1", Kind: OpAckResult, Start: 3200 * ms_, End: 3200 * ms_, Records: []Rec{r}},
	}
	acks := []Ack{{At: 3100 * ms_, Key: int16(kmsg.ShareFetch), MemberID: "m1", Rec: r, Type: 1}}
	bad := &Trace{Ops: ops, Acks: acks, MemberIDs: map[string]string{"m1": "c1", "m2": "c2"}}
	expectOnly(t, CheckAckForeign(bad), AnomalyAckForeign, "c2 was handed it at +3s; a broker read the accept at +3.1s")

	// Repaired: the callback reports the accept failed.
	good := &Trace{Ops: append([]Op{}, ops...), Acks: acks, MemberIDs: bad.MemberIDs}
	good.Ops[3].Err = "INVALID_RECORD_STATE"
	expectNone(t, CheckAckForeign(good))
	// Allowed: the accept was read before c2 had the record.
	early := &Trace{Ops: ops, Acks: []Ack{{At: 150 * ms_, MemberID: "m1", Rec: r, Type: 1}}, MemberIDs: bad.MemberIDs}
	expectNone(t, CheckAckForeign(early))
	// Allowed: c1 released it (a release is no accept).
	released := &Trace{Ops: append([]Op{}, ops...), Acks: acks, MemberIDs: bad.MemberIDs}
	released.Ops[1].AckType = 2
	expectNone(t, CheckAckForeign(released))
}
