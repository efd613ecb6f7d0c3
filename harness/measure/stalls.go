package measure

import (
	"sync"
	"time"
)

const (
	// StallTick is how often the stall monitor asks to run: 1 ms.
	StallTick = time.Millisecond
	// StallMin is the shortest gap the monitor records as a stall: it ran
	// at least 5 ms later than it asked to. Timer slack and an ordinary
	// run-queue wait on a busy 2-core machine stay well below it.
	StallMin = 5 * time.Millisecond
)

// Stall is one interval in which this process's stall monitor could not
// run: from when it asked to wake to when it did.
type Stall struct {
	From, To time.Time
}

// StallMonitor records the stalls of this process: intervals of StallMin or
// more in which a goroutine that asks to run every StallTick was not run.
// Such an interval is the machine's or the runtime's (another process
// holding the CPUs, the kernel descheduling this one, a stop-the-world
// pause), and every goroutine waiting for a CPU waited it out too. A timing
// spec subtracts the stalled time inside an interval it judges (Unstalled),
// so that a late return it counts is one the machine does not explain; the
// stalls themselves are reported as figures, not hidden.
type StallMonitor struct {
	stop chan struct{}
	done chan struct{}

	mu     sync.Mutex
	stalls []Stall
}

// StartStallMonitor starts a monitor; Stop ends it.
func StartStallMonitor() *StallMonitor {
	m := &StallMonitor{stop: make(chan struct{}), done: make(chan struct{})}
	go m.run()
	return m
}

func (m *StallMonitor) run() {
	defer close(m.done)
	t := time.NewTicker(StallTick)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
		}
		now := time.Now()
		if gap := now.Sub(last); gap-StallTick >= StallMin {
			m.mu.Lock()
			m.stalls = append(m.stalls, Stall{From: last.Add(StallTick), To: now})
			m.mu.Unlock()
		}
		last = now
	}
}

// Stop ends the monitor, waits for its goroutine, and returns every stall
// it recorded, in time order. Stop is safe to call more than once.
func (m *StallMonitor) Stop() []Stall {
	select {
	case <-m.stop:
	default:
		close(m.stop)
	}
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Stall(nil), m.stalls...)
}

// Stalled returns how much of [from, to] the stalls cover (stalls in time
// order and not overlapping, as a StallMonitor records them).
func Stalled(stalls []Stall, from, to time.Time) time.Duration {
	var d time.Duration
	for _, s := range stalls {
		lo, hi := s.From, s.To
		if lo.Before(from) {
			lo = from
		}
		if hi.After(to) {
			hi = to
		}
		if hi.After(lo) {
			d += hi.Sub(lo)
		}
	}
	return d
}

// Unstalled returns the time from from to to that no stall covers: the
// part of a wait the machine does not explain.
func Unstalled(stalls []Stall, from, to time.Time) time.Duration {
	return to.Sub(from) - Stalled(stalls, from, to)
}

// LongestStall returns the longest of stalls (0 for none).
func LongestStall(stalls []Stall) time.Duration {
	var longest time.Duration
	for _, s := range stalls {
		longest = max(longest, s.To.Sub(s.From))
	}
	return longest
}
