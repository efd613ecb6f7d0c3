package baseline

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kreactor/kreactor/reactor"
)

// scripted is a manager whose poll and local timer are functions.
type scripted struct {
	name  string
	poll  func(tx *reactor.Tx) reactor.Result
	timer func() (time.Time, bool) // nil: no local timer
}

func (s *scripted) Name() string                                   { return s.name }
func (s *scripted) Poll(tx *reactor.Tx, _ struct{}) reactor.Result { return s.poll(tx) }

// withTimer adds a LocalTimer to s.
type withTimer struct{ *scripted }

func (w withTimer) LocalTimer() (time.Time, bool) { return w.timer() }

func noSend() reactor.Transport {
	return reactor.TransportFunc(func(*reactor.Request, func(any, error)) { panic("a scripted manager sent a request") })
}

func newLoop(t *testing.T, after func(*reactor.Decision), ms ...reactor.Manager[struct{}]) *Loop[struct{}] {
	t.Helper()
	cfg := Config[struct{}]{AfterIteration: after}
	cfg.Managers, cfg.View, cfg.Transport = ms, func(time.Time) struct{} { return struct{}{} }, noSend()
	return must(NewLoop(cfg))(t)
}

// must turns a constructor's results into a function that fails t on the
// error.
func must[T any](v T, err error) func(t *testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// Nothing to do and no local timer: the network thread wakes every
// MAX_POLL_TIMEOUT_MS (5 s), each wake carrying nothing (spurious by the
// reactor's definition), and the application's maximum wait is forever.
func TestIdleWakesEveryMaxPollTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLoop(t, nil, &scripted{name: "idle", poll: func(*reactor.Tx) reactor.Result { return reactor.Idle("nothing") }})
		l.Start()
		time.Sleep(20*time.Second + time.Millisecond)
		synctest.Wait()
		st := l.Stats()
		l.Stop()
		if st.Steps != 5 || st.TimerWakes != 4 || st.SpuriousWakeups != 4 {
			t.Fatalf("stats %+v after 20 s idle, want 5 steps, 4 timer wakes, all spurious", st)
		}
		if w := l.MaximumTimeToWait(); w != Forever {
			t.Fatalf("maximumTimeToWait = %s, want forever", w)
		}
		if d := l.Current().Decision; !d.Closed {
			t.Fatalf("decision after Stop: %s", d.Diagnose())
		}
	})
}

// A local timer that is due while its manager cannot progress (a heartbeat
// due with the coordinator unknown) collapses to a zero wait: the network
// thread iterates without blocking (KAFKA-20253's busy loop), and no
// virtual time passes.
func TestDueTimerBusyLoops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const spins = 1000
		var polls atomic.Int64
		m := &scripted{name: "membership",
			poll: func(*reactor.Tx) reactor.Result {
				polls.Add(1)
				return reactor.Await(reactor.InputCoordinator, "coordinator unknown")
			}}
		start := time.Now()
		m.timer = func() (time.Time, bool) {
			// due for the first spins polls, then the heartbeat stops
			return start, polls.Load() <= spins
		}
		l := newLoop(t, nil, withTimer{m})
		l.Start()
		synctest.Wait() // returns once the loop blocks: after the spins
		st := l.Stats()
		elapsed := time.Since(start)
		l.Stop()
		if st.Steps < spins || elapsed != 0 {
			t.Fatalf("%d steps in %s with a due heartbeat, want >= %d in no time", st.Steps, elapsed, spins)
		}
		if st.SpuriousWakeups < spins-1 {
			t.Fatalf("spurious wakeups %d, want every zero-wait iteration (>= %d)", st.SpuriousWakeups, spins-1)
		}
	})
}

// maximumTimeToWait is computed with the iteration's pre-I/O time and cached
// only after the network wait: during the wait the application still reads
// the previous value (Forever before the first wait ends).
func TestMaximumTimeToWaitIsCachedAfterTheWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		heartbeat := start.Add(3 * time.Second)
		m := &scripted{name: "membership",
			poll:  func(*reactor.Tx) reactor.Result { return reactor.RetryAt(heartbeat, "heartbeat interval") },
			timer: func() (time.Time, bool) { return heartbeat, true }}
		l := newLoop(t, nil, withTimer{m})
		l.Start()
		synctest.Wait() // first iteration done, waiting 3 s
		if w := l.MaximumTimeToWait(); w != Forever {
			t.Fatalf("maximumTimeToWait during the first wait = %s, want forever (not cached yet)", w)
		}
		time.Sleep(time.Second)
		if err := l.Submit(context.Background(), "poll", func(*reactor.Tx) {}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		// The wait ended 1 s in; the value cached is the first
		// iteration's, computed at start: 3 s, not 2 s.
		if w := l.MaximumTimeToWait(); w != 3*time.Second {
			t.Fatalf("maximumTimeToWait after the first wait = %s, want 3s (computed with the pre-I/O time)", w)
		}
		if d := l.Current().Decision; d.Wake != d.At.Add(2*time.Second) {
			t.Fatalf("second iteration's wake %s after its start, want 2s", d.Wake.Sub(d.At))
		}
		l.Stop()
	})
}

// Effects run as soon as the iteration applied them, before its decision is
// published (the modelled defect behind KAFKA-18641 and KAFKA-20397); the
// iteration hook runs after publication.
func TestEffectsRunBeforePublication(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var hooked atomic.Uint64
		l := newLoop(t, func(d *reactor.Decision) { hooked.Store(d.Version) },
			&scripted{name: "idle", poll: func(*reactor.Tx) reactor.Result { return reactor.Idle("") }})
		l.Start()
		seen := make(chan [2]uint64, 1)
		if err := l.Submit(context.Background(), "commit", func(tx *reactor.Tx) {
			queued := tx.Version
			tx.Effect(func() { seen <- [2]uint64{queued, l.Current().Decision.Version} })
		}); err != nil {
			t.Fatal(err)
		}
		got := <-seen
		synctest.Wait()
		l.Stop()
		if got[1] >= got[0] {
			t.Fatalf("effect queued at version %d ran with version %d published: want before its decision", got[0], got[1])
		}
		if hooked.Load() != got[0] {
			t.Fatalf("AfterIteration saw version %d, want %d", hooked.Load(), got[0])
		}
	})
}

// One pass per iteration: a Ready manager is not polled again in the same
// iteration, and its request goes out once.
func TestOnePassPerIteration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var polls, sent atomic.Int64
		m := &scripted{name: "fetch", poll: func(*reactor.Tx) reactor.Result {
			polls.Add(1)
			return reactor.Ready("fetch", &reactor.Request{OnComplete: func(*reactor.Tx, any, error) {}})
		}}
		l, err := NewLoop(Config[struct{}]{Config: reactor.Config[struct{}]{
			Managers: []reactor.Manager[struct{}]{m}, View: func(time.Time) struct{} { return struct{}{} },
			Transport: reactor.TransportFunc(func(_ *reactor.Request, done func(any, error)) { sent.Add(1) }),
		}})
		if err != nil {
			t.Fatal(err)
		}
		l.Start()
		synctest.Wait()
		l.Stop()
		if polls.Load() != 1 || sent.Load() != 1 {
			t.Fatalf("%d polls and %d sends in one iteration, want 1 and 1", polls.Load(), sent.Load())
		}
		if st := l.Stats(); st.RoundLimit != 0 {
			t.Fatalf("round limit counted on the baseline: %+v", st)
		}
	})
}

func TestConfigErrors(t *testing.T) {
	_, err := NewLoop(Config[struct{}]{Config: reactor.Config[struct{}]{View: func(time.Time) struct{} { return struct{}{} }, Transport: noSend(), MaxRounds: 8}})
	var ce *reactor.ConfigError
	if !errors.As(err, &ce) || ce.Field != "MaxRounds" {
		t.Fatalf("err = %v, want a ConfigError on MaxRounds", err)
	}
	_, err = NewLoop(Config[struct{}]{Config: reactor.Config[struct{}]{View: func(time.Time) struct{} { return struct{}{} }, Transport: noSend(), InboxCapacity: -1}})
	if !errors.As(err, &ce) || ce.Field != "InboxCapacity" {
		t.Fatalf("err = %v, want a ConfigError on InboxCapacity (the shared validation)", err)
	}
}

// Both engines count a spurious wakeup with the one rule of the shared
// driver: the same manager, which asks to be polled again 1 ms
// later for nothing, gives the same count on the reactor's Loop and on the
// baseline's.
func TestSpuriousWakeupsCountedAlikeOnBothEngines(t *testing.T) {
	needless := func() *scripted {
		return &scripted{name: "m", poll: func(tx *reactor.Tx) reactor.Result {
			return reactor.RetryAt(tx.Now.Add(time.Millisecond), "poll me again")
		}}
	}
	var got [2]reactor.Stats
	synctest.Test(t, func(t *testing.T) {
		l := newLoop(t, nil, needless())
		l.Start()
		time.Sleep(time.Second)
		synctest.Wait()
		l.Stop()
		got[0] = l.Stats()
	})
	synctest.Test(t, func(t *testing.T) {
		cfg := reactor.Config[struct{}]{Managers: []reactor.Manager[struct{}]{needless()}, View: func(time.Time) struct{} { return struct{}{} }, Transport: noSend()}
		l := must(reactor.New(cfg))(t)
		l.Start()
		time.Sleep(time.Second)
		synctest.Wait()
		l.Stop()
		got[1] = l.Stats()
	})
	for i, name := range []string{"baseline", "reactor"} {
		if st := got[i]; st.TimerWakes < 990 || st.SpuriousWakeups != st.TimerWakes {
			t.Errorf("%s: stats %+v: want about 1,000 timer wakes, every one spurious", name, st)
		}
	}
}
