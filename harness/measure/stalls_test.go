package measure

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStalled: the covered part of an interval is the sum of the stalls'
// overlaps with it, and Unstalled is the rest.
func TestStalled(t *testing.T) {
	t0 := time.Unix(1_000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	stalls := []Stall{{ms(10), ms(20)}, {ms(50), ms(150)}, {ms(300), ms(310)}}
	for _, c := range []struct {
		from, to int
		want     time.Duration
	}{
		{0, 5, 0},
		{0, 400, 120 * time.Millisecond},
		{15, 60, 15 * time.Millisecond},
		{100, 305, 55 * time.Millisecond},
		{160, 290, 0},
	} {
		if got := Stalled(stalls, ms(c.from), ms(c.to)); got != c.want {
			t.Errorf("Stalled over [%d ms, %d ms] = %s, want %s", c.from, c.to, got, c.want)
		}
		if got, want := Unstalled(stalls, ms(c.from), ms(c.to)), time.Duration(c.to-c.from)*time.Millisecond-c.want; got != want {
			t.Errorf("Unstalled over [%d ms, %d ms] = %s, want %s", c.from, c.to, got, want)
		}
	}
	overlapping := []Stall{{ms(50), ms(150)}, {ms(10), ms(20)}, {ms(100), ms(200)}}
	if got, want := Stalled(overlapping, ms(0), ms(400)), 160*time.Millisecond; got != want {
		t.Errorf("Stalled over overlapping, unsorted stalls = %s, want %s (each instant once)", got, want)
	}
	if got := Unstalled(overlapping, ms(60), ms(90)); got != 0 {
		t.Errorf("Unstalled inside a stall = %s, want 0", got)
	}
	if got := LongestStall(stalls); got != 100*time.Millisecond {
		t.Errorf("LongestStall = %s, want 100ms", got)
	}
	if got := LongestStall(nil); got != 0 {
		t.Errorf("LongestStall(nil) = %s, want 0", got)
	}
}

// TestConfirmed: a stall inside which another goroutine was seen running
// is the monitor starved by its neighbours, not the process held; one whose
// ends only touch such a time stays.
func TestConfirmed(t *testing.T) {
	t0 := time.Unix(1_000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	stalls := []Stall{{ms(10), ms(20)}, {ms(50), ms(150)}, {ms(300), ms(310)}}
	activity := []time.Time{ms(400), ms(100), ms(5), ms(10), ms(20), ms(310)}
	got := Confirmed(stalls, activity)
	if len(got) != 2 || !got[0].From.Equal(ms(10)) || !got[1].From.Equal(ms(300)) {
		t.Fatalf("Confirmed = %v, want the stalls at 10 ms and 300 ms (the one at 50 ms had a return at 100 ms inside)", got)
	}
	if got := Confirmed(stalls, nil); len(got) != 3 {
		t.Fatalf("Confirmed with no activity = %v, want every stall", got)
	}
}

const stallChildEnv = "KREACTOR_STALL_CHILD"

// TestStallMonitorSeesAStoppedProcess stops a child process running a
// monitor with SIGSTOP for 300 ms, the way a busy machine deschedules a
// process, and expects the child to report a stall covering most of it.
func TestStallMonitorSeesAStoppedProcess(t *testing.T) {
	const stopped = 300 * time.Millisecond
	cmd := exec.Command(os.Args[0], "-test.run=^TestStallMonitorChild$")
	cmd.Env = append(os.Environ(), stallChildEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill() //nolint:errcheck // already exited on the normal path
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("child: %q, want ready (%v)", lines.Text(), lines.Err())
	}
	time.Sleep(20 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(stopped)
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	stdin.Close()
	var longest time.Duration
	for lines.Scan() {
		if !strings.HasPrefix(lines.Text(), "stall-us ") {
			continue // the test binary's own PASS
		}
		us, err := strconv.ParseInt(strings.TrimPrefix(lines.Text(), "stall-us "), 10, 64)
		if err != nil {
			t.Fatalf("child line %q: %v", lines.Text(), err)
		}
		longest = max(longest, time.Duration(us)*time.Microsecond)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	// The process was stopped for 300 ms; the monitor's last tick before
	// the stop can be up to StallTick earlier than the signal, and the
	// kernel delivers SIGCONT's wake a little after the signal.
	if longest < stopped-StallMin {
		t.Fatalf("longest stall the child saw: %s, want at least %s (stopped for %s)", longest, stopped-StallMin, stopped)
	}
}

// TestStallMonitorChild is the child of TestStallMonitorSeesAStoppedProcess:
// it runs a monitor until its stdin closes and prints each stall's length.
func TestStallMonitorChild(t *testing.T) {
	if os.Getenv(stallChildEnv) != "1" {
		t.Skip("runs only as the child of TestStallMonitorSeesAStoppedProcess")
	}
	m := StartStallMonitor()
	fmt.Println("ready")
	_, _ = bufio.NewReader(os.Stdin).ReadString(0) // until EOF
	for _, s := range m.Stop() {
		fmt.Printf("stall-us %d\n", s.To.Sub(s.From).Microseconds())
	}
}
