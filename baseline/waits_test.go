package baseline

import (
	"testing"
	"time"

	"github.com/kreactor/kreactor/reactor"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// plain is a manager without a local timer; timed has one (heartbeat,
// auto-commit, discovery backoff) at at, running or not.
type plain struct{ name string }

func (p plain) Name() string                              { return p.name }
func (p plain) Poll(*reactor.Tx, struct{}) reactor.Result { return reactor.Idle("") }
func (p timed) Name() string                              { return p.name }
func (p timed) Poll(*reactor.Tx, struct{}) reactor.Result { return reactor.Idle("") }
func (p timed) LocalTimer() (time.Time, bool)             { return p.at, p.running }

type timed struct {
	name    string
	at      time.Time
	running bool
}

func result(kind reactor.Kind, at time.Time) reactor.ManagerResult {
	return reactor.ManagerResult{Kind: kind, At: at}
}

// collapse is Java's timeUntilNextPoll: a running local timer wins whatever
// the result says, including "progress needs an input" (the collapsed
// answer of KAFKA-20253 and KAFKA-21031); otherwise a RetryAt time;
// otherwise "forever".
func TestCollapse(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    any
		r    reactor.ManagerResult
		want time.Duration
	}{
		{"running timer beats an Await", timed{at: t0.Add(250 * time.Millisecond), running: true}, result(reactor.KindAwait, time.Time{}), 250 * time.Millisecond},
		{"a timer already due collapses to zero: the busy loop", timed{at: t0.Add(-time.Second), running: true}, result(reactor.KindAwait, time.Time{}), 0},
		{"running timer beats a later RetryAt", timed{at: t0.Add(time.Second), running: true}, result(reactor.KindRetryAt, t0.Add(3*time.Second)), time.Second},
		{"stopped timer: the RetryAt time", timed{running: false}, result(reactor.KindRetryAt, t0.Add(80*time.Millisecond)), 80 * time.Millisecond},
		{"no timer: the RetryAt time", plain{}, result(reactor.KindRetryAt, t0.Add(80*time.Millisecond)), 80 * time.Millisecond},
		{"a RetryAt in the past is zero", plain{}, result(reactor.KindRetryAt, t0.Add(-time.Millisecond)), 0},
		{"an Await with a deadline is forever: the deadline is lost", plain{}, result(reactor.KindAwait, t0.Add(time.Second)), Forever},
		{"Ready is forever", plain{}, result(reactor.KindReady, time.Time{}), Forever},
		{"Idle is forever", plain{}, result(reactor.KindIdle, time.Time{}), Forever},
	} {
		if got := collapse(tc.m, tc.r, t0); got != tc.want {
			t.Errorf("%s: collapse = %s, want %s", tc.name, got, tc.want)
		}
	}
}

// The network wait is the minimum collapsed time capped at
// MAX_POLL_TIMEOUT_MS; maximumTimeToWait only counts managers with a local
// timer (spurious wakes are counted by the shared driver, not here).
func TestIterationWaits(t *testing.T) {
	ms := []reactor.Manager[struct{}]{
		plain{"metadata"},
		timed{name: "membership", at: t0.Add(3 * time.Second), running: true},
		plain{"commit"},
	}
	for _, tc := range []struct {
		name    string
		results []reactor.ManagerResult
		want    waits
	}{
		{"nothing to do: MAX_POLL_TIMEOUT, the heartbeat for the application, no deadline",
			[]reactor.ManagerResult{result(reactor.KindIdle, time.Time{}), result(reactor.KindAwait, time.Time{}), result(reactor.KindIdle, time.Time{})},
			waits{poll: 3 * time.Second, maxWait: 3 * time.Second}},
		{"a backoff sooner than the heartbeat sets the network wait, not the application's",
			[]reactor.ManagerResult{result(reactor.KindRetryAt, t0.Add(100*time.Millisecond)), result(reactor.KindRetryAt, t0.Add(3*time.Second)), result(reactor.KindIdle, time.Time{})},
			waits{poll: 100 * time.Millisecond, maxWait: 3 * time.Second}},
		{"an Await deadline is a real deadline but collapses to forever",
			[]reactor.ManagerResult{result(reactor.KindIdle, time.Time{}), result(reactor.KindAwait, time.Time{}), result(reactor.KindAwait, t0.Add(time.Second))},
			waits{poll: 3 * time.Second, maxWait: 3 * time.Second}},
		{"a past deadline is not the next one",
			[]reactor.ManagerResult{result(reactor.KindRetryAt, t0.Add(-time.Second)), result(reactor.KindAwait, time.Time{}), result(reactor.KindIdle, time.Time{})},
			waits{poll: 0, maxWait: 3 * time.Second}},
	} {
		if got := iterationWaits(t0, ms, tc.results); got != tc.want {
			t.Errorf("%s: waits = %+v, want %+v", tc.name, got, tc.want)
		}
	}
	// No local timer anywhere and nothing to retry: MAX_POLL_TIMEOUT and a
	// maximumTimeToWait of forever (Long.MAX_VALUE).
	got := iterationWaits(t0, []reactor.Manager[struct{}]{plain{"a"}}, []reactor.ManagerResult{result(reactor.KindIdle, time.Time{})})
	if got.poll != MaxPollTimeout || got.maxWait != Forever {
		t.Errorf("idle without timers: waits = %+v, want poll %s, maxWait forever", got, MaxPollTimeout)
	}
}
