// Package chans holds a channel idiom the fault helpers, the proxy and the
// Java driver share: a non-blocking look at a channel that signals by being
// closed (a done, closing, healed or removed channel; never sent on).
package chans

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
