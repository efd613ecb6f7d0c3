package kgo

import (
	"context"
	"sync"
)

// callbackQueue holds application callbacks completed on kgo's goroutines
// (commit and acknowledgement outcomes) until the application goroutine
// runs them during its next call, which is Java's contract: a commit
// callback never runs on another thread. kgo itself calls such callbacks
// on its own goroutines; this queue is the emulation.
type callbackQueue struct {
	mu  sync.Mutex
	fns []func() // guarded by mu; oldest first
}

// push queues fn; safe from any goroutine.
func (q *callbackQueue) push(fn func()) {
	q.mu.Lock()
	q.fns = append(q.fns, fn)
	q.mu.Unlock()
}

// run runs every queued callback in order on the calling (application)
// goroutine, including any a callback queues. A panicking callback panics
// the caller, as it would in Java; the callbacks behind it stay queued.
func (q *callbackQueue) run() {
	for {
		q.mu.Lock()
		if len(q.fns) == 0 {
			q.mu.Unlock()
			return
		}
		fn := q.fns[0]
		q.fns[0] = nil
		q.fns = q.fns[1:]
		q.mu.Unlock()
		fn()
	}
}

// len is the number of queued callbacks.
func (q *callbackQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.fns)
}

// inflight counts operations started on other goroutines (async commits)
// so Close can wait for them.
type inflight struct {
	mu   sync.Mutex
	n    int           // guarded by mu
	zero chan struct{} // guarded by mu; closed when n drops to 0, replaced on 0 -> 1
}

func (f *inflight) add() {
	f.mu.Lock()
	if f.n == 0 {
		f.zero = make(chan struct{})
	}
	f.n++
	f.mu.Unlock()
}

func (f *inflight) done() {
	f.mu.Lock()
	f.n--
	if f.n == 0 {
		close(f.zero)
	}
	f.mu.Unlock()
}

// wait blocks until nothing is in flight or ctx is done (ctx.Err()).
func (f *inflight) wait(ctx context.Context) error {
	f.mu.Lock()
	if f.n == 0 {
		f.mu.Unlock()
		return nil
	}
	zero := f.zero
	f.mu.Unlock()
	select {
	case <-zero:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
