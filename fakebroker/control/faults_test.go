package control

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// TestFaultTriggers: a FindCoordinator error fault set over HTTP reaches a
// client on the trigger it names, and its hits count what it did.
func TestFaultTriggers(t *testing.T) {
	e := newEnv(t, Config{})
	cl := e.client(t)
	code := kerr.CoordinatorLoadInProgress.Code
	cases := []struct {
		name string
		req  map[string]any
		want []bool // per request: faulted?
	}{
		{"always", map[string]any{}, []bool{true, true, true}},
		{"once", map[string]any{"first": 1}, []bool{true, false, false}},
		{"times", map[string]any{"first": 2}, []bool{true, true, false}},
		{"nth", map[string]any{"nth": 2}, []bool{false, true, false}},
		{"probability 1", map[string]any{"probability": 1, "seed": 7}, []bool{true, true, true}},
		{"where matches", map[string]any{"where": map[string]any{"coordinator_type": 0}}, []bool{true, true}},
		{"where does not match", map[string]any{"where": map[string]any{"coordinator_type": 1}}, []bool{false, false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := map[string]any{"kind": "error", "key": "FindCoordinator", "error": "COORDINATOR_LOAD_IN_PROGRESS"}
			for k, v := range c.req {
				body[k] = v
			}
			st, data := e.do(t, "POST", "/v1/faults", body)
			if st != 201 {
				t.Fatalf("POST: %d %s", st, data)
			}
			var f FaultState
			if err := json.Unmarshal(data, &f); err != nil {
				t.Fatal(err)
			}
			hits := 0
			for i, want := range c.want {
				got := findCoordinator(t, cl, "g") == code
				if got != want {
					t.Errorf("request %d: faulted = %v, want %v", i+1, got, want)
				}
				if want {
					hits++
				}
			}
			st, data = e.do(t, "DELETE", "/v1/faults/"+f.ID, nil)
			if st != 200 {
				t.Fatalf("DELETE: %d %s", st, data)
			}
			var healed FaultState
			_ = json.Unmarshal(data, &healed)
			if !healed.Healed || healed.Hits != hits {
				t.Errorf("after DELETE: healed %v hits %d, want true and %d", healed.Healed, healed.Hits, hits)
			}
			if findCoordinator(t, cl, "g") != 0 {
				t.Error("healed fault still answers")
			}
		})
	}
}

// TestProbabilitySeeded: the same seed faults the same requests.
func TestProbabilitySeeded(t *testing.T) {
	e := newEnv(t, Config{})
	cl := e.client(t)
	run := func() []bool {
		st, data := e.do(t, "POST", "/v1/faults", map[string]any{"kind": "error", "key": "FindCoordinator", "error": "COORDINATOR_LOAD_IN_PROGRESS", "probability": 0.5, "seed": 42})
		if st != 201 {
			t.Fatalf("POST: %d %s", st, data)
		}
		var out []bool
		for range 20 {
			out = append(out, findCoordinator(t, cl, "g") != 0)
		}
		e.do(t, "DELETE", "/v1/faults", nil)
		return out
	}
	a, b := run(), run()
	n := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("seed 42: runs differ at request %d: %v vs %v", i, a, b)
		}
		if a[i] {
			n++
		}
	}
	if n == 0 || n == 20 {
		t.Errorf("probability 0.5 faulted %d of 20", n)
	}
}

// TestFaultExpires: expires heals the fault by itself.
func TestFaultExpires(t *testing.T) {
	e := newEnv(t, Config{})
	cl := e.client(t)
	st, data := e.do(t, "POST", "/v1/faults", map[string]any{"kind": "error", "key": "FindCoordinator", "error": "COORDINATOR_LOAD_IN_PROGRESS", "expires": "200ms"})
	if st != 201 {
		t.Fatalf("POST: %d %s", st, data)
	}
	var f FaultState
	_ = json.Unmarshal(data, &f)
	if f.ExpiresAt == nil {
		t.Fatal("no expires_at")
	}
	if findCoordinator(t, cl, "g") == 0 {
		t.Fatal("fault not active before expiry")
	}
	deadline := time.Now().Add(testTimeout)
	for findCoordinator(t, cl, "g") != 0 {
		if time.Now().After(deadline) {
			t.Fatal("fault did not expire")
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, data = e.do(t, "GET", "/v1/faults/"+f.ID, nil)
	_ = json.Unmarshal(data, &f)
	if !f.Healed {
		t.Errorf("expired fault: healed = false")
	}
}

// TestFaultKinds installs every kind of the vocabulary once and heals it.
func TestFaultKinds(t *testing.T) {
	e := newEnv(t, Config{})
	for _, body := range []map[string]any{
		{"kind": "coordinator-unavailable", "group": "g"},
		{"kind": "error", "key": "OffsetCommit", "error": "NOT_COORDINATOR", "topic": "t"},
		{"kind": "hold", "key": "JoinGroup", "node": 1},
		{"kind": "hold", "key": "Heartbeat", "node": "coordinator", "group": "g"},
		{"kind": "delay", "key": "Fetch", "delay": "10ms", "where": map[string]any{"isolation_level": 0}},
		{"kind": "brokers-down", "node": 2},
		{"kind": "black-hole", "node": "coordinator", "group": "g"},
		{"kind": "refuse", "node": 0},
		{"kind": "restart", "node": 0, "downtime": "50ms"},
		{"kind": "stop-broker", "node": 2},
	} {
		st, data := e.do(t, "POST", "/v1/faults", body)
		if st != 201 {
			t.Errorf("%v: %d %s", body, st, data)
		}
		// A refuse on node 0 and a restart of it overlap: heal each
		// before the next.
		e.do(t, "DELETE", "/v1/faults", nil)
	}
}

// syncBuffer is a bytes.Buffer safe for the logger's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestFaultHealsLogged: the logger gets a line per heal, as per install,
// saying what healed it.
func TestFaultHealsLogged(t *testing.T) {
	var buf syncBuffer
	e := newEnv(t, Config{Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	waitFor := func(w string) {
		t.Helper()
		deadline := time.Now().Add(testTimeout)
		for !strings.Contains(buf.String(), `msg="control: fault healed" `+w) {
			if time.Now().After(deadline) {
				t.Fatalf("log lacks a heal line with %q:\n%s", w, buf.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	install := func(body map[string]any) {
		t.Helper()
		if st, data := e.do(t, "POST", "/v1/faults", body); st != 201 {
			t.Fatalf("%v: %d %s", body, st, data)
		}
	}
	install(map[string]any{"kind": "hold", "key": "Fetch", "expires": "20ms"})
	waitFor("id=f1 kind=hold by=expiry")
	install(map[string]any{"kind": "hold", "key": "Heartbeat"})
	install(map[string]any{"kind": "hold", "key": "JoinGroup"})
	e.do(t, "DELETE", "/v1/faults/f2", nil)
	waitFor("id=f2 kind=hold by=delete")
	e.do(t, "POST", "/v1/reset", nil)
	waitFor("id=f3 kind=hold by=reset")
}
