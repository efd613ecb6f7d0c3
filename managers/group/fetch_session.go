package group

// Fetch sessions (KIP-227), one per broker: the broker keeps the session's
// partitions and their fetch positions, so an incremental Fetch names only
// the partitions that are new or changed (fetch offset, leader epoch, max
// bytes) and forgets those no longer fetched (ForgottenTopics); unchanged
// partitions are omitted. As Java's FetchSessionHandler: the session holds
// exactly the partitions of the latest request to that broker.
//
// Epochs (FetchRequest.SessionEpoch): 0 is a full fetch that opens a session
// (SessionID 0) or closes the given one and opens a new one; the answer's
// SessionID is the session (0: the broker keeps none, so the next fetch is
// full again); each good incremental answer moves the epoch on by one (after
// 2147483647 comes 1); -1 closes the session (the final request on close).
// FETCH_SESSION_ID_NOT_FOUND opens a new session; any other error answer,
// INVALID_FETCH_SESSION_EPOCH included, and a failed request close the
// session and open a new one (managers.ClassSessionReset).

import (
	"math"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
)

// Fetch session epochs with a meaning of their own (KIP-227).
const (
	sessionEpochFull  int32 = 0  // full fetch: open a session
	sessionEpochFinal int32 = -1 // close the session
)

// sessionPart is a partition as the broker holds it in a session: what the
// last request naming it sent.
type sessionPart struct {
	offset      int64
	leaderEpoch int32
	maxBytes    int32
	topicID     [16]byte
}

// fetchSession is this consumer's view of its fetch session with one
// broker. Loop goroutine only.
type fetchSession struct {
	id    int32 // 0: none
	epoch int32 // the next request's epoch: 0 full, > 0 incremental
	parts map[managers.TopicPartition]sessionPart
	// resets counts session errors since the last good answer: the first
	// reset refetches at once, later ones back off.
	resets int
}

// sessionFetch is one Fetch's place in its session: what it names, what it
// forgets, and the session's partitions once the broker accepts it.
type sessionFetch struct {
	id, epoch int32
	send      []managers.TopicPartition // named in the request
	forget    []managers.TopicPartition // in ForgottenTopics
	parts     map[managers.TopicPartition]sessionPart
}

// plan returns the request for fetching want (every partition the broker is
// to fetch, in order, with their positions in parts).
func (s *fetchSession) plan(want []managers.TopicPartition, parts map[managers.TopicPartition]sessionPart) sessionFetch {
	sf := sessionFetch{id: s.id, epoch: s.epoch, parts: parts}
	if s.epoch == sessionEpochFull {
		sf.send = want
		return sf
	}
	for _, tp := range want {
		if old, ok := s.parts[tp]; !ok || old != parts[tp] {
			sf.send = append(sf.send, tp)
		}
	}
	for tp := range s.parts {
		if _, ok := parts[tp]; !ok {
			sf.forget = append(sf.forget, tp)
		}
	}
	return sf
}

// accepted moves the session on after a good answer (top-level error code 0)
// to sf; respID is the answer's SessionID.
func (s *fetchSession) accepted(sf sessionFetch, respID int32) {
	s.resets = 0
	switch {
	case sf.epoch == sessionEpochFull && respID == 0:
		// The broker keeps no session (cache full, or sessions off):
		// fetch in full again.
		s.id, s.epoch, s.parts = 0, sessionEpochFull, nil
	case sf.epoch == sessionEpochFull:
		s.id, s.epoch, s.parts = respID, 1, sf.parts
	default:
		s.parts = sf.parts
		if s.epoch == math.MaxInt32 {
			s.epoch = 1
		} else {
			s.epoch++
		}
	}
}

// failed resets the session after an error answer with code (0 for a
// request that failed without an answer): FETCH_SESSION_ID_NOT_FOUND opens
// a new session; anything else closes this one and opens a new one.
func (s *fetchSession) failed(code int16) {
	s.resets++
	if code == kerr.FetchSessionIDNotFound.Code {
		s.id = 0
	}
	s.epoch, s.parts = sessionEpochFull, nil
}

// closeRequest is the final Fetch of an open session: SessionEpoch -1, no
// partitions (Java's FetchRequestManager close).
func (s *fetchSession) closeRequest(replicaMaxWait int32) *kmsg.FetchRequest {
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID = -1
	req.MaxWaitMillis = replicaMaxWait
	req.SessionID = s.id
	req.SessionEpoch = sessionEpochFinal
	return req
}
