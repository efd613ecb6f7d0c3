package main

// Process tests: kreactor broker (and kreactor proxy) as processes of their
// own, with clients in processes of their own (kgo in a re-executed test
// binary, kafka-clients in the Java driver's JVM), driven only through the
// control API over HTTP. The test binary re-executes itself
// (KREACTOR_SUBPROCESS) to be the kreactor command or the kgo client, so
// no separate build is needed.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kreactor/kreactor/fakebroker/control"
)

const (
	envSubprocess = "KREACTOR_SUBPROCESS" // "kreactor" or "kgo"
	envArgs       = "KREACTOR_SUBPROCESS_ARGS"
)

// subprocess runs the re-executed test binary as what envSubprocess names
// and returns its exit status; ok is false in the test process itself.
func subprocess() (code int, ok bool) {
	var args []string
	_ = json.Unmarshal([]byte(os.Getenv(envArgs)), &args)
	switch os.Getenv(envSubprocess) {
	case "kreactor":
		return run(args, os.Stdout, os.Stderr), true
	case "kgo":
		return kgoConsumer(args), true
	}
	return 0, false
}

// kgoConsumer is a KIP-848 kgo group consumer (args: bootstrap, group,
// topic, client id) printing "record OFFSET" per record and "error ..."
// per fetch error, until SIGTERM.
func kgoConsumer(args []string) int {
	if len(args) != 4 {
		fmt.Fprintln(os.Stderr, "kgo: want bootstrap group topic client-id")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(args[0], ",")...), kgo.ConsumerGroup(args[1]), kgo.ConsumeTopics(args[2]),
		kgo.ClientID(args[3]), kgo.ServerSideBalancer(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		fmt.Fprintln(os.Stderr, "kgo:", err)
		return 1
	}
	defer cl.Close()
	for ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		fs.EachError(func(t string, p int32, err error) {
			if ctx.Err() == nil {
				fmt.Printf("error %s[%d]: %v\n", t, p, err)
			}
		})
		fs.EachRecord(func(r *kgo.Record) { fmt.Printf("record %d\n", r.Offset) })
	}
	return 0
}

// proc is a child process with its stdout lines on a channel.
type proc struct {
	cmd   *exec.Cmd
	lines chan string
	done  chan struct{}
	err   error // after done
	mu    sync.Mutex
	out   []string
}

// startProc re-executes the test binary as what (kreactor or kgo) with args.
func startProc(t *testing.T, what string, args ...string) *proc {
	t.Helper()
	js, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envSubprocess+"="+what, envArgs+"="+string(js))
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, lines: make(chan string, 1<<16), done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.mu.Lock()
			p.out = append(p.out, sc.Text())
			p.mu.Unlock()
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() { p.stop(t) })
	return p
}

// stop sends SIGTERM and waits up to 10 s (then kills); it returns the
// exit error and how long the exit took.
func (p *proc) stop(t *testing.T) (error, time.Duration) {
	t.Helper()
	start := time.Now()
	select {
	case <-p.done:
		return p.err, 0
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return p.err, time.Since(start)
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Errorf("process %d did not exit within 10 s of SIGTERM", p.cmd.Process.Pid)
		return p.err, time.Since(start)
	}
}

// waitLine returns the first line with prefix within d.
func (p *proc) waitLine(t *testing.T, prefix string, d time.Duration) string {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case l := <-p.lines:
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-p.done:
			t.Fatalf("process exited (%v) before printing %q", p.err, prefix)
		case <-timeout:
			t.Fatalf("no line %q within %s", prefix, d)
		}
	}
}

// served is a kreactor broker or proxy process with its addresses.
type served struct {
	*proc
	bootstrap []string
	control   string // http://host:port/v1
}

func startServed(t *testing.T, args ...string) *served {
	t.Helper()
	p := startProc(t, "kreactor", args...)
	s := &served{proc: p}
	s.bootstrap = strings.Split(strings.TrimPrefix(p.waitLine(t, "bootstrap: ", 60*time.Second), "bootstrap: "), ",")
	s.control = strings.TrimPrefix(p.waitLine(t, "control: ", 10*time.Second), "control: ")
	return s
}

// api sends a JSON request to the control API and decodes the answer into
// out (if not nil); it returns the status.
func (s *served) api(t *testing.T, method, path string, body, out any) int {
	t.Helper()
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req, _ := http.NewRequest(method, s.control+path, rd)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %d %s: %v", method, path, resp.StatusCode, data, err)
		}
	}
	if resp.StatusCode >= 300 && out == nil {
		t.Logf("%s %s: %d %s", method, path, resp.StatusCode, data)
	}
	return resp.StatusCode
}

// log reads the request log (query: the GET /v1/log parameters).
func (s *served) log(t *testing.T, query string) []control.LogEntry {
	t.Helper()
	resp, err := http.Get(s.control + "/log?" + query)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []control.LogEntry
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e control.LogEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

// waitFor polls cond every 50 ms for up to d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// epochZeroAfter reports whether client sent a ConsumerGroupHeartbeat with
// member_epoch 0 (a join) after seq.
func epochZeroAfter(t *testing.T, s *served, client string, seq uint64) bool {
	for _, e := range s.log(t, fmt.Sprintf("key=ConsumerGroupHeartbeat&client_id=%s&after=%d", client, seq+1)) {
		if e.Body["member_epoch"] == float64(0) {
			return true
		}
	}
	return false
}

// TestBrokerProcessKgo: kgo in its own process against kreactor broker in
// its own: records produced over HTTP reach it, its requests are in the
// log, a fenced heartbeat set over HTTP makes it rejoin (epoch 0), and
// SIGTERM stops the broker with exit status 0 and its ports free.
func TestBrokerProcessKgo(t *testing.T) {
	b := startServed(t, "broker", "-topics", "t:2", "-heartbeat-interval", "100ms")
	var res control.ProduceResult
	if st := b.api(t, "POST", "/produce", map[string]any{"topic": "t", "count": 10}, &res); st != 200 {
		t.Fatalf("produce: %d", st)
	}
	k := startProc(t, "kgo", strings.Join(b.bootstrap, ","), "g", "t", "kgo-proc")
	for range 10 {
		k.waitLine(t, "record ", 30*time.Second)
	}
	hbs := b.log(t, "key=ConsumerGroupHeartbeat&client_id=kgo-proc")
	if len(hbs) == 0 {
		t.Fatal("no ConsumerGroupHeartbeat of kgo-proc in the log")
	}
	mark := hbs[len(hbs)-1].Seq
	var f control.FaultState
	if st := b.api(t, "POST", "/faults", map[string]any{"kind": "error", "key": "ConsumerGroupHeartbeat", "error": "FENCED_MEMBER_EPOCH", "first": 1}, &f); st != 201 {
		t.Fatalf("POST fault: %d %+v", st, f)
	}
	waitFor(t, 20*time.Second, "kgo-proc to rejoin with member epoch 0 after the fenced heartbeat", func() bool { return epochZeroAfter(t, b, "kgo-proc", mark) })
	b.api(t, "GET", "/faults/"+f.ID, nil, &f)
	if f.Hits != 1 {
		t.Errorf("fault hits = %d, want 1 (first: 1)", f.Hits)
	}
	// It consumes on after the rejoin.
	b.api(t, "POST", "/produce", map[string]any{"topic": "t", "count": 5}, &res)
	for range 5 {
		k.waitLine(t, "record ", 30*time.Second)
	}
	if err, _ := k.stop(t); err != nil {
		t.Errorf("kgo process: %v", err)
	}
	stopAndCheckPorts(t, b)
}

// stopAndCheckPorts SIGTERMs s, wants exit status 0, and listens on every
// port it used.
func stopAndCheckPorts(t *testing.T, s *served) {
	t.Helper()
	err, took := s.stop(t)
	if err != nil {
		t.Errorf("kreactor exit: %v", err)
	}
	t.Logf("kreactor exited %s after SIGTERM", took.Round(time.Millisecond))
	hosts := append([]string{}, s.bootstrap...)
	hosts = append(hosts, strings.TrimSuffix(strings.TrimPrefix(s.control, "http://"), "/v1"))
	for _, a := range hosts {
		// The machine is shared: retry for a second before calling a
		// port not freed (a connection's teardown can lag the exit).
		var err error
		for try := 0; try < 20; try++ {
			var ln net.Listener
			if ln, err = net.Listen("tcp", a); err == nil {
				ln.Close()
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err != nil {
			t.Errorf("port of %s not freed after exit: %v", a, err)
		}
	}
}

// TestBrokerProxyFlags: bad flags are usage errors (exit 2) naming the value.
func TestBrokerProxyFlags(t *testing.T) {
	for _, c := range []struct {
		args  []string
		names string
	}{
		{[]string{"broker", "-brokers", "0"}, "-brokers 0"},
		{[]string{"broker", "-topics", "t:zero"}, `"t:zero"`},
		{[]string{"broker", "-ports", "1,99999"}, `"99999"`},
		{[]string{"broker", "-brokers", "2", "-ports", "19092"}, "Ports"},
		{[]string{"broker", "-control", "nowhere"}, `"nowhere"`},
		{[]string{"broker", "-log-bodies", "Fetch,Nope"}, `"Nope"`},
		{[]string{"broker", "-max-records", "0"}, "-max-records 0"},
		{[]string{"broker", "extra"}, `"extra"`},
		{[]string{"proxy"}, "-upstream is required"},
		{[]string{"proxy", "-upstream", "10.0.0.1:9092", "-wait", "1s"}, "not loopback"},
	} {
		code, _, stderr := runCLI(c.args...)
		if code == 0 || !strings.Contains(stderr, c.names) {
			t.Errorf("kreactor %v: exit %d, stderr %q; want an error naming %s", c.args, code, stderr, c.names)
		}
	}
}
