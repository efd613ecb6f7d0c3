package wire

import (
	"encoding/binary"
	"math"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// maxFetchSessions bounds the fetch sessions a FetchSessions tracks; beyond
// it an arbitrary tracked session is forgotten.
const maxFetchSessions = 4096

// FetchPart is one partition of a fetch session as its requests name it: by
// topic name (Fetch v7-12) or by topic id (v13+).
type FetchPart struct {
	Topic     string
	TopicID   [16]byte
	Partition int32
}

type fetchSessionKey struct {
	node int32
	id   int32
}

// fetchSession is one tracked session.
type fetchSession struct {
	parts map[FetchPart]struct{}
	// next is the epoch the session's next incremental request carries.
	next int32
	// partial: the session was first seen on an incremental request, so
	// parts holds only what requests named since.
	partial bool
}

// FetchSessions tracks KIP-227 fetch sessions as a broker's answers
// establish them: per node and session id, the partitions in the session
// and the epoch its next incremental request carries. Observe feeds it each
// Fetch with the broker's answer; Parts and ReadsNothing read it. The zero
// value is ready; it is safe for concurrent use.
//
// Kafka's sessions (FetchSession.scala, FetchManager.newContext): a full
// request (epoch 0) closes the session it names and opens one holding
// exactly its partitions, possibly none; epoch -1 closes the session it
// names and opens none; an incremental request (epoch > 0) adds or updates
// the partitions it names, then removes those it forgets, and a session left
// with none is closed (the answer's session id is 0).
type FetchSessions struct {
	mu sync.Mutex
	m  map[fetchSessionKey]*fetchSession // guarded by mu
}

// fullFetch reports whether req is a full (sessionless or session-opening)
// fetch: below v7, or with epoch 0 or -1.
func fullFetch(req *kmsg.FetchRequest) bool {
	return req.Version < 7 || req.SessionEpoch == 0 || req.SessionEpoch == -1
}

// requestParts returns the partitions req names, and those it forgets.
func requestParts(req *kmsg.FetchRequest) (named, forgotten []FetchPart) {
	for _, t := range req.Topics {
		for _, tp := range t.Partitions {
			named = append(named, FetchPart{t.Topic, t.TopicID, tp.Partition})
		}
	}
	for _, t := range req.ForgottenTopics {
		for _, part := range t.Partitions {
			forgotten = append(forgotten, FetchPart{t.Topic, t.TopicID, part})
		}
	}
	return named, forgotten
}

// Parts returns the partitions req covers on node: those it names plus, for
// an incremental request, the rest of its session, minus those it forgets.
func (s *FetchSessions) Parts(node int32, req *kmsg.FetchRequest) []FetchPart {
	named, forgotten := requestParts(req)
	if fullFetch(req) {
		return named
	}
	set := make(map[FetchPart]struct{}, len(named))
	for _, fp := range named {
		set[fp] = struct{}{}
	}
	s.mu.Lock()
	if fs := s.m[fetchSessionKey{node, req.SessionID}]; fs != nil {
		for fp := range fs.parts {
			set[fp] = struct{}{}
		}
	}
	s.mu.Unlock()
	for _, fp := range forgotten {
		delete(set, fp)
	}
	out := make([]FetchPart, 0, len(set))
	for fp := range set {
		out = append(out, fp)
	}
	return out
}

// ReadsNothing reports whether req, sent to node, leaves its broker no
// partition to read once its session is applied: it names none and is full
// (below v7, epoch 0 or -1), or it is the incremental request the tracked
// session expects next and forgets every partition of it. Kafka answers such
// a request at once, whatever its MaxWaitMillis (KafkaApis.handleFetchRequest
// with nothing to read; ReplicaManager.fetchMessages with no partition).
// False when unsure: a session not tracked, tracked only in part, or at
// another epoch (the broker answers that one with a session error at once
// anyway). It does not allocate.
func (s *FetchSessions) ReadsNothing(node int32, req *kmsg.FetchRequest) bool {
	for i := range req.Topics {
		if len(req.Topics[i].Partitions) > 0 {
			return false
		}
	}
	if fullFetch(req) {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fs := s.m[fetchSessionKey{node, req.SessionID}]
	if fs == nil || fs.partial || fs.next != req.SessionEpoch {
		return false
	}
	for fp := range fs.parts {
		if !forgets(req, fp) {
			return false
		}
	}
	return true
}

// forgets reports whether req's ForgottenTopics name fp.
func forgets(req *kmsg.FetchRequest, fp FetchPart) bool {
	for i := range req.ForgottenTopics {
		t := &req.ForgottenTopics[i]
		if t.Topic != fp.Topic || t.TopicID != fp.TopicID {
			continue
		}
		for _, p := range t.Partitions {
			if p == fp.Partition {
				return true
			}
		}
	}
	return false
}

// nextEpoch is the session epoch after e (Kafka's FetchMetadata.nextEpoch
// for e > 0).
func nextEpoch(e int32) int32 {
	if e == math.MaxInt32 {
		return 1
	}
	return e + 1
}

// Observe updates the sessions from rf, a Fetch request sent to node, and
// raw, the broker's whole answer to it (only its top-level ErrorCode and
// SessionID are read). Requests other than Fetch v7+ are ignored. It
// returns an error wrapping ErrMalformed if raw is too short for those
// fields.
func (s *FetchSessions) Observe(node int32, rf *RequestFrame, raw []byte) error {
	req, ok := rf.Body.(*kmsg.FetchRequest)
	if !ok || req.Version < 7 {
		return nil
	}
	at, err := rf.ResponseBodyAt(raw)
	if err != nil {
		return err
	}
	const headLen = 4 + 2 + 4 // ThrottleMillis, ErrorCode, SessionID
	if len(raw)-at < headLen {
		return malformed("fetch response body", int64(len(raw)-at), "bytes (v%d): shorter than its %d-byte session fields", req.Version, headLen)
	}
	head := raw[at : at+headLen]
	code := int16(binary.BigEndian.Uint16(head[4:]))
	id := int32(binary.BigEndian.Uint32(head[6:]))

	named, forgotten := requestParts(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	old := fetchSessionKey{node, req.SessionID}
	switch {
	case fullFetch(req):
		if req.SessionID != 0 {
			delete(s.m, old)
		}
		if req.SessionEpoch == 0 && code == 0 && id > 0 {
			fs := &fetchSession{parts: make(map[FetchPart]struct{}, len(named)), next: 1}
			for _, fp := range named {
				fs.parts[fp] = struct{}{}
			}
			s.putLocked(fetchSessionKey{node, id}, fs)
		}
	case code != 0:
		delete(s.m, old)
	default: // incremental
		fs := s.m[old]
		if fs == nil {
			fs = &fetchSession{parts: make(map[FetchPart]struct{}), partial: true}
		}
		for _, fp := range named {
			fs.parts[fp] = struct{}{}
		}
		for _, fp := range forgotten {
			delete(fs.parts, fp)
		}
		fs.next = nextEpoch(req.SessionEpoch)
		delete(s.m, old)
		if id > 0 {
			s.putLocked(fetchSessionKey{node, id}, fs)
		}
	}
	return nil
}

// putLocked stores a session, evicting an arbitrary one when full.
func (s *FetchSessions) putLocked(k fetchSessionKey, fs *fetchSession) {
	if s.m == nil {
		s.m = make(map[fetchSessionKey]*fetchSession)
	}
	if _, ok := s.m[k]; !ok && len(s.m) >= maxFetchSessions {
		for old := range s.m {
			delete(s.m, old)
			break
		}
	}
	s.m[k] = fs
}
