package baseline

import (
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/kreactor/kreactor/reactor"
)

// MaxPollTimeout is the cap on one network wait (Java's 5000 ms
// MAX_POLL_TIMEOUT_MS).
const MaxPollTimeout = 5 * time.Second

// Forever is the collapsed "no timer" answer (Long.MAX_VALUE).
const Forever = time.Duration(math.MaxInt64)

// LocalTimer is implemented by managers that have a local timer in today's
// design (heartbeat interval, auto-commit interval, discovery backoff). ok is
// false when the timer is not running.
type LocalTimer interface {
	LocalTimer() (at time.Time, ok bool)
}

// Config configures a baseline Loop: the reactor's driver configuration
// (View and Transport required; MaxRounds must be left 0: one pass per
// iteration) and a hook.
type Config[V any] struct {
	reactor.Config[V]
	// AfterIteration runs on the loop goroutine at the end of every
	// iteration, after publication (the consumer moves fetched records to
	// the application's fetch buffer here). Optional.
	AfterIteration func(d *reactor.Decision)
}

// Loop models the background thread (ConsumerNetworkThread.runOnce) as a
// second driver of the reactor's Core: the same inbox, publication, trace
// and counters (the embedded Engine), with today's ordering and wait.
type Loop[V any] struct {
	*reactor.Engine
	drv      *reactor.Driver[V]
	managers []reactor.Manager[V] // as the Core polls them: Decision.Results is in this order
	after    func(d *reactor.Decision)
	maxWait  atomic.Int64 // cached maximumTimeToWait, ns
}

// NewLoop validates cfg and returns a stopped loop. Errors:
// *reactor.ConfigError.
func NewLoop[V any](cfg Config[V]) (*Loop[V], error) {
	if cfg.MaxRounds != 0 {
		return nil, &reactor.ConfigError{Field: "MaxRounds", Value: cfg.MaxRounds, Reason: "must be 0: the baseline polls each manager once per iteration (runOnce)"}
	}
	rc := cfg.Config
	rc.MaxRounds = 1
	rc.EffectsAtOnce = true // today's futures complete while the background thread works
	e, d, err := reactor.NewDriver(rc)
	if err != nil {
		return nil, err
	}
	l := &Loop[V]{Engine: e, drv: d, managers: slices.Clone(cfg.Managers), after: cfg.AfterIteration}
	l.maxWait.Store(int64(Forever))
	return l, nil
}

// Start runs the background goroutine. It panics if called twice.
func (l *Loop[V]) Start() { l.drv.Go(l.run) }

// MaximumTimeToWait is the cached maximum wait the application reads
// (AsyncKafkaConsumer reads the network thread's volatile cache).
func (l *Loop[V]) MaximumTimeToWait() time.Duration { return time.Duration(l.maxWait.Load()) }

func (l *Loop[V]) run() {
	var first *reactor.Observation
	for {
		now := time.Now()
		st := l.drv.Step(now, first)
		w := iterationWaits(now, l.managers, st.Decision.Results)
		st.Decision.Wake = now.Add(w.poll)
		st.RunEffects() // none: effects ran when queued, before the iteration's state is published (the modelled defect)
		l.drv.Publish(st)
		l.drv.Advance()
		if l.after != nil {
			l.after(st.Decision)
		}
		if st.Decision.Closed {
			return
		}
		// Network poll: wait for an event / completion or the poll timeout;
		// a zero timeout only checks (the busy loop of the modelled Jiras).
		o, ok := l.drv.Wait(w.poll)
		if !ok {
			l.drv.Close(time.Now())
			return
		}
		first = o
		// maximumTimeToWait is cached after I/O, computed with the
		// pre-I/O time.
		l.maxWait.Store(int64(w.maxWait))
	}
}

// waits is one iteration's wait computation.
type waits struct {
	// poll is the network wait: min(MaxPollTimeout, every manager's
	// collapsed time).
	poll time.Duration
	// maxWait is maximumTimeToWait: the minimum collapsed time over the
	// managers with a local timer (Forever without one).
	maxWait time.Duration
}

// iterationWaits computes today's waits from the managers' results at now;
// results[i] is managers[i]'s.
func iterationWaits[V any](now time.Time, managers []reactor.Manager[V], results []reactor.ManagerResult) waits {
	w := waits{poll: MaxPollTimeout, maxWait: Forever}
	for i, r := range results {
		c := collapse(managers[i], r, now)
		w.poll = min(w.poll, c)
		if _, ok := managers[i].(LocalTimer); ok {
			w.maxWait = min(w.maxWait, c)
		}
	}
	return w
}

// collapse turns a manager's result into Java's timeUntilNextPoll: its
// local timer whenever one runs, whether or not it can make progress; else
// a RetryAt time; else Forever (PollResult.EMPTY).
func collapse(m any, r reactor.ManagerResult, now time.Time) time.Duration {
	if lt, ok := m.(LocalTimer); ok {
		if at, running := lt.LocalTimer(); running {
			return max(at.Sub(now), 0)
		}
	}
	if r.Kind == reactor.KindRetryAt {
		return max(r.At.Sub(now), 0)
	}
	return Forever
}
