package scenario

import (
	"syscall"
	"time"

	"github.com/kreactor/kreactor/harness"
)

// cpuReading is one reading of a consumer's CPU: the subject's own process
// (harness.CPUSampler) or, for in-process subjects, the test process's
// (getrusage: it includes the harness and an in-process broker).
type cpuReading struct {
	at    time.Time
	total time.Duration
	scope string // "subject" or "process"; "" when unreadable
	err   error
}

// Scopes of a CPU reading.
const (
	cpuScopeSubject = "subject"
	cpuScopeProcess = "process"
)

func readCPU(c any) cpuReading {
	now := time.Now()
	if c == nil {
		return cpuReading{at: now}
	}
	if s, ok := ability[harness.CPUSampler](c); ok {
		total, _, err := s.CPUTime()
		return cpuReading{at: now, total: total, scope: cpuScopeSubject, err: err}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return cpuReading{at: now, err: err}
	}
	return cpuReading{at: now, total: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), scope: cpuScopeProcess}
}
