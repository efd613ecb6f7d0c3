package fakebroker

import (
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// DelayKeyFunc is DelayKey with a delay chosen per request: each request
// with API key key is answered normally, but only d() after the cluster
// starts handling it, for count requests (0 means one, -1 until removed,
// n > 0 n requests). d is called once per delayed request, on kfake's
// cluster goroutine and one request at a time, so it needs no locking of
// its own but must be quick and must not block (draw from a random source,
// read a table); a negative result is treated as 0. The delay itself is a
// kfake.SleepControl, as in DelayKey: it never blocks the cluster goroutine,
// other connections keep flowing, and later requests on the same connection
// wait behind the delayed one. Removing the handle or closing the Broker ends
// every pending delay at once. It returns an *ArgError for an unknown key, a
// nil d or a count below -1, and ErrClosed after Close.
//
// Keep it to a modest number of delayed requests per connection: kfake's
// per-connection sleep queue (bsleep.waitQueue, kfake cluster.go) pops the
// finished head and re-checks for emptiness in two critical sections, so a
// new sleeping request enqueued in between starts a second waiter on the
// same queue, a data race the race detector reports (seen with thousands of
// back-to-back delayed OffsetCommits on one connection). DelayKey shares
// the limitation. consume.ResponseDelay delays answers on the client's side
// instead, without it.
func (b *Broker) DelayKeyFunc(key kmsg.Key, d func() time.Duration, count int) (*Handle, error) {
	const op = "DelayKeyFunc"
	if err := checkKey(op, key); err != nil {
		return nil, err
	}
	if d == nil {
		return nil, &ArgError{op, "d", nil, "must be a non-nil func"}
	}
	n, err := normCount(op, count)
	if err != nil {
		return nil, err
	}
	// A negative wait would be "forever" to installSleep: never pass one.
	return b.installSleep(op, key, n, nil, func() time.Duration { return max(d(), 0) })
}
