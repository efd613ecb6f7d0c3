package fakebroker

import (
	"encoding/binary"
	"net"
	"slices"
	"sync"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/wire"
)

// Where kfake's answer differs from Apache Kafka 4.4's in a way clients or
// specs trip on, the Broker corrects kfake's response on its way to the
// client: kfake handles every request in full (faults, observers, controls,
// coordinator checks, group state), and only the bytes it answers with are
// rewritten. Each correction is one function per API, in files named after
// kfake's (answers_NN_name.go), and each states the Kafka behaviour it
// restores, measured against a real 4.4.0 broker by the fidelity suite
// (specs/fidelity). Config.KfakeAnswers turns them off.
//
// The mechanism: the tap keeps the whole request frame of every API with a
// correction (wire.RequestStream's Keep), by correlation id per connection;
// when kfake writes the response with that correlation id, the response is
// parsed at the request's version, corrected, and re-encoded. kfake writes
// each response with one Write of the whole frame; a response split over
// several writes is reassembled.
//
// One difference is in when kfake answers, which no rewrite can change: a
// Fetch with no partition to read is answered at once instead of after its
// MaxWaitMillis by a pass-through control that lowers the wait before kfake
// handles the request (answers_01_fetch.go). The tap keeps Fetch v7+
// requests until their answers only to follow the fetch sessions it needs
// for that; their bytes pass as kfake writes them. Nor can a rewrite undo
// what kfake applied: a ConsumerGroupHeartbeat Kafka refuses before it
// reaches the group is refused by kfake faults installed by Start, kept
// after every fault installed through the Broker, and the rewrite adds
// Kafka's message (answers_68_consumer_group_heartbeat.go).
//
// Codes the spec asked for stay: an error a fault installed through the
// Broker injects is never corrected away (Broker.injects). An answer a
// control installed on kfake directly (Cluster().ControlKey) makes is
// corrected like kfake's own.

// answerFunc corrects resp, kfake's answer to req, where Kafka answers
// differently, and reports whether it changed anything. It runs on the
// goroutine writing the client's connection; cluster lookups go through
// Broker.lookup.
type answerFunc func(b *Broker, req kmsg.Request, resp kmsg.Response) bool

// answers are the corrections by API key.
var answers = map[kmsg.Key]answerFunc{
	kmsg.OffsetCommit:           answerOffsetCommit,
	kmsg.OffsetFetch:            answerOffsetFetch,
	kmsg.OffsetForLeaderEpoch:   answerOffsetForLeaderEpoch,
	kmsg.FindCoordinator:        answerFindCoordinator,
	kmsg.ConsumerGroupHeartbeat: answerConsumerGroupHeartbeat,
	kmsg.ShareGroupHeartbeat:    answerShareGroupHeartbeat,
	kmsg.ShareFetch:             answerShareFetch,
}

// lookup runs fn with the kfake cluster unless the Broker has started
// closing it, and reports whether fn ran. kfake's query methods (GroupInfo,
// TopicIDInfo) block forever once the cluster is closed, so connection
// goroutines only query through lookup, which Close waits for.
func (b *Broker) lookup(fn func(c *kfake.Cluster)) bool {
	b.liveMu.RLock()
	defer b.liveMu.RUnlock()
	if b.gone {
		return false
	}
	fn(b.cluster)
	return true
}

// groupUnknown reports whether kfake has no group (classic, consumer or
// share) named group; false when the cluster is closing.
func (b *Broker) groupUnknown(group string) bool {
	var unknown bool
	b.lookup(func(c *kfake.Cluster) { unknown = c.GroupInfo(group) == nil })
	return unknown
}

// topicIDUnknown reports whether kfake has no topic with id; false when the
// cluster is closing.
func (b *Broker) topicIDUnknown(id [16]byte) bool {
	var unknown bool
	b.lookup(func(c *kfake.Cluster) { unknown = c.TopicIDInfo(id) == nil })
	return unknown
}

// injects reports whether an installed fault (Fault, AnswerKeyWithError,
// CoordinatorUnavailable) answers requests with key with the error code,
// so a correction leaves a code the spec asked for alone.
func (b *Broker) injects(key kmsg.Key, code int16) bool {
	return b.anyFault(key, func(f kfake.Fault) bool { return f.Err != nil && f.Err.Code == code })
}

// injectsAny reports whether an installed fault answers requests with key
// with any error.
func (b *Broker) injectsAny(key kmsg.Key) bool {
	return b.anyFault(key, func(kfake.Fault) bool { return true })
}

// anyFault reports whether an installed, answering (not observing) fault
// that applies to key satisfies match.
func (b *Broker) anyFault(key kmsg.Key, match func(kfake.Fault) bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for h := range b.handles {
		for _, f := range h.faults {
			if f.Observe || !match(f) {
				continue
			}
			if len(f.Keys) == 0 || slices.Contains(f.Keys, key) {
				return true
			}
		}
	}
	return false
}

// connAnswers corrects the responses on one client connection.
type connAnswers struct {
	b    *Broker
	node int32 // the connection's broker; -1 unknown

	mu      sync.Mutex
	pending map[int32]*wire.RequestFrame // guarded by mu; kept requests by correlation id

	// The write side: only Write touches these, and kfake writes a
	// connection from one goroutine at a time.
	hdr    []byte             // size prefix and correlation id of the current frame so far
	pass   int64              // bytes of the current frame to pass through as they are
	frame  []byte             // the current frame, held whole because it answers a kept request
	need   int64              // bytes frame still lacks
	held   *wire.RequestFrame // the request frame answers
	broken bool               // a malformed size was seen: pass everything through
}

func newConnAnswers(b *Broker, node int32) *connAnswers {
	return &connAnswers{b: b, node: node, pending: make(map[int32]*wire.RequestFrame)}
}

// keep selects the request frames to hold: those of APIs with a correction,
// and the Fetches whose answers move the fetch sessions on.
func (a *connAnswers) keep(h wire.RequestHeader) bool {
	_, ok := answers[h.Key]
	return ok || tracksFetchSessions(h)
}

// onFrame remembers rf, a kept request frame as parsed (nil: it could not
// be), until its response.
func (a *connAnswers) onFrame(rf *wire.RequestFrame) {
	if rf == nil || rf.Body == nil {
		return // kfake closes the connection on what it cannot read
	}
	a.mu.Lock()
	a.pending[rf.CorrelationID] = rf
	a.mu.Unlock()
}

// take returns and forgets the kept request with correlation id corr.
func (a *connAnswers) take(corr int32) *wire.RequestFrame {
	a.mu.Lock()
	defer a.mu.Unlock()
	rf := a.pending[corr]
	delete(a.pending, corr)
	return rf
}

// answer returns frame, a whole response frame answering rf, corrected.
func (a *connAnswers) answer(rf *wire.RequestFrame, frame []byte) []byte {
	if rf.Key == kmsg.Fetch {
		return a.b.answerFetchSessions(a.node, rf, frame)
	}
	fix := answers[rf.Key]
	resp, at, err := rf.ParseResponse(frame)
	if err != nil {
		a.b.log.Warn("fakebroker: cannot read kfake's response; sent as is", "key", kmsg.NameForKey(int16(rf.Key)), "version", rf.Version, "err", err)
		return frame
	}
	if !fix(a.b, rf.Body, resp) {
		return frame
	}
	return wire.WithResponseBody(frame, at, resp)
}

// write writes b, the next bytes kfake writes to the client, to conn with
// the responses to kept requests corrected. It returns len(b) unless conn
// fails.
func (a *connAnswers) write(conn net.Conn, b []byte) (int, error) {
	n := len(b)
	if a.broken {
		return conn.Write(b)
	}
	// The usual case: one whole response frame per Write.
	if len(a.hdr) == 0 && a.pass == 0 && a.frame == nil && len(b) >= wire.SizeLen+wire.MinResponseSize &&
		int64(binary.BigEndian.Uint32(b))+wire.SizeLen == int64(len(b)) {
		out := b
		if rf := a.take(int32(binary.BigEndian.Uint32(b[wire.SizeLen:]))); rf != nil {
			out = a.answer(rf, b)
		}
		if _, err := conn.Write(out); err != nil {
			return 0, err
		}
		return n, nil
	}
	var out []byte
	for len(b) > 0 && !a.broken {
		switch {
		case a.pass > 0:
			k := min(int64(len(b)), a.pass)
			out, b, a.pass = append(out, b[:k]...), b[k:], a.pass-k
		case a.frame != nil:
			k := min(int64(len(b)), a.need)
			a.frame, b, a.need = append(a.frame, b[:k]...), b[k:], a.need-k
			if a.need == 0 {
				out = append(out, a.answer(a.held, a.frame)...)
				a.frame, a.held = nil, nil
			}
		default:
			k := min(len(b), wire.SizeLen+wire.MinResponseSize-len(a.hdr))
			a.hdr, b = append(a.hdr, b[:k]...), b[k:]
			if len(a.hdr) < wire.SizeLen+wire.MinResponseSize {
				continue
			}
			size := int64(int32(binary.BigEndian.Uint32(a.hdr)))
			if size < wire.MinResponseSize {
				a.broken = true // cannot frame what follows: pass it through
				out = append(out, a.hdr...)
				break
			}
			rest := size - wire.MinResponseSize
			if rf := a.take(int32(binary.BigEndian.Uint32(a.hdr[wire.SizeLen:]))); rf != nil {
				a.frame = append(make([]byte, 0, wire.SizeLen+size), a.hdr...)
				a.held, a.need = rf, rest
				if rest == 0 {
					out = append(out, a.answer(rf, a.frame)...)
					a.frame, a.held = nil, nil
				}
			} else {
				out, a.pass = append(out, a.hdr...), rest
			}
			a.hdr = a.hdr[:0]
		}
	}
	out = append(out, b...) // after a malformed size: the rest as is
	if len(out) > 0 {
		if _, err := conn.Write(out); err != nil {
			return 0, err
		}
	}
	return n, nil
}
