package proxy

import (
	"encoding/binary"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// maxFetchSessions bounds the fetch sessions the proxy tracks; beyond it an
// arbitrary tracked session is forgotten (a Fetch fault then sees only the
// partitions that session's requests name).
const maxFetchSessions = 4096

// fetchPart is one partition of a fetch session: by name (Fetch v7-12) or
// by topic id (v13+).
type fetchPart struct {
	topic     string
	id        [16]byte
	partition int32
}

type sessionKey struct {
	node int32
	id   int32
}

// fetchSessions tracks KIP-227 fetch sessions (per node and session id, the
// partitions in the session) so a Fetch fault can answer for partitions an
// incremental request does not name. Safe for concurrent use.
type fetchSessions struct {
	mu sync.Mutex
	m  map[sessionKey]map[fetchPart]struct{} // guarded by mu
}

// requestParts returns the partitions req names, and those it forgets.
func requestParts(req *kmsg.FetchRequest) (named, forgotten []fetchPart) {
	for _, t := range req.Topics {
		for _, tp := range t.Partitions {
			named = append(named, fetchPart{t.Topic, t.TopicID, tp.Partition})
		}
	}
	for _, t := range req.ForgottenTopics {
		for _, part := range t.Partitions {
			forgotten = append(forgotten, fetchPart{t.Topic, t.TopicID, part})
		}
	}
	return named, forgotten
}

// parts returns the partitions req covers on node: those it names plus, for
// an incremental request (epoch > 0), the rest of its session, minus those it
// forgets.
func (s *fetchSessions) parts(node int32, req *kmsg.FetchRequest) []fetchPart {
	named, forgotten := requestParts(req)
	if req.Version < 7 || req.SessionEpoch <= 0 {
		return named
	}
	set := make(map[fetchPart]struct{}, len(named))
	for _, fp := range named {
		set[fp] = struct{}{}
	}
	s.mu.Lock()
	for fp := range s.m[sessionKey{node, req.SessionID}] {
		set[fp] = struct{}{}
	}
	s.mu.Unlock()
	for _, fp := range forgotten {
		delete(set, fp)
	}
	out := make([]fetchPart, 0, len(set))
	for fp := range set {
		out = append(out, fp)
	}
	return out
}

// observe updates the sessions from req, sent to node, and raw, the broker's
// answer (only its top-level ErrorCode and SessionID are read). It returns
// an error wrapping wire.ErrMalformed if raw is too short for them.
func (s *fetchSessions) observe(node int32, rq *request, req *kmsg.FetchRequest, raw []byte) error {
	if req.Version < 7 {
		return nil
	}
	at, err := rq.ResponseBodyAt(raw)
	if err != nil {
		return err
	}
	const headLen = 4 + 2 + 4 // ThrottleMillis, ErrorCode, SessionID
	if len(raw)-at < headLen {
		return malformed("fetch v%d response body of %d bytes: shorter than its %d-byte session fields", req.Version, len(raw)-at, headLen)
	}
	head := raw[at : at+headLen]
	code := int16(binary.BigEndian.Uint16(head[4:]))
	id := int32(binary.BigEndian.Uint32(head[6:]))

	named, forgotten := requestParts(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	old := sessionKey{node, req.SessionID}
	switch {
	case req.SessionEpoch <= 0: // -1 closes / no session; 0 starts a new full session
		if req.SessionID != 0 {
			delete(s.m, old)
		}
		if req.SessionEpoch == 0 && code == 0 && id > 0 {
			set := make(map[fetchPart]struct{}, len(named))
			for _, fp := range named {
				set[fp] = struct{}{}
			}
			s.putLocked(sessionKey{node, id}, set)
		}
	case code != 0:
		delete(s.m, old)
	default: // incremental
		set := s.m[old]
		if set == nil {
			set = make(map[fetchPart]struct{})
		}
		for _, fp := range named {
			set[fp] = struct{}{}
		}
		for _, fp := range forgotten {
			delete(set, fp)
		}
		delete(s.m, old)
		if id > 0 {
			s.putLocked(sessionKey{node, id}, set)
		}
	}
	return nil
}

// putLocked stores a session, evicting an arbitrary one when full.
func (s *fetchSessions) putLocked(k sessionKey, set map[fetchPart]struct{}) {
	if s.m == nil {
		s.m = make(map[sessionKey]map[fetchPart]struct{})
	}
	if _, ok := s.m[k]; !ok && len(s.m) >= maxFetchSessions {
		for old := range s.m {
			delete(s.m, old)
			break
		}
	}
	s.m[k] = set
}
