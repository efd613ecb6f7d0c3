package reports

// Machine load around a run: a verdict taken while the machine was busy
// (other processes wanting the cores, or the hypervisor taking them) is
// marked, because CPU- and time-judged signals move with load.

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// EntryLoad holds a LoadSample taken when a suite ends (attached by a
// cleanup node of the suite's BeforeSuite, suite.Setup); the one
// taken when it starts is Provenance.LoadStart.
const EntryLoad = "kreactor.load"

// LoadSample is the machine's load at one moment, from /proc/loadavg and
// the first ("cpu") line of /proc/stat.
type LoadSample struct {
	At time.Time `json:"at"`
	// Load1 and Load5 are the 1- and 5-minute load averages (runnable and
	// uninterruptible tasks, averaged).
	Load1 float64 `json:"load1"`
	Load5 float64 `json:"load5"`
	// Cores is the number of CPUs the sample was taken on.
	Cores int `json:"cores"`
	// StealTicks and TotalTicks are /proc/stat's cumulative steal and
	// total (all fields) CPU time in clock ticks, summed over CPUs: two
	// samples give the share of CPU time stolen between them.
	StealTicks uint64 `json:"steal_ticks"`
	TotalTicks uint64 `json:"total_ticks"`
}

// Load thresholds (UnderLoad): a run is taken under load when the 1-minute
// load average at its start or end reached LoadPerCore times the core count
// (as many runnable tasks as cores, or more: the run's threads queued for a
// core), or when StealShare or more of the CPU time between the samples was
// stolen by the hypervisor.
const (
	LoadPerCore = 1.0
	StealShare  = 0.05
)

// RunLoad is the load around one run file: its start and end samples.
type RunLoad struct {
	Start *LoadSample `json:"start,omitempty"`
	End   *LoadSample `json:"end,omitempty"`
}

// Steal is the share (0-1) of CPU time stolen between Start and End; ok is
// false unless both samples exist and the counters advanced.
func (l RunLoad) Steal() (share float64, ok bool) {
	if l.Start == nil || l.End == nil || l.End.TotalTicks <= l.Start.TotalTicks || l.End.StealTicks < l.Start.StealTicks {
		return 0, false
	}
	return float64(l.End.StealTicks-l.Start.StealTicks) / float64(l.End.TotalTicks-l.Start.TotalTicks), true
}

// UnderLoad reports whether the run was taken under load (see LoadPerCore)
// and why; false with "" when neither sample exists or neither crosses a
// threshold.
func (l RunLoad) UnderLoad() (bool, string) {
	var why []string
	for _, s := range []struct {
		name string
		s    *LoadSample
	}{{"start", l.Start}, {"end", l.End}} {
		if s.s == nil || s.s.Cores <= 0 {
			continue
		}
		if lim := LoadPerCore * float64(s.s.Cores); s.s.Load1 >= lim {
			why = append(why, fmt.Sprintf("load %.2f at %s >= %.0f cores", s.s.Load1, s.name, lim))
		}
	}
	if st, ok := l.Steal(); ok && st >= StealShare {
		why = append(why, fmt.Sprintf("steal %.1f%% >= %.0f%%", st*100, StealShare*100))
	}
	return len(why) > 0, strings.Join(why, "; ")
}

// Summary renders "load 1.20 -> 3.40 (2 cores), steal 0.0%" ("" with no
// sample).
func (l RunLoad) Summary() string {
	var parts []string
	val := func(s *LoadSample) string {
		if s == nil {
			return "?"
		}
		return fmt.Sprintf("%.2f", s.Load1)
	}
	if l.Start == nil && l.End == nil {
		return ""
	}
	cores := 0
	for _, s := range []*LoadSample{l.Start, l.End} {
		if s != nil {
			cores = s.Cores
		}
	}
	parts = append(parts, fmt.Sprintf("load %s -> %s (%d cores)", val(l.Start), val(l.End), cores))
	if st, ok := l.Steal(); ok {
		parts = append(parts, fmt.Sprintf("steal %.1f%%", st*100))
	}
	s := strings.Join(parts, ", ")
	if under, _ := l.UnderLoad(); under {
		s += ", under load"
	}
	return s
}

func decodeLoad(asJSON string) (*LoadSample, error) {
	var s LoadSample
	if err := json.Unmarshal([]byte(asJSON), &s); err != nil {
		return nil, fmt.Errorf("decode %s: %w", EntryLoad, err)
	}
	return &s, nil
}
