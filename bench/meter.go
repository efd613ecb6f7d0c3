package bench

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// processCPU is this process's user + system CPU time (getrusage, µs
// resolution), and its context switches, voluntary and involuntary, over
// all its threads, those exited too (ru_nvcsw + ru_nivcsw): each time a
// thread blocked (a futex, the network poller, a sleep) or was preempted.
func processCPU() (time.Duration, int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(fmt.Sprintf("bench: getrusage: %v", err)) // cannot fail for RUSAGE_SELF
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), ru.Nvcsw + ru.Nivcsw
}

// goMeter brackets a timed part in this process: wall, CPU, allocations.
type goMeter struct {
	start   time.Time
	cpu     time.Duration
	csw     int64
	mallocs uint64
	bytes   uint64
}

func startGoMeter() goMeter {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	cpu, csw := processCPU()
	return goMeter{start: time.Now(), cpu: cpu, csw: csw, mallocs: ms.Mallocs, bytes: ms.TotalAlloc}
}

// stop fills r's Wall, CPU, ContextSwitches, Allocs and AllocBytes.
func (m goMeter) stop(r *Result) {
	cpu, csw := processCPU()
	r.Wall, r.CPU, r.ContextSwitches = time.Since(m.start), cpu-m.cpu, csw-m.csw
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.Allocs, r.AllocBytes = int64(ms.Mallocs-m.mallocs), int64(ms.TotalAlloc-m.bytes)
}

// procMemory reads VmRSS and VmHWM (bytes) from /proc/<pid>/status ("self"
// for this process).
func procMemory(pid string) (rss, hwm int64, err error) {
	f, err := os.Open("/proc/" + pid + "/status")
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		fs := strings.Fields(v) // "123456 kB"
		if len(fs) != 2 || fs[1] != "kB" {
			return 0, 0, fmt.Errorf("/proc/%s/status: %s: unexpected %q", pid, k, v)
		}
		n, err := strconv.ParseInt(fs[0], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/%s/status: %s: %w", pid, k, err)
		}
		if k == "VmRSS" {
			rss = n << 10
		} else {
			hwm = n << 10
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, err
	}
	if rss == 0 {
		return 0, 0, fmt.Errorf("/proc/%s/status: no VmRSS", pid)
	}
	return rss, hwm, nil
}

// goHeap returns the Go heap in use (HeapInuse, what the process holds for
// the heap now) and the live heap after a forced collection (HeapAlloc
// after runtime.GC).
func goHeap() (inuse, live int64) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	inuse = int64(ms.HeapInuse)
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return inuse, int64(ms.HeapAlloc)
}
