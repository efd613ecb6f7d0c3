package reactor_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kreactor/kreactor/reactor"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newCore(t *testing.T, maxRounds int, ms ...reactor.Manager[view]) *reactor.Core[view] {
	t.Helper()
	c, err := reactor.NewCore(reactor.CoreConfig[view]{
		Managers:  ms,
		View:      func(now time.Time) view { return view{now} },
		Snapshot:  func(d *reactor.Decision) any { return d.Version },
		MaxRounds: maxRounds,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func idle(name string) *fakeManager {
	return &fakeManager{name: name, poll: func(*reactor.Tx) reactor.Result { return reactor.Idle("nothing") }}
}

// mustPanic runs fn and checks that it panics with a message containing
// want.
func mustPanic(t *testing.T, want string, fn func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Fatalf("no panic, want one containing %q", want)
		}
		if msg, _ := r.(string); !strings.Contains(msg, want) {
			t.Fatalf("panic %v, want one containing %q", r, want)
		}
	}()
	fn()
}

func TestCoreMisusePanicsNamingTheRule(t *testing.T) {
	c := newCore(t, 0, idle("m"))
	mustPanic(t, "Advance without a Step", c.Advance)
	mustPanic(t, "zero Observation", func() { c.Apply(t0, reactor.Observation{}) })
	c.Step(t0)
	mustPanic(t, "Step between Step and Advance of step 1", func() { c.Step(t0) })
	mustPanic(t, "Apply between Step and Advance", func() { c.Apply(t0, reactor.Event("e", func(*reactor.Tx) {})) })
	mustPanic(t, "Close between Step and Advance", func() { c.Close(t0) })
	c.Advance()
	c.Apply(t0, reactor.Event("stop", func(tx *reactor.Tx) { tx.Stop() }))
	st := c.Step(t0)
	if !st.Decision.Closed {
		t.Fatalf("decision after Tx.Stop is not Closed: %s", st.Decision.Diagnose())
	}
	c.Advance() // allowed after a closed step
	mustPanic(t, "Apply after the core stopped", func() { c.Apply(t0, reactor.Event("late", func(*reactor.Tx) {})) })
	mustPanic(t, "Step after the core stopped", func() { c.Step(t0) })
	mustPanic(t, "nil apply", func() { reactor.Event("e", nil) })
	mustPanic(t, "without OnComplete", func() { reactor.Completion(&reactor.Request{}, nil, nil) })
}

// Effects queued while applying and polling come back in order with the
// step whose decision includes their version, never before.
func TestCoreEffectsComeWithTheirStep(t *testing.T) {
	var order []string
	m := &fakeManager{name: "m", poll: func(tx *reactor.Tx) reactor.Result {
		tx.Effect(func() { order = append(order, "poll") })
		return reactor.Idle("nothing")
	}}
	c := newCore(t, 0, m)
	c.Apply(t0, reactor.Event("a", func(tx *reactor.Tx) { tx.Effect(func() { order = append(order, "a") }) }))
	c.Apply(t0, reactor.Event("b", func(tx *reactor.Tx) { tx.Effect(func() { order = append(order, "b") }) }))
	if len(order) != 0 {
		t.Fatalf("effects ran while applying: %v", order)
	}
	st := c.Step(t0)
	if st.Decision.Version != 2 || st.Decision.Applied != 2 || st.Snapshot != uint64(2) {
		t.Fatalf("decision %s applied %d snapshot %v, want version 2, 2 applied", st.Decision.Diagnose(), st.Decision.Applied, st.Snapshot)
	}
	st.RunEffects()
	if got := strings.Join(order, ","); got != "a,b,poll" {
		t.Fatalf("effects ran as %s, want a,b,poll", got)
	}
	c.Advance()
	if st := c.Step(t0); len(st.Effects) != 1 || st.Decision.Applied != 0 {
		t.Fatalf("second step: %d effects, %d applied; want the poll's 1 effect, 0 applied", len(st.Effects), st.Decision.Applied)
	}
}

// A completion is applied with the version its request was produced at
// (invariant 6), and the request carries its manager, version and time.
func TestCoreCompletionCarriesRequestVersion(t *testing.T) {
	var got *reactor.Tx
	sent := false
	m := &fakeManager{name: "fetch", poll: func(*reactor.Tx) reactor.Result {
		if sent {
			return reactor.Await(reactor.InputResponse, "in flight")
		}
		sent = true
		return reactor.Ready("fetch", &reactor.Request{Payload: 1, OnComplete: func(tx *reactor.Tx, resp any, err error) {
			c := *tx
			got = &c
		}})
	}}
	c := newCore(t, 0, m)
	c.Apply(t0, reactor.Event("subscribe", func(*reactor.Tx) {}))
	st := c.Step(t0)
	c.Advance()
	if len(st.Requests) != 1 {
		t.Fatalf("%d requests, want 1", len(st.Requests))
	}
	req := st.Requests[0]
	if req.Manager != "fetch" || req.Version != 1 || !req.Sent.Equal(t0) {
		t.Fatalf("request %+v, want manager fetch, version 1, sent at t0", req)
	}
	c.Apply(t0.Add(time.Second), reactor.Event("other", func(*reactor.Tx) {}))
	c.Apply(t0.Add(time.Second), reactor.Completion(req, "resp", nil))
	if got == nil || got.RequestVersion != 1 || got.Version != 3 || !got.Now.Equal(t0.Add(time.Second)) {
		t.Fatalf("completion tx %+v, want RequestVersion 1, Version 3, now t0+1s", got)
	}
}

// A Ready manager is polled again in the step until it is not (MaxRounds
// bounds it); with MaxRounds 1 each manager is polled once.
func TestCoreRounds(t *testing.T) {
	for _, tc := range []struct {
		maxRounds, wantPolls int
		wantKind             reactor.Kind
		wantRoundLimit       bool
	}{{0, 2, reactor.KindAwait, false}, {1, 1, reactor.KindReady, true}} {
		polls, sent := 0, false
		m := &fakeManager{name: "m", poll: func(*reactor.Tx) reactor.Result {
			polls++
			if sent {
				return reactor.Await(reactor.InputResponse, "in flight")
			}
			sent = true
			return reactor.Ready("send", &reactor.Request{OnComplete: func(*reactor.Tx, any, error) {}})
		}}
		c := newCore(t, tc.maxRounds, m)
		st := c.Step(t0)
		r, _ := st.Decision.Result("m")
		if polls != tc.wantPolls || r.Kind != tc.wantKind || r.Sent != 1 || st.RoundLimit != tc.wantRoundLimit {
			t.Fatalf("MaxRounds %d: %d polls, result %s sent %d, round limit %v; want %d polls, %s, sent 1, %v",
				tc.maxRounds, polls, r.Kind, r.Sent, st.RoundLimit, tc.wantPolls, tc.wantKind, tc.wantRoundLimit)
		}
		if tc.wantRoundLimit && !st.Decision.Wake.Equal(t0) {
			t.Fatalf("round limit: wake %s, want the step's now", st.Decision.Wake)
		}
	}
}

// Tx.Repoll polls every manager again in the same step.
func TestCoreRepoll(t *testing.T) {
	refresh := false
	a := &fakeManager{name: "a", poll: func(tx *reactor.Tx) reactor.Result {
		if !refresh {
			refresh = true
			tx.Repoll()
		}
		return reactor.Idle("")
	}}
	bPolls := 0
	b := &fakeManager{name: "b", poll: func(*reactor.Tx) reactor.Result { bPolls++; return reactor.Idle("") }}
	c := newCore(t, 0, a, b)
	c.Step(t0)
	if bPolls != 2 {
		t.Fatalf("b polled %d times after a's Repoll, want 2", bPolls)
	}
}

// The decision's Wake is the earliest future RetryAt time or Await
// deadline; a past one is counted and ignored; Ready without a request is
// counted; Awaiting is the union of the awaited inputs.
func TestCoreDecision(t *testing.T) {
	c := newCore(t, 0,
		&fakeManager{name: "retry", poll: func(*reactor.Tx) reactor.Result { return reactor.RetryAt(t0.Add(300*time.Millisecond), "backoff") }},
		&fakeManager{name: "await", poll: func(*reactor.Tx) reactor.Result {
			return reactor.Await(reactor.InputCoordinator, "coordinator").Until(t0.Add(200 * time.Millisecond))
		}},
		&fakeManager{name: "past", poll: func(*reactor.Tx) reactor.Result { return reactor.RetryAt(t0, "already due") }},
		&fakeManager{name: "bad", poll: func(*reactor.Tx) reactor.Result { return reactor.Ready("nothing") }},
		&fakeManager{name: "meta", poll: func(*reactor.Tx) reactor.Result { return reactor.Await(reactor.InputMetadata, "leader") }},
	)
	st := c.Step(t0)
	d := st.Decision
	if !d.Wake.Equal(t0.Add(200*time.Millisecond)) || d.Awaiting != reactor.InputCoordinator|reactor.InputMetadata {
		t.Fatalf("decision %s: want wake +200ms, awaiting coordinator|metadata", d.Diagnose())
	}
	if st.PastDeadline != 1 || st.ReadyWithoutRequest != 1 || st.RoundLimit {
		t.Fatalf("past %d, ready without request %d, round limit %v; want 1, 1, false", st.PastDeadline, st.ReadyWithoutRequest, st.RoundLimit)
	}
}

// Close ends the core without polling: a closed decision and a snapshot.
func TestCoreClose(t *testing.T) {
	polled := 0
	c := newCore(t, 0, &fakeManager{name: "m", poll: func(*reactor.Tx) reactor.Result { polled++; return reactor.Idle("") }})
	c.Apply(t0, reactor.Event("e", func(tx *reactor.Tx) { tx.Effect(func() {}) }))
	st := c.Close(t0)
	if polled != 0 || !st.Decision.Closed || st.Snapshot != uint64(1) || len(st.Effects) != 1 || st.Decision.Applied != 1 {
		t.Fatalf("close: polled %d, decision %s, snapshot %v, %d effects", polled, st.Decision.Diagnose(), st.Snapshot, len(st.Effects))
	}
	mustPanic(t, "Close after the core stopped", func() { c.Close(t0) })
}

func TestCoreConfigErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct {
		cfg   reactor.CoreConfig[view]
		field string
	}{
		{reactor.CoreConfig[view]{}, "View"},
		{reactor.CoreConfig[view]{View: func(time.Time) view { return view{} }, MaxRounds: -1}, "MaxRounds"},
		{reactor.CoreConfig[view]{View: func(time.Time) view { return view{} }, Managers: []reactor.Manager[view]{idle("x"), idle("x")}}, "Managers[1]"},
		{reactor.CoreConfig[view]{View: func(time.Time) view { return view{} }, Managers: []reactor.Manager[view]{nil}}, "Managers[0]"},
	} {
		_, err := reactor.NewCore(tc.cfg)
		var ce *reactor.ConfigError
		if !errors.As(err, &ce) || ce.Field != tc.field {
			t.Errorf("err = %v, want a ConfigError on %s", err, tc.field)
		}
	}
}

// EffectsAtOnce (the baseline model) runs an effect when it is queued,
// before any decision includes it; a Loop refuses it.
func TestCoreEffectsAtOnce(t *testing.T) {
	c, err := reactor.NewCore(reactor.CoreConfig[view]{View: func(now time.Time) view { return view{now} }, EffectsAtOnce: true})
	if err != nil {
		t.Fatal(err)
	}
	ran := false
	c.Apply(t0, reactor.Event("commit", func(tx *reactor.Tx) { tx.Effect(func() { ran = true }) }))
	if !ran {
		t.Fatal("effect did not run when queued")
	}
	if st := c.Step(t0); len(st.Effects) != 0 {
		t.Fatalf("%d effects returned by Step, want none (they ran)", len(st.Effects))
	}
	_, err = reactor.New(reactor.Config[view]{View: func(time.Time) view { return view{} }, Transport: &asyncTransport{}, EffectsAtOnce: true})
	var ce *reactor.ConfigError
	if !errors.As(err, &ce) || ce.Field != "EffectsAtOnce" {
		t.Fatalf("reactor.New with EffectsAtOnce: err = %v, want a ConfigError on EffectsAtOnce", err)
	}
}
