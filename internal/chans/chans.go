// Package chans holds the channel idioms the fault helpers, the proxy, the
// Java driver and the harness share: a non-blocking look at a channel that
// signals by being closed (a done, closing, healed or removed channel;
// never sent on), a sleep such a channel cuts short, and a ticker such a
// channel stops.
package chans

import "time"

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
