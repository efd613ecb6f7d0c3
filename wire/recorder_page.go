package wire

// Sequenced is a recorded request with its sequence number: its position
// in arrival order since the Recorder started, from 0. Numbers only grow:
// a Reset does not restart them, and evicted requests keep theirs, so a
// reader paging with Since sees a gap (Dropped grew, or a Reset forgot
// requests) rather than a request twice or none at all.
type Sequenced struct {
	Seq uint64
	Request
}

// Since returns, oldest first, at most limit kept requests with sequence
// number >= from that match f, and the sequence number to ask for next
// (one past the last request examined; a reader that passes it back sees
// each request at most once). Requests evicted before from was reached
// are skipped. limit < 1 means no limit.
func (r *Recorder) Since(from uint64, limit int, f Filter) (out []Sequenced, next uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	first := r.first // sequence number of the oldest kept request
	end := first + uint64(len(r.ring))
	next = max(from, first)
	for ; next < end; next++ {
		if limit > 0 && len(out) >= limit {
			break
		}
		q := r.ring[(r.start+int(next-first))%len(r.ring)]
		if f.Match(q) {
			out = append(out, Sequenced{Seq: next, Request: q})
		}
	}
	return out, next
}

// Recorded returns how many requests were recorded since start or the last
// Reset (kept plus Dropped).
func (r *Recorder) Recorded() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped + uint64(len(r.ring))
}

// NextSeq returns the sequence number the next request will get: every
// request recorded since start, across Resets.
func (r *Recorder) NextSeq() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.first + uint64(len(r.ring))
}
