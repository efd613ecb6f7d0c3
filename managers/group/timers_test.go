package group_test

import (
	"testing"
	"time"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/internal/testrig"
	"github.com/kreactor/kreactor/reactor"
)

// Subscribe only records the subscription: no heartbeat goes until the
// application polls (Java's AbstractMembershipManager.onConsumerPoll), and
// the first Poll sends the join (member epoch 0).
func TestSubscribeJoinsAtPoll(t *testing.T) {
	r, m := memberRig(t)
	r.Do("subscribe", func(*reactor.Tx) { m.Subscribe([]string{topic}) })
	for range 3 {
		st := r.Step()
		if reqs := r.Sent(st, m); len(reqs) != 0 {
			t.Fatalf("membership sent %d heartbeat(s) after Subscribe with no Poll, want none:\n%s", len(reqs), st.Decision.Diagnose())
		}
		if res := r.Result(st, m); res.Kind != reactor.KindIdle {
			t.Fatalf("membership %s before the first Poll, want Idle", testrig.Describe(res, r.Now))
		}
		r.Elapse(time.Second)
	}
	if m.State() != managers.MemberUnsubscribed || m.InGroup() {
		t.Fatalf("state %s before the first Poll, want unsubscribed and not in the group", m.State())
	}
	r.Do("poll", func(tx *reactor.Tx) { m.OnPoll(tx.Now) })
	if join := r.Request(m); hbEpoch(join) != 0 {
		t.Fatalf("first heartbeat after Poll with epoch %d, want the join (0)", hbEpoch(join))
	}
}

// The heartbeat interval runs from one heartbeat's send to the next
// (KAFKA-16528; Java's HeartbeatRequestState.onSendAttempt): an answer
// arriving 400 ms after the send leaves the next heartbeat due one interval
// after the send, not after the answer. An answer with a new interval
// restarts the timer from the answer (updateHeartbeatIntervalMs).
func TestHeartbeatIntervalSendToSend(t *testing.T) {
	r, m := stableMember(t)
	r.Elapse(interval)
	hb := r.Request(m)
	sentAt := r.Now
	r.Elapse(400 * ms) // a slow answer
	r.Answer(hb, hbAnswer(0, 1, false), nil)
	res := r.Result(r.Step(), m)
	if want := sentAt.Add(interval); res.Kind != reactor.KindRetryAt || !res.At.Equal(want) {
		t.Fatalf("membership %s after an answer 400ms late, want RetryAt(send + %s = +%s)", testrig.Describe(res, r.Now), interval, want.Sub(r.Now))
	}
	r.Now = sentAt.Add(interval)
	hb = r.Request(m)
	r.Elapse(100 * ms)
	longer := hbAnswer(0, 1, false)
	longer.HeartbeatIntervalMillis = int32(2 * interval / ms)
	r.Answer(hb, longer, nil)
	res = r.Result(r.Step(), m)
	if want := r.Now.Add(2 * interval); res.Kind != reactor.KindRetryAt || !res.At.Equal(want) {
		t.Fatalf("membership %s after a new interval of %s, want RetryAt(answer + %s)", testrig.Describe(res, r.Now), 2*interval, 2*interval)
	}
}
