package java

import "sync"

// tailBuffer keeps the last max bytes written to it (the driver's stderr)
// and counts everything written. Safe for concurrent use: exec's copying
// goroutine writes, any goroutine reads.
type tailBuffer struct {
	mu    sync.Mutex
	max   int
	buf   []byte // guarded by mu; at most 2*max bytes, the tail is what counts
	total int64  // guarded by mu; bytes ever written
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(len(p))
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return len(p), nil
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

// String returns the last max bytes, prefixed by a note when older output
// was dropped.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > t.max {
		b = b[len(b)-t.max:]
	}
	if t.total > int64(len(b)) {
		return "[... earlier output dropped ...]\n" + string(b)
	}
	return string(b)
}
