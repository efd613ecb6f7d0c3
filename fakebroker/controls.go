package fakebroker

import (
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// DelayKey answers requests with API key key normally, but only d after the
// cluster starts handling each (so at least d after it arrived), for count
// requests (0 means one, -1 until removed, n > 0 n requests). A delayed
// request does not stall other connections, but kfake answers a
// connection's requests in order, so later requests on the same connection
// wait behind it (franz-go uses separate connections for produce, fetch,
// join/sync, requests with a timeout field, and the rest). Removing the
// handle or closing the Broker ends every pending delay at once. It returns
// an *ArgError for an unknown key, a negative d or a count below -1, and
// ErrClosed after Close.
func (b *Broker) DelayKey(key kmsg.Key, d time.Duration, count int) (*Handle, error) {
	const op = "DelayKey"
	if err := checkKey(op, key); err != nil {
		return nil, err
	}
	if d < 0 {
		return nil, &ArgError{op, "d", d, "must be >= 0"}
	}
	n, err := normCount(op, count)
	if err != nil {
		return nil, err
	}
	return b.installSleep(op, key, n, nil, func() time.Duration { return d })
}

// HoldKey gives requests with API key key no answer until the handle is
// released (or the Broker closes); then each is answered normally. Hits
// counts requests held so far (use Wait to know a request is held). Later
// requests on a held request's connection wait behind it. It returns an
// *ArgError for an unknown key and ErrClosed after Close.
func (b *Broker) HoldKey(key kmsg.Key) (*Handle, error) {
	const op = "HoldKey"
	if err := checkKey(op, key); err != nil {
		return nil, err
	}
	return b.installSleep(op, key, -1, nil, forever)
}

// DropConnections closes the client connection of every request that
// arrives on node, instead of answering it, until the handle is removed.
// Clients see the connection die and reconnect (kfake keeps accepting). It
// returns an *ArgError for a node the Broker does not know and ErrClosed
// after Close.
func (b *Broker) DropConnections(node int32) (*Handle, error) {
	const op = "DropConnections"
	if !b.knownNode(node) {
		return nil, &ArgError{op, "node", node, "no such node"}
	}
	h := newHandle(b, op, -1, nil)
	return h.or(b.installControl(-1, h, b.dropFn(h, node)))
}

// dropFn is a control that closes connections of requests on node.
func (b *Broker) dropFn(h *Handle, node int32) func(kmsg.Request) (kmsg.Response, error, bool) {
	return func(kmsg.Request) (kmsg.Response, error, bool) {
		if b.cluster.CurrentNode() != node {
			return nil, nil, false
		}
		if !h.take() {
			b.cluster.DropControl()
			return nil, nil, false
		}
		b.cluster.KeepControl()
		return nil, ErrConnectionDropped, true
	}
}

// installControl installs fn as a kfake control for key (-1: every key),
// tied to h: once h is removed the control passes requests through and drops
// itself on its next call. It returns ErrClosed (and installs nothing) after
// Close.
func (b *Broker) installControl(key int16, h *Handle, fn func(kmsg.Request) (kmsg.Response, error, bool)) error {
	if err := b.remember(h); err != nil {
		return err
	}
	b.cluster.ControlKey(key, func(req kmsg.Request) (kmsg.Response, error, bool) {
		b.enterControl()
		defer b.exitControl()
		if h.isRemoved() || b.isClosing() {
			b.cluster.DropControl()
			return nil, nil, false
		}
		return fn(req)
	})
	return nil
}

// forever is installSleep's wait until the handle is removed.
func forever() time.Duration { return -1 }

// installSleep installs a control on key that makes each request sel
// selects (nil: every request) wait d() (negative: until the handle is
// removed, see sleep) and then pass through: kfake answers it normally.
// It acts on n requests (-1: until removed); past them the control drops
// itself. op names the handle.
func (b *Broker) installSleep(op string, key kmsg.Key, n int, sel func(kmsg.Request) bool, d func() time.Duration) (*Handle, error) {
	h := newHandle(b, op, n, nil)
	return h.or(b.installControl(int16(key), h, func(req kmsg.Request) (kmsg.Response, error, bool) {
		if sel != nil && !sel(req) {
			return nil, nil, false
		}
		if !h.take() {
			b.cluster.DropControl()
			return nil, nil, false
		}
		b.sleep(h, d())
		return nil, nil, false
	}))
}

// sleep parks the current control with kfake.SleepControl until d passes
// (d < 0: never), h is removed or the Broker closes. The wakeup runs on its
// own goroutine, never on the cluster goroutine, and always returns, so
// Close leaves no goroutine behind.
func (b *Broker) sleep(h *Handle, d time.Duration) {
	b.cluster.SleepControl(func() {
		var timeout <-chan time.Time
		if d >= 0 {
			t := time.NewTimer(d)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-timeout:
		case <-h.removed:
		case <-b.closing:
		}
	})
}
