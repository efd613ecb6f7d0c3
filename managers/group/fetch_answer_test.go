package group_test

import (
	"testing"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/managers/internal/testrig"
	"github.com/kreactor/kreactor/reactor"
)

// repoller calls Tx.Repoll when armed, once: every manager is polled again
// in the same step.
type repoller struct{ armed bool }

func (*repoller) Name() string { return "repoller" }
func (p *repoller) Poll(tx *reactor.Tx, _ group.View) reactor.Result {
	if p.armed {
		p.armed = false
		tx.Repoll()
	}
	return reactor.Idle("nothing")
}

// With SendAfterAnswer (the reactor consumer), a step whose Poll took
// records sends no Fetch, also when the step polls the fetch manager again
// (Tx.Repoll): the manager awaits the step's publication, so the decision
// wakes at once, and the Fetch goes in the next step. Without it, the
// Fetch goes in the step that took the records.
func TestFetchFollowsPollAnswer(t *testing.T) {
	for _, after := range []bool{true, false} {
		r := newRig(t)
		r.assigned = []managers.TopicPartition{tp0}
		f := newFetch(r)
		if after {
			f.SendAfterAnswer()
		}
		rp := &repoller{}
		r.start(f, rp)
		r.Step()
		r.Do("position", func(*reactor.Tx) {
			for _, n := range f.NeedingPosition() {
				f.SetPosition(n.TP, managers.Position{Offset: 10, LeaderEpoch: -1}, n.Gen)
			}
		})
		r.Answer(r.Request(f), sessionAnswer(7, 0, map[int32][2]int64{0: {10, 3}}), nil)
		r.Do("poll", func(*reactor.Tx) { f.Take(1000) })
		rp.armed = true
		st := r.Step()
		if st.Rounds < 2 {
			t.Fatalf("SendAfterAnswer %v: the step polled %d rounds, want the repoll's second", after, st.Rounds)
		}
		sent := r.Sent(st, f)
		res := r.Result(st, f)
		if !after {
			if len(sent) != 1 {
				t.Fatalf("without SendAfterAnswer: %d Fetches in the step that took the records, want 1", len(sent))
			}
			continue
		}
		if len(sent) != 0 || res.Kind != reactor.KindAwait || !res.Inputs.Has(reactor.InputPublication) {
			t.Fatalf("SendAfterAnswer: %d Fetches and %s in the step that took the records, want none and Await(publication)", len(sent), testrig.Describe(res, r.Now))
		}
		if !st.Decision.Wake.Equal(st.Decision.At) {
			t.Fatalf("SendAfterAnswer: the decision wakes at %v, want at once (%v):\n%s", st.Decision.Wake, st.Decision.At, st.Decision.Diagnose())
		}
		if got := named(t, r.Request(f)); got != "id=7 epoch=1 [0@13] forget []" {
			t.Fatalf("SendAfterAnswer: the next step's Fetch %s, want t/0 at 13", got)
		}
	}
}
