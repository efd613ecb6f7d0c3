package control

import (
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// faultEntry is one fault the API installed.
type faultEntry struct {
	id        string // set once, under Server.mu, before the entry is shared
	req       FaultRequest
	f         Fault
	nodes     []int32
	installed time.Time
	expiresAt *time.Time
	log       *slog.Logger // the Server's: heals are logged as installs are

	once     sync.Once
	mu       sync.Mutex
	timer    *time.Timer // guarded by mu; expiry, nil without one
	healedAt *time.Time  // guarded by mu
}

// heal heals the fault once; by says what healed it (delete, expiry,
// reset, close), for the log.
func (e *faultEntry) heal(by string) {
	e.once.Do(func() {
		e.mu.Lock()
		if e.timer != nil {
			e.timer.Stop()
		}
		e.mu.Unlock()
		e.f.Heal()
		now := time.Now()
		e.mu.Lock()
		e.healedAt = &now
		e.mu.Unlock()
		if e.log != nil {
			e.log.Info("control: fault healed", "id", e.id, "kind", e.req.Kind, "by", by)
		}
	})
}

func (e *faultEntry) healed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.healedAt != nil
}

func (e *faultEntry) state() FaultState {
	e.mu.Lock()
	defer e.mu.Unlock()
	return FaultState{ID: e.id, Fault: e.req, Nodes: e.nodes, Hits: e.f.Hits(), Installed: e.installed,
		ExpiresAt: e.expiresAt, Healed: e.healedAt != nil, HealedAt: e.healedAt}
}

// installedLocked counts faults not healed.
func (s *Server) installedLocked() int {
	n := 0
	for _, e := range s.faults {
		if !e.healed() {
			n++
		}
	}
	return n
}

// forgetLocked drops the oldest healed faults beyond MaxFaults.
func (s *Server) forgetLocked() {
	for len(s.faults) > MaxFaults {
		i := 0
		for i < len(s.faults) && !s.faults[i].healed() {
			i++
		}
		if i == len(s.faults) {
			return
		}
		s.faults = append(s.faults[:i], s.faults[i+1:]...)
	}
}

func (s *Server) entry(id string) (*faultEntry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.faults {
		if e.id == id {
			return e, nil
		}
	}
	return nil, &Error{Status: http.StatusNotFound, Field: "id", Value: id, Msg: "no such fault (GET /v1/faults lists them)"}
}

// healAll heals every fault (by says what asked, for the log) and
// returns how many were not healed before.
func (s *Server) healAll(by string) int {
	s.mu.Lock()
	all := append([]*faultEntry(nil), s.faults...)
	s.mu.Unlock()
	n := 0
	for _, e := range all {
		if !e.healed() {
			n++
		}
		e.heal(by)
	}
	return n
}

func (s *Server) listFaults(w http.ResponseWriter, _ *http.Request) error {
	s.mu.Lock()
	all := append([]*faultEntry(nil), s.faults...)
	s.mu.Unlock()
	out := make([]FaultState, 0, len(all))
	for _, e := range all {
		out = append(out, e.state())
	}
	writeJSON(w, 200, out)
	return nil
}

func (s *Server) getFault(w http.ResponseWriter, r *http.Request) error {
	e, err := s.entry(r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, 200, e.state())
	return nil
}

func (s *Server) deleteFault(w http.ResponseWriter, r *http.Request) error {
	e, err := s.entry(r.PathValue("id"))
	if err != nil {
		return err
	}
	e.heal("delete")
	writeJSON(w, 200, e.state())
	return nil
}

func (s *Server) deleteFaults(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, 200, Healed{Healed: s.healAll("delete")})
	return nil
}

func (s *Server) reset(w http.ResponseWriter, _ *http.Request) error {
	n := s.healAll("reset")
	s.mu.Lock()
	s.faults = nil
	s.mu.Unlock()
	rec := s.cfg.Backend.Recorder()
	rec.Reset()
	rec.KeepBodies(s.cfg.LogBodies...)
	writeJSON(w, 200, Healed{Healed: n})
	return nil
}
