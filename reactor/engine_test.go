package reactor_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kreactor/kreactor/reactor"
)

// The shared pieces every driver uses: the completion a transport calls
// panics when called twice and is dropped (counted) once the engine
// stopped; Stop before Start publishes the closed decision; a done ctx never
// enqueues; the trace keeps its capacity, oldest first.
func TestEngineSharedPieces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var done func(any, error)
		sent := false
		m := &fakeManager{name: "m", poll: func(*reactor.Tx) reactor.Result {
			if sent {
				return reactor.Await(reactor.InputResponse, "in flight")
			}
			sent = true
			return reactor.Ready("send", &reactor.Request{OnComplete: func(*reactor.Tx, any, error) {}})
		}}
		l, err := reactor.New(reactor.Config[view]{Managers: []reactor.Manager[view]{m}, View: func(now time.Time) view { return view{now} },
			Transport: reactor.TransportFunc(func(_ *reactor.Request, d func(any, error)) { done = d }), TraceCapacity: 2})
		if err != nil {
			t.Fatal(err)
		}
		l.Start()
		synctest.Wait()
		done(nil, nil)
		synctest.Wait()
		mustPanic(t, "completed a m request twice", func() { done(nil, nil) })
		for range 3 {
			if err := l.Submit(context.Background(), "e", func(*reactor.Tx) {}); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
		}
		if tr := l.Trace(); len(tr) != 2 || tr[1].Step != tr[0].Step+1 || tr[1].Step != l.Current().Decision.Step {
			t.Fatalf("trace of capacity 2 holds %d decisions ending at %d, want the latest 2", len(tr), tr[len(tr)-1].Step)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := l.Submit(ctx, "late", func(*reactor.Tx) { t.Error("a done ctx enqueued") }); !errors.Is(err, context.Canceled) {
			t.Fatalf("Submit with a done ctx = %v", err)
		}
		before := l.Current()
		l.Stop()
		<-before.Changed()
		<-l.Done()
		if _, err := l.WaitFor(context.Background(), func(p *reactor.Publication) bool { return false }); !errors.Is(err, reactor.ErrStopped) {
			t.Fatalf("WaitFor after Stop = %v", err)
		}
		// A completion after the stop is dropped and counted.
		sent = false // the manager sends again on the second loop
		l2, _ := reactor.New(reactor.Config[view]{Managers: []reactor.Manager[view]{m}, View: func(now time.Time) view { return view{now} },
			Transport: reactor.TransportFunc(func(_ *reactor.Request, d func(any, error)) { done = d })})
		l2.Start()
		synctest.Wait()
		l2.Stop()
		done(nil, nil)
		if st := l2.Stats(); st.Dropped != 1 {
			t.Fatalf("stats %+v, want 1 dropped completion", st)
		}
	})
	// Stop before Start publishes the closed decision itself.
	l, _ := reactor.New(reactor.Config[view]{View: func(now time.Time) view { return view{now} }, Transport: &asyncTransport{}})
	l.Stop()
	if !l.Current().Decision.Closed {
		t.Fatal("Stop before Start did not publish a closed decision")
	}
	mustPanic(t, "started twice", l.Start)
}

// WaitFor returns ctx's error when ctx ends first.
func TestWaitForContext(t *testing.T) {
	l := newLoop(t, &asyncTransport{}, idle("m"))
	l.Start()
	defer l.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := l.WaitFor(ctx, func(*reactor.Publication) bool { return false }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitFor = %v, want DeadlineExceeded", err)
	}
}

// The renderings the diagnosis and traces are read from.
func TestRenderings(t *testing.T) {
	d := &reactor.Decision{Step: 3, Version: 7, At: t0, Wake: t0.Add(100 * time.Millisecond), Closed: true, Results: []reactor.ManagerResult{
		{Manager: "commit", Kind: reactor.KindAwait, Inputs: reactor.InputCoordinator | reactor.InputResponse, At: t0.Add(time.Second), Reason: "coordinator unknown"},
		{Manager: "coordinator", Kind: reactor.KindRetryAt, At: t0.Add(80 * time.Millisecond), Reason: "backoff", Sent: 1},
		{Manager: "fetch", Kind: reactor.KindIdle},
		{Manager: "x", Kind: reactor.KindReady},
	}}
	got := d.Diagnose()
	for _, want := range []string{"step 3 version 7 wake +100ms closed", "commit awaits response|coordinator until +1s: coordinator unknown",
		"coordinator retries at +80ms (sent 1): backoff", "fetch idle", "x ready"} {
		if !strings.Contains(got, want) {
			t.Errorf("diagnosis lacks %q:\n%s", want, got)
		}
	}
	if _, ok := d.Result("nope"); ok {
		t.Error("Result of an unknown manager")
	}
	if s := (reactor.Input(1) << 10).String(); s != "unknown" || reactor.Input(0).String() != "none" || reactor.Input(0).Valid() {
		t.Errorf("Input renderings: %q", s)
	}
	if !(reactor.InputCoordinator | reactor.InputResponse).Has(reactor.InputResponse) {
		t.Error("Has")
	}
	for _, r := range []reactor.Result{reactor.Ready("r", &reactor.Request{}), reactor.RetryAt(t0, "b"), reactor.Await(reactor.InputMetadata, "m"),
		reactor.Await(reactor.InputMetadata, "m").Until(t0), reactor.Idle("i"), {Kind: 9}} {
		if r.String() == "" {
			t.Errorf("empty rendering of %#v", r)
		}
	}
	c := reactor.Combine(reactor.Idle("a"), reactor.RetryAt(t0.Add(time.Second), "b"), reactor.Await(reactor.InputMetadata, "c").Until(t0.Add(time.Millisecond)))
	if c.Kind != reactor.KindAwait || !c.At.Equal(t0.Add(time.Millisecond)) || c.Inputs != reactor.InputMetadata || c.Reason != "b; c" {
		t.Errorf("Combine = %s", c)
	}
	if c := reactor.Combine(reactor.RetryAt(t0, "x"), reactor.Ready("y", &reactor.Request{})); c.Kind != reactor.KindReady || len(c.Requests) != 1 {
		t.Errorf("Combine with a Ready part = %s", c)
	}
	st := reactor.Stats{Steps: 5, Dropped: 2}.Sub(reactor.Stats{Steps: 2})
	if st.Steps != 3 || st.Dropped != 2 {
		t.Errorf("Sub = %+v", st)
	}
	ce := &reactor.ConfigError{Field: "View", Reason: "required"}
	if !strings.Contains(ce.Error(), "View") {
		t.Errorf("ConfigError text %q", ce.Error())
	}
	o := reactor.Event("subscribe", func(*reactor.Tx) {})
	if o.Name() != "subscribe" || o.IsCompletion() {
		t.Errorf("event observation %q completion %v", o.Name(), o.IsCompletion())
	}
}
