package group_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/managers/internal/testrig"
	"github.com/kreactor/kreactor/reactor"
)

// hooksLog records what reconciliation asks of its hooks, and holds the
// completion each waits on.
type hooksLog struct {
	events []string
	done   func(*reactor.Tx)
}

func (h *hooksLog) hooks(commit bool) group.RebalanceHooks {
	return group.RebalanceHooks{
		Revoking: func(tps []managers.TopicPartition) { h.events = append(h.events, fmt.Sprint("revoking ", tps)) },
		Commit: func(tx *reactor.Tx, _ time.Time, done func(*reactor.Tx, error)) bool {
			if !commit {
				return false
			}
			h.events = append(h.events, "commit")
			h.done = func(tx *reactor.Tx) { done(tx, nil) }
			return true
		},
		Listener: func(tx *reactor.Tx, m group.ListenerMethod, tps []managers.TopicPartition, done func(*reactor.Tx)) bool {
			h.events = append(h.events, fmt.Sprint(m, " ", tps))
			h.done = done
			return true
		},
	}
}

// finish completes what reconciliation waits on.
func (h *hooksLog) finish(r *rig) {
	done := h.done
	h.done = nil
	r.Do("hook done", done)
}

func assignOf(epoch int32, ps ...int32) *kmsg.ConsumerGroupHeartbeatResponse {
	resp := hbAnswer(0, epoch, false)
	a := kmsg.NewConsumerGroupHeartbeatResponseAssignment()
	at := kmsg.NewConsumerGroupHeartbeatResponseAssignmentTopic()
	at.TopicID, at.Partitions = testrig.TopicID, ps
	a.Topics = append(a.Topics, at)
	resp.Assignment = &a
	return resp
}

func tps(ps ...int32) []managers.TopicPartition {
	var out []managers.TopicPartition
	for _, p := range ps {
		out = append(out, managers.TopicPartition{Topic: topic, Partition: p})
	}
	return out
}

// Reconciliation runs in Java's order: the commit before revocation, then
// onPartitionsRevoked (only with partitions revoked), then the assignment
// takes effect and onPartitionsAssigned runs (also with none added), and
// only then is the assignment acknowledged; the revoked partitions stop
// fetching when it starts.
func TestReconciliationOrder(t *testing.T) {
	r, m := memberRig(t)
	h := &hooksLog{}
	m.UseRebalanceHooks(h.hooks(true))
	r.Do("subscribe", func(tx *reactor.Tx) { m.Subscribe([]string{topic}); m.OnPoll(tx.Now) })
	r.Answer(r.Request(m), assignOf(1, 0, 1, 2), nil)
	r.Step()
	if want := []string{"commit"}; !slices.Equal(h.events, want) {
		t.Fatalf("events %v, want %v", h.events, want)
	}
	h.finish(r) // commit done
	if owned, _ := m.Owned(); !slices.Equal(owned, tps(0, 1, 2)) {
		t.Fatalf("owned %v before onPartitionsAssigned, want the new assignment", owned)
	}
	st := r.Step()
	if reqs := r.Sent(st, m); len(reqs) != 0 {
		t.Fatalf("%d heartbeats while onPartitionsAssigned runs, want none (the acknowledgement waits)", len(reqs))
	}
	h.finish(r) // onPartitionsAssigned returned
	ackReq := r.Request(m)
	ack := ackReq.Payload.(*managers.Call).Req.(*kmsg.ConsumerGroupHeartbeatRequest)
	if len(ack.Topics) != 1 || !slices.Equal(ack.Topics[0].Partitions, []int32{0, 1, 2}) {
		t.Fatalf("acknowledgement %+v, want partitions 0-2", ack.Topics)
	}
	r.Answer(ackReq, assignOf(1, 0, 1, 2), nil)
	h.events = nil

	r.Elapse(interval)
	r.Answer(r.Request(m), assignOf(2, 0), nil)
	r.Step()
	h.finish(r) // commit
	r.Step()
	h.finish(r) // onPartitionsRevoked
	r.Step()
	want := []string{"revoking [t/1 t/2]", "commit", "onPartitionsRevoked [t/1 t/2]", "onPartitionsAssigned []"}
	if !slices.Equal(h.events, want) {
		t.Fatalf("events %v, want %v", h.events, want)
	}
	h.finish(r)
	ack = r.Request(m).Payload.(*managers.Call).Req.(*kmsg.ConsumerGroupHeartbeatRequest)
	if len(ack.Topics) != 1 || !slices.Equal(ack.Topics[0].Partitions, []int32{0}) {
		t.Fatalf("acknowledgement %+v, want partition 0", ack.Topics)
	}
}

// A member fenced while it owns partitions owes onPartitionsLost for them
// (no revocation, no commit) and abandons a reconciliation under way.
func TestFencedOwesLost(t *testing.T) {
	r, m := memberRig(t)
	h := &hooksLog{}
	m.UseRebalanceHooks(h.hooks(false))
	r.Do("subscribe", func(tx *reactor.Tx) { m.Subscribe([]string{topic}); m.OnPoll(tx.Now) })
	r.Answer(r.Request(m), assignOf(1, 0, 1, 2), nil)
	r.Step()
	h.finish(r)
	r.Answer(r.Request(m), assignOf(1, 0, 1, 2), nil)
	h.events = nil
	r.Elapse(interval)
	r.Answer(r.Request(m), hbAnswer(110 /* FENCED_MEMBER_EPOCH */, 0, false), nil)
	r.Step()
	if want := []string{"onPartitionsLost [t/0 t/1 t/2]"}; !slices.Equal(h.events, want) {
		t.Fatalf("events %v, want %v", h.events, want)
	}
	if m.Reconciling() {
		t.Fatal("still reconciling after the fence")
	}
}
