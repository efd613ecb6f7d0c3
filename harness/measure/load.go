package measure

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/kreactor/kreactor/reports"
)

// SampleLoad reads the machine's load now: the load averages from
// /proc/loadavg and the cumulative steal and total CPU ticks from the "cpu"
// line of /proc/stat. Errors: a file that cannot be read or parsed (on a
// system without /proc the caller records no sample).
func SampleLoad() (reports.LoadSample, error) {
	s := reports.LoadSample{At: time.Now().UTC(), Cores: runtime.NumCPU()}
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return s, err
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return s, fmt.Errorf("/proc/loadavg: %q: want at least 2 fields", strings.TrimSpace(string(b)))
	}
	if s.Load1, err = strconv.ParseFloat(f[0], 64); err != nil {
		return s, fmt.Errorf("/proc/loadavg: 1-minute load %q: %w", f[0], err)
	}
	if s.Load5, err = strconv.ParseFloat(f[1], 64); err != nil {
		return s, fmt.Errorf("/proc/loadavg: 5-minute load %q: %w", f[1], err)
	}
	st, err := os.Open("/proc/stat")
	if err != nil {
		return s, err
	}
	defer st.Close()
	sc := bufio.NewScanner(st)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || fields[0] != "cpu" {
			continue
		}
		// user nice system idle iowait irq softirq steal guest guest_nice:
		// guest time is already counted in user and nice.
		for i, v := range fields[1:] {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return s, fmt.Errorf("/proc/stat: cpu field %d %q: %w", i+1, v, err)
			}
			if i < 8 {
				s.TotalTicks += n
			}
			if i == 7 {
				s.StealTicks = n
			}
		}
		return s, nil
	}
	return s, fmt.Errorf("/proc/stat: no cpu line")
}
