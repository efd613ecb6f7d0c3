package sim

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"testing/cryptotest"
	"testing/synctest"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/fakebroker"
	"github.com/kreactor/kreactor/internal/chans"
)

// Run runs fn inside a testing/synctest bubble, with a fake cluster
// (fakebroker, Config.Cluster) on kfake's in-memory network started in the
// same bubble, and returns what the run recorded. Everything fn starts
// (consumers, their loops, their broker connections, kfake's brokers) lives in
// the bubble, so the clock is virtual: it jumps ahead whenever every
// goroutine is durably blocked, a 3 s outage takes microseconds of wall
// time, and every time in the History is virtual.
//
// Before the bubble starts Run seeds crypto/rand for the test
// (testing/cryptotest.SetGlobalRandom with Config.Seed), which is why t
// must not be parallel, and sets GOMAXPROCS to Config.Procs if given. Inside it, fn gets an Env whose Context ends after
// Config.MaxVirtual of virtual time; after fn returns, the functions
// registered with Env.Defer run (closing consumers), the history is
// collected, and the cluster closes. A goroutine left behind when the
// bubble ends fails t (synctest: a leak check for free).
//
// If some goroutine in the bubble never blocks (a busy loop), virtual time
// stops: nothing that waits for a timer ever runs again. A watchdog outside
// the bubble sees the clock stand still for Config.FrozenAfter of wall
// time, calls Config.OnFrozen and panics with the spinning goroutines'
// stacks (Frozen): a frozen bubble cannot be stopped from outside, and the
// process cannot continue. Subjects that busy-loop by design (the baseline
// during a coordinator outage) need RunWall.
//
// Errors: a *ConfigError, fakebroker's if the cluster cannot start, or
// fn's. The History is nil only when the cluster did not start.
//
// Run needs a *testing.T because synctest does: a tool that runs
// simulations (kreactor explore) must run inside a test binary (go test,
// or a binary built with go test -c).
func Run(t *testing.T, cfg Config, fn func(env *Env) error) (*History, error) {
	cfg, err := cfg.withDefaults(true)
	if err != nil {
		return nil, err
	}
	cryptotest.SetGlobalRandom(t, cfg.Seed)
	if cfg.Procs > 0 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(cfg.Procs))
	}
	w := startWatchdog(cfg)
	defer w.stop()
	var h *History
	wall := time.Now()
	synctest.Test(t, func(*testing.T) {
		h, err = runCtx(context.Background(), cfg, fn, w)
	})
	if h != nil {
		h.Bubble = true
		h.Wall = time.Since(wall)
	}
	return h, err
}

// RunWall is Run on the wall clock, without a bubble: the same cluster on
// an in-memory network, the same Env, and a History whose times are wall
// time. It is the fallback wherever a bubble cannot be used: a subject
// that busy-loops (it would freeze a bubble's clock), a caller without a
// *testing.T, a run that must be compared with the bubble's. Timing is
// real, so a seed fixes the schedule and every random choice but not the
// history. ctx bounds the run on top of Config.MaxVirtual (wall time
// here). Errors as Run, plus ctx's.
func RunWall(ctx context.Context, cfg Config, fn func(env *Env) error) (*History, error) {
	cfg, err := cfg.withDefaults(false)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	wall := time.Now()
	h, err := runCtx(ctx, cfg, fn, nil)
	if h != nil {
		h.Wall = time.Since(wall)
	}
	return h, err
}

// runCtx starts the cluster, runs fn and the deferred functions, and
// collects the history; with w (Run: inside the bubble), it publishes the
// clock to w while fn and the deferred functions run.
func runCtx(parent context.Context, cfg Config, fn func(env *Env) error, w *watchdog) (*History, error) {
	start := time.Now()
	bc := cfg.Cluster
	bc.Network = new(kfake.VirtualNetwork)
	if cfg.Loopback {
		bc.Network = nil // TCP on 127.0.0.1, free ports
	}
	bc.SpreadLeaders = true
	b, err := fakebroker.Start(bc)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	if w != nil {
		stop := publishClock(start, cfg.MaxVirtual, w)
		defer stop()
	}
	ctx, cancel := context.WithTimeout(parent, cfg.MaxVirtual)
	defer cancel()
	env := newEnv(b, cfg.Seed, start, ctx)
	env.loopback = cfg.Loopback
	if _, err := b.ObserveKey(kmsg.OffsetCommit, env.observeCommit); err != nil {
		return nil, fmt.Errorf("sim: observe OffsetCommit: %w", err)
	}

	err = fn(env)
	virtual := time.Since(start)
	env.runDefers()
	h := env.history()
	h.Virtual = virtual
	b.Close()
	env.requests(h)
	return h, err
}

// publishClock starts the goroutine that tells w the bubble's time every
// ClockPeriod, until the returned stop is called or a minute past
// maxVirtual (from then on a bubble whose goroutines all wait without a
// timer is a deadlock synctest reports, not a clock kept ticking by this
// goroutine alone).
func publishClock(start time.Time, maxVirtual time.Duration, w *watchdog) (stop func()) {
	done := make(chan struct{})
	exited := make(chan struct{})
	w.ticking(true)
	go func() {
		defer close(exited)
		defer w.ticking(false)
		chans.Every(ClockPeriod, done, func(now time.Time) bool {
			v := now.Sub(start)
			if v > maxVirtual+time.Minute {
				return false
			}
			w.publish(v)
			return true
		})
	}()
	return func() {
		close(done)
		<-exited
	}
}
