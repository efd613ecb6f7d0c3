package sim

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kreactor/kreactor/internal/chans"
)

// watchdogPeriod is how often, in wall time, the watchdog looks at the
// bubble's clock.
const watchdogPeriod = 250 * time.Millisecond

// watchdog runs outside the bubble and fires when the bubble's published
// clock stands still for cfg.FrozenAfter of wall time while the publisher
// runs. It only reads atomics the bubble writes: a goroutine outside a
// bubble must not touch the bubble's channels.
type watchdog struct {
	cfg     Config
	virtual atomic.Int64 // last published virtual time since the start, ns
	seq     atomic.Uint64
	active  atomic.Bool // the publisher runs
	quit    chan struct{}
	once    sync.Once
	done    chan struct{}
}

// startWatchdog starts a watchdog for cfg; with FrozenAfter < 0 it never
// fires.
func startWatchdog(cfg Config) *watchdog {
	w := &watchdog{cfg: cfg, quit: make(chan struct{}), done: make(chan struct{})}
	go w.run()
	return w
}

func (w *watchdog) ticking(on bool) {
	w.active.Store(on)
	w.seq.Add(1)
}

func (w *watchdog) publish(v time.Duration) {
	w.virtual.Store(int64(v))
	w.seq.Add(1)
}

func (w *watchdog) stop() {
	w.once.Do(func() { close(w.quit) })
	<-w.done
}

func (w *watchdog) run() {
	defer close(w.done)
	if w.cfg.FrozenAfter < 0 {
		<-w.quit
		return
	}
	last, since := w.seq.Load(), time.Now()
	chans.Every(watchdogPeriod, w.quit, func(now time.Time) bool {
		if s := w.seq.Load(); s != last || !w.active.Load() {
			last, since = s, now
			return true
		}
		if stood := now.Sub(since); stood >= w.cfg.FrozenAfter {
			f := Frozen{Seed: w.cfg.Seed, Virtual: time.Duration(w.virtual.Load()), Wall: stood, Spinning: spinning()}
			if w.cfg.OnFrozen != nil {
				w.cfg.OnFrozen(f)
			}
			panic(f.String())
		}
		return true
	})
}

// spinningSamples and spinningGap bound how spinning looks: one stack dump
// can catch a busy loop in the instant it blocks (a zero-wait select, a
// mutex), most often on a loaded machine, so it takes up to that many dumps
// that far apart, until one shows a goroutine running.
const (
	spinningSamples = 10
	spinningGap     = 20 * time.Millisecond
)

// spinning returns the stacks of every goroutine in a synctest bubble that
// is running or runnable, from the first of spinningSamples stack dumps
// that has any.
func spinning() []string {
	for i := 0; ; i++ {
		out := Goroutines(func(g string) bool {
			head, _, _ := strings.Cut(g, "\n")
			return strings.Contains(head, "synctest bubble") && (strings.Contains(head, "[running") || strings.Contains(head, "[runnable"))
		})
		if len(out) > 0 || i == spinningSamples-1 {
			return out
		}
		time.Sleep(spinningGap)
	}
}

// Goroutines returns the stacks of the goroutines for which keep holds,
// each as runtime.Stack writes it (a "goroutine N [state]:" line, then its
// frames), from one stack dump of every goroutine.
func Goroutines(keep func(stack string) bool) []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if keep(g) {
			out = append(out, g)
		}
	}
	return out
}
