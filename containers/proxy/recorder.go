package proxy

import (
	"sync"
	"time"

	"github.com/kreactor/kreactor/fakebroker"
)

// DefaultMaxRecords is how many requests a Recorder keeps unless
// Config.MaxRecords says otherwise.
const DefaultMaxRecords = 1_000_000

// Recorder keeps the requests clients sent through the proxy, in the order
// the proxy read them (across connections that is arrival order up to
// scheduling jitter). It has the API of fakebroker.Recorder and records the
// same type (fakebroker.Request, selected with fakebroker.Filter), so it
// satisfies harness.Recorder. Node is the node id of the listener the request
// arrived on; Conn numbers client connections from 1 within one Proxy; At is
// when the proxy read the frame's size prefix. Requests are recorded on
// arrival, before faults act on them, so a request pipelined behind a held
// one is still recorded when it arrives.
//
// It keeps at most its capacity: when full, each new request evicts the
// oldest one (counted by Dropped). All methods are safe for concurrent use and
// never block on connections.
type Recorder struct {
	max int // capacity, fixed at creation

	mu        sync.Mutex
	ring      []fakebroker.Request // guarded by mu; len <= max; oldest at start once full
	start     int                  // guarded by mu
	dropped   uint64               // guarded by mu
	malformed uint64               // guarded by mu
}

// newRecorder returns a Recorder keeping at most max requests (max >= 1).
func newRecorder(max int) *Recorder { return &Recorder{max: max} }

// add records q, evicting the oldest record if full.
func (r *Recorder) add(q fakebroker.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.ring) < r.max {
		r.ring = append(r.ring, q)
		return
	}
	r.ring[r.start] = q
	r.start = (r.start + 1) % r.max
	r.dropped++
}

// addMalformed counts a client frame the proxy could not parse.
func (r *Recorder) addMalformed() {
	r.mu.Lock()
	r.malformed++
	r.mu.Unlock()
}

// each calls fn on every record, oldest first; r.mu must be held.
func (r *Recorder) each(fn func(fakebroker.Request)) {
	for _, q := range r.ring[r.start:] {
		fn(q)
	}
	for _, q := range r.ring[:r.start] {
		fn(q)
	}
}

// Requests returns a copy of every kept request, oldest first.
func (r *Recorder) Requests() []fakebroker.Request { return r.Filter(fakebroker.Filter{}) }

// Filter returns a copy of the kept requests that match f, oldest first.
func (r *Recorder) Filter(f fakebroker.Filter) []fakebroker.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []fakebroker.Request
	r.each(func(q fakebroker.Request) {
		if f.Match(q) {
			out = append(out, q)
		}
	})
	return out
}

// Count returns how many kept requests match f.
func (r *Recorder) Count(f fakebroker.Filter) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	r.each(func(q fakebroker.Request) {
		if f.Match(q) {
			n++
		}
	})
	return n
}

// Mark returns the current time, for a Filter's From or To: requests the
// proxy reads after Mark returns have At >= the mark.
func (r *Recorder) Mark() time.Time { return time.Now() }

// Reset forgets every kept request and zeroes Dropped and Malformed.
func (r *Recorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ring, r.start, r.dropped, r.malformed = nil, 0, 0, 0
}

// Dropped returns how many requests were evicted because the Recorder was
// full, since start or the last Reset.
func (r *Recorder) Dropped() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// Malformed returns how many client frames could not be parsed (bad size,
// header or body; each closed its connection and is not recorded), since
// start or the last Reset. Malformed broker frames are counted by
// Stats.UpstreamMalformed.
func (r *Recorder) Malformed() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.malformed
}

// Cap returns the most requests the Recorder keeps.
func (r *Recorder) Cap() int { return r.max }
