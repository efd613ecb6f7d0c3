package measure

import (
	"slices"
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
// pause) only if no other goroutine ran meanwhile: the monitor shares the
// runtime with the subject, so a spec keeps the stalls its own activity
// record confirms (Confirmed) before it subtracts the stalled time inside
// an interval it judges (Unstalled). A late return it counts is then one
// the machine does not explain; the stalls themselves are reported as
// figures, not hidden.
type StallMonitor struct {
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}

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
// it recorded, in time order and not overlapping. Stop is safe to call more
// than once and from several goroutines.
func (m *StallMonitor) Stop() []Stall {
	m.stopOnce.Do(func() { close(m.stop) })
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Stall(nil), m.stalls...)
}

// Stalled returns how much of [from, to] the stalls cover. Overlapping
// stalls count once; the order does not matter.
func Stalled(stalls []Stall, from, to time.Time) time.Duration {
	var in []Stall
	for _, s := range stalls {
		lo, hi := s.From, s.To
		if lo.Before(from) {
			lo = from
		}
		if hi.After(to) {
			hi = to
		}
		if hi.After(lo) {
			in = append(in, Stall{lo, hi})
		}
	}
	slices.SortFunc(in, func(a, b Stall) int { return a.From.Compare(b.From) })
	var d time.Duration
	var end time.Time // the covered time so far ends here
	for _, s := range in {
		if s.From.Before(end) {
			s.From = end
		}
		if s.To.After(s.From) {
			d += s.To.Sub(s.From)
			end = s.To
		}
	}
	return d
}

// Unstalled returns the time from from to to that no stall covers: the
// part of a wait the machine does not explain.
func Unstalled(stalls []Stall, from, to time.Time) time.Duration {
	return to.Sub(from) - Stalled(stalls, from, to)
}

// Confirmed keeps the stalls inside which none of the activity times falls
// (the times other goroutines of the process were seen running, such as
// the returns of calls). The monitor is one goroutine among the subject's:
// when the subject's own goroutines keep every CPU busy the monitor runs
// late while they run, and such a gap is not a stall of the process. A
// stall's ends may touch an activity time. activity need not be sorted.
func Confirmed(stalls []Stall, activity []time.Time) []Stall {
	sorted := slices.SortedFunc(slices.Values(activity), time.Time.Compare)
	var out []Stall
	for _, s := range stalls {
		i, _ := slices.BinarySearchFunc(sorted, s.From, time.Time.Compare)
		for i < len(sorted) && sorted[i].Equal(s.From) {
			i++
		}
		if i < len(sorted) && sorted[i].Before(s.To) {
			continue // something ran inside it
		}
		out = append(out, s)
	}
	return out
}

// LongestStall returns the longest of stalls (0 for none).
func LongestStall(stalls []Stall) time.Duration {
	var longest time.Duration
	for _, s := range stalls {
		longest = max(longest, s.To.Sub(s.From))
	}
	return longest
}
