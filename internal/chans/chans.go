// Package chans holds the channel idioms the fault helpers, the proxy, the
// Java driver and the harness share: a non-blocking look at a channel that
// signals by being closed (a done, closing, healed or removed channel;
// never sent on), a sleep such a channel cuts short, a ticker such a
// channel stops, and a counter one can wait on until such a channel
// closes.
package chans

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Closed reports, without blocking, whether ch (a channel that is only
// ever closed) has been closed.
func Closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// Sleep waits d, or less if ch (a channel that is only ever closed, such
// as a context's Done) is closed first. It returns at once for d <= 0.
func Sleep(d time.Duration, ch <-chan struct{}) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ch:
	}
}

// Every calls f every d (the first call d from now), with the tick's time,
// until ch (a channel that is only ever closed) is closed or f returns
// false. It blocks until then; d must be > 0.
func Every(d time.Duration, ch <-chan struct{}, f func(now time.Time) bool) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ch:
			return
		case now := <-t.C:
			if !f(now) {
				return
			}
		}
	}
}

// Counter counts events (a fault's hits) for callers that wait for a count.
// Its zero value counts from 0; all methods are safe for concurrent use.
type Counter struct {
	n atomic.Int64

	mu   sync.Mutex
	next chan struct{} // guarded by mu; closed by the next Add, nil until a waiter needs one
}

// Load returns the count.
func (c *Counter) Load() int { return int(c.n.Load()) }

// Add counts one event and wakes the waiters.
func (c *Counter) Add() {
	c.n.Add(1)
	c.mu.Lock()
	if c.next != nil {
		close(c.next)
		c.next = nil
	}
	c.mu.Unlock()
}

// Wait blocks until the count is at least n (nil), done (a channel that is
// only ever closed) is closed first (errDone, unless n were counted by
// then), or ctx is done (ctx.Err()).
func (c *Counter) Wait(ctx context.Context, n int, done <-chan struct{}, errDone error) error {
	for {
		c.mu.Lock()
		if c.next == nil {
			c.next = make(chan struct{})
		}
		next := c.next // taken before the check, so no Add is missed
		c.mu.Unlock()
		if c.Load() >= n {
			return nil
		}
		select {
		case <-next:
		case <-done:
			if c.Load() >= n {
				return nil
			}
			return errDone
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
