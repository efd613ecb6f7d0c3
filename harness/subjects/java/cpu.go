package java

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Thread name prefixes as the kernel shows them (/proc/<pid>/task/*/comm
// holds the first 15 bytes of the Java thread name; the JVM sets it).
const (
	// ThreadBackground is the KIP-848 and share consumers' network thread,
	// "consumer_background_thread" (kafka-clients 4.0-4.4).
	ThreadBackground = "consumer_backgr"
	// ThreadClassicHeartbeat is the classic consumer's heartbeat thread,
	// "kafka-coordinator-heartbeat-thread | <group>".
	ThreadClassicHeartbeat = "kafka-coordinat"
	// ThreadApplication is the driver's application thread: every consumer
	// call runs on it ("kreactor-app").
	ThreadApplication = "kreactor-app"
	// ThreadReader is the driver's stdin reader (wakeup, metrics).
	ThreadReader = "kreactor-stdin"
)

// clockTick is USER_HZ, the unit of utime/stime in /proc/<pid>/stat: 100 on
// every Linux ABI (sysconf(_SC_CLK_TCK)).
const clockTick = 10 * time.Millisecond

// ThreadCPU is one thread's CPU time (user + system).
type ThreadCPU struct {
	TID  int
	Name string        // comm: the first 15 bytes of the thread name
	CPU  time.Duration // from schedstat (ns) where the kernel has it, else stat (10 ms ticks)
}

// CPUSample is a process's CPU time at one instant, read from /proc
// independently of the JVM.
type CPUSample struct {
	PID     int
	At      time.Time
	Process time.Duration // /proc/<pid>/stat utime+stime: every thread, exited ones too; 10 ms resolution
	Threads []ThreadCPU   // live threads, by TID
}

// SampleCPU reads /proc/<pid>/stat and every /proc/<pid>/task/<tid>. Linux
// only; an error if the process is gone.
func SampleCPU(pid int) (CPUSample, error) {
	s := CPUSample{PID: pid, At: time.Now()}
	st, err := readStat(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return s, fmt.Errorf("java subject: CPU of pid %d: %w", pid, err)
	}
	s.Process = time.Duration(st.utime+st.stime) * clockTick
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/[0-9]*", pid))
	if err != nil {
		return s, err
	}
	for _, t := range tasks {
		tid, _ := strconv.Atoi(filepath.Base(t))
		tst, err := readStat(filepath.Join(t, "stat"))
		if err != nil {
			continue // exited meanwhile
		}
		cpu := time.Duration(tst.utime+tst.stime) * clockTick
		if b, err := os.ReadFile(filepath.Join(t, "schedstat")); err == nil {
			if f := strings.Fields(string(b)); len(f) > 0 {
				if ns, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					cpu = time.Duration(ns)
				}
			}
		}
		s.Threads = append(s.Threads, ThreadCPU{TID: tid, Name: tst.comm, CPU: cpu})
	}
	sort.Slice(s.Threads, func(i, j int) bool { return s.Threads[i].TID < s.Threads[j].TID })
	return s, nil
}

// CPUDelta is the CPU a process used between two samples.
type CPUDelta struct {
	Wall    time.Duration // between the samples
	Process time.Duration // whole process (10 ms resolution)
	Threads []ThreadCPU   // per thread: threads started in between count from zero
}

// Sub returns the CPU used from earlier to s (same process).
func (s CPUSample) Sub(earlier CPUSample) CPUDelta {
	before := make(map[int]time.Duration, len(earlier.Threads))
	for _, t := range earlier.Threads {
		before[t.TID] = t.CPU
	}
	d := CPUDelta{Wall: s.At.Sub(earlier.At), Process: s.Process - earlier.Process}
	for _, t := range s.Threads {
		d.Threads = append(d.Threads, ThreadCPU{TID: t.TID, Name: t.Name, CPU: t.CPU - before[t.TID]})
	}
	return d
}

// Named sums the threads whose name starts with prefix.
func (d CPUDelta) Named(prefix string) time.Duration {
	var sum time.Duration
	for _, t := range d.Threads {
		if strings.HasPrefix(t.Name, prefix) {
			sum += t.CPU
		}
	}
	return sum
}

// Background is the consumer's own background threads: the network thread
// of the KIP-848 and share consumers, or the classic heartbeat thread.
func (d CPUDelta) Background() time.Duration {
	return d.Named(ThreadBackground) + d.Named(ThreadClassicHeartbeat)
}

// Application is the driver's application thread (every consumer call).
func (d CPUDelta) Application() time.Duration { return d.Named(ThreadApplication) }

// ThreadsTotal sums every live thread (ns resolution; threads that exited
// in the window are only in Process).
func (d CPUDelta) ThreadsTotal() time.Duration {
	var sum time.Duration
	for _, t := range d.Threads {
		sum += t.CPU
	}
	return sum
}

// String renders the figures specs attach: process, background,
// application, the rest of the JVM, and the wall time.
func (d CPUDelta) String() string {
	bg, app := d.Background(), d.Application()
	return fmt.Sprintf("cpu process=%s background=%s application=%s jvm-other=%s wall=%s",
		d.Process, bg.Round(time.Microsecond), app.Round(time.Microsecond),
		(d.ThreadsTotal() - bg - app).Round(time.Microsecond), d.Wall.Round(time.Millisecond))
}

type procStat struct {
	comm         string
	state        string
	ppid         int
	utime, stime int64
}

// readStat parses a /proc stat file: "pid (comm) state ppid ... utime stime"
// (fields 14 and 15); comm may hold spaces and parentheses, so the fields
// are counted from the last ')'.
func readStat(path string) (procStat, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return procStat{}, err
	}
	s := string(b)
	open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || closing < open {
		return procStat{}, fmt.Errorf("%s: unexpected format %q", path, tail(s, 80))
	}
	f := strings.Fields(s[closing+1:])
	if len(f) < 13 {
		return procStat{}, fmt.Errorf("%s: %d fields after comm, want >= 13", path, len(f))
	}
	st := procStat{comm: s[open+1 : closing], state: f[0]}
	st.ppid, _ = strconv.Atoi(f[1])
	st.utime, _ = strconv.ParseInt(f[11], 10, 64)
	st.stime, _ = strconv.ParseInt(f[12], 10, 64)
	return st, nil
}
