package wire

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Request is one request frame a client sent to a broker, as recorded from
// its header (RequestHeader.Record).
type Request struct {
	Key           kmsg.Key  // API key, e.g. kmsg.FindCoordinator
	Version       int16     // API version the client chose
	CorrelationID int32     // client-chosen correlation id
	ClientID      string    // client id; "" if the client sent null or empty
	Node          int32     // broker node id that received it; -1 if unknown
	Conn          uint64    // connection number, unique within one recorder's source, from 1
	Size          int32     // frame size in bytes, excluding the 4-byte length prefix
	At            time.Time // when the frame's first byte was read (by kfake or the proxy)
	// Body is the parsed request when the Recorder keeps bodies of Key
	// (KeepBodies), nil otherwise.
	Body kmsg.Request
}

// Filter selects recorded requests; every set field must match (AND). The
// zero Filter matches everything.
type Filter struct {
	Keys     []kmsg.Key // API keys to match; nil or empty means any
	ClientID string     // exact client id; "" means any
	Nodes    []int32    // broker node ids; nil or empty means any
	From     time.Time  // At >= From; zero means no lower bound
	To       time.Time  // At < To; zero means no upper bound
}

// Match reports whether r satisfies f.
func (f Filter) Match(r Request) bool {
	if len(f.Keys) > 0 && !slices.Contains(f.Keys, r.Key) {
		return false
	}
	if f.ClientID != "" && f.ClientID != r.ClientID {
		return false
	}
	if len(f.Nodes) > 0 && !slices.Contains(f.Nodes, r.Node) {
		return false
	}
	if !f.From.IsZero() && r.At.Before(f.From) {
		return false
	}
	if !f.To.IsZero() && !r.At.Before(f.To) {
		return false
	}
	return true
}

// Recorder keeps the requests every client sent to a cluster, in the order
// they were read (across connections that is arrival order up to scheduling
// jitter). It keeps at most its capacity: when full, each new request evicts
// the oldest one and is counted by Dropped. All methods are safe for
// concurrent use and never block on the cluster.
//
// Both targets record into one: fakebroker from kfake's sockets (a request
// pipelined behind a delayed or held one on the same connection is read, so
// recorded, only when that one is answered), containers/proxy on arrival at
// the proxy, before faults act.
type Recorder struct {
	max int // capacity, fixed at creation

	bodies atomic.Pointer[map[kmsg.Key]bool] // keys whose bodies are kept (KeepBodies)

	mu    sync.Mutex
	ring  []Request // guarded by mu; len <= max; oldest at start once full
	start int       // guarded by mu
	// first is the sequence number of the oldest kept request (ring[start]);
	// it only grows, across Reset too, so a reader paging or following
	// with Since never sees a number twice nor misses requests after a
	// Reset.
	first     uint64 // guarded by mu
	dropped   uint64 // guarded by mu; since start or the last Reset
	malformed uint64 // guarded by mu
}

// NewRecorder returns an empty Recorder keeping at most capacity requests
// (less than 1 means 1).
func NewRecorder(capacity int) *Recorder {
	return &Recorder{max: max(capacity, 1)}
}

// KeepBodies asks the sources recording into r to keep the parsed body of
// every request with one of keys from now on (Request.Body), in addition to
// the keys already kept. Bodies cost memory: keep only what a check reads
// (a heartbeat's member epoch, a commit's offsets).
func (r *Recorder) KeepBodies(keys ...kmsg.Key) {
	for {
		old := r.bodies.Load()
		next := map[kmsg.Key]bool{}
		if old != nil {
			maps.Copy(next, *old)
		}
		for _, k := range keys {
			next[k] = true
		}
		if r.bodies.CompareAndSwap(old, &next) {
			return
		}
	}
}

// WantsBody reports whether the sources should parse and keep the body of a
// request with key (KeepBodies).
func (r *Recorder) WantsBody(key kmsg.Key) bool {
	m := r.bodies.Load()
	return m != nil && (*m)[key]
}

// Add records q, evicting the oldest record if full.
func (r *Recorder) Add(q Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.ring) < r.max {
		r.ring = append(r.ring, q)
		return
	}
	r.ring[r.start] = q
	r.start = (r.start + 1) % r.max
	r.first++
	r.dropped++
}

// AddMalformed counts a frame whose header could not be parsed (an error
// wrapping ErrMalformed).
func (r *Recorder) AddMalformed() {
	r.mu.Lock()
	r.malformed++
	r.mu.Unlock()
}

// each calls fn on every record, oldest first, under r.mu.
func (r *Recorder) each(fn func(Request)) {
	for _, q := range r.ring[r.start:] {
		fn(q)
	}
	for _, q := range r.ring[:r.start] {
		fn(q)
	}
}

// Requests returns a copy of every kept request, oldest first.
func (r *Recorder) Requests() []Request {
	return r.Filter(Filter{})
}

// Filter returns a copy of the kept requests that match f, oldest first.
func (r *Recorder) Filter(f Filter) []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Request
	r.each(func(q Request) {
		if f.Match(q) {
			out = append(out, q)
		}
	})
	return out
}

// Count returns how many kept requests match f.
func (r *Recorder) Count(f Filter) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	var n int
	r.each(func(q Request) {
		if f.Match(q) {
			n++
		}
	})
	return n
}

// Mark returns the current time, for use as a Filter's From or To: requests
// read after Mark returns have At >= the mark.
func (r *Recorder) Mark() time.Time {
	return time.Now()
}

// Reset forgets every kept request and zeroes Dropped and Malformed.
// Sequence numbers (Sequenced.Seq, NextSeq) go on from where they were:
// the next request gets the number it would have got without the Reset.
func (r *Recorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.first += uint64(len(r.ring))
	r.ring, r.start, r.dropped, r.malformed = nil, 0, 0, 0
	r.bodies.Store(nil)
}

// Dropped returns how many requests were evicted because the Recorder was
// full, since start or the last Reset.
func (r *Recorder) Dropped() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// Malformed returns how many frames had a header too short or inconsistent to
// parse (they are not recorded), since start or the last Reset. A negative
// frame size stops parsing of that connection and counts once.
func (r *Recorder) Malformed() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.malformed
}

// Cap returns the most requests the Recorder keeps.
func (r *Recorder) Cap() int { return r.max }
