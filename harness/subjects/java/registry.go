package java

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DriverInfo describes one running driver process, for leak reports.
type DriverInfo struct {
	PID     int
	Started time.Time
	Kind    string // "consumer", "share", or "" before create
	Client  string // client.id
}

var live = struct {
	sync.Mutex
	m map[int]*DriverInfo
}{m: map[int]*DriverInfo{}}

func register(pid int) *DriverInfo {
	d := &DriverInfo{PID: pid, Started: time.Now()}
	live.Lock()
	live.m[pid] = d
	live.Unlock()
	return d
}

func setKind(pid int, kind, client string) {
	live.Lock()
	if d := live.m[pid]; d != nil {
		d.Kind, d.Client = kind, client
	}
	live.Unlock()
}

func unregister(pid int) {
	live.Lock()
	delete(live.m, pid)
	live.Unlock()
}

// LiveDrivers returns the driver processes started by this package that
// have not been reaped yet. After every consumer is closed it is empty.
func LiveDrivers() []DriverInfo {
	live.Lock()
	defer live.Unlock()
	out := make([]DriverInfo, 0, len(live.m))
	for _, d := range live.m {
		out = append(out, *d)
	}
	return out
}

// CheckNoLiveDrivers returns an error listing every driver still alive
// (started here and not reaped), or nil. Call it at the end of a suite,
// next to goleak.
func CheckNoLiveDrivers() error {
	ds := LiveDrivers()
	if len(ds) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "java subject: %d driver process(es) still alive:", len(ds))
	for _, d := range ds {
		fmt.Fprintf(&b, " pid %d (%s %q, started %s ago)", d.PID, d.Kind, d.Client, time.Since(d.Started).Round(time.Millisecond))
	}
	return fmt.Errorf("%s", b.String())
}

// Process is a child process of this one, from /proc.
type Process struct {
	PID   int
	Comm  string // the kernel's name (first 15 bytes of the executable name)
	State string // R, S, Z (zombie: exited, not reaped) ...
}

// ChildProcesses lists the direct children of this process from
// /proc/*/stat, independent of this package's bookkeeping: a driver
// started and lost by any code shows up here (as "java"). Linux only.
func ChildProcesses() ([]Process, error) {
	self := os.Getpid()
	dirs, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return nil, err
	}
	var out []Process
	for _, f := range dirs {
		st, err := readStat(f)
		if err != nil {
			continue // exited meanwhile
		}
		if st.ppid == self {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
			out = append(out, Process{PID: pid, Comm: st.comm, State: st.state})
		}
	}
	return out, nil
}
