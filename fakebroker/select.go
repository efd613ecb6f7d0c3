package fakebroker

import (
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Selector picks the requests HoldSelected and DelaySelected act on.
type Selector struct {
	Key kmsg.Key // API key; required
	// Nodes, if set, selects only requests to these nodes.
	Nodes []int32
	// When, if set, selects requests by their body. It runs on kfake's
	// cluster goroutine, once per request of Key to the Nodes: it must not
	// block or call back into the Broker.
	When func(kmsg.Request) bool
}

// selector is sel's choice as a filter for installSleep.
func (b *Broker) selector(sel Selector) func(kmsg.Request) bool {
	return func(req kmsg.Request) bool { return b.selects(sel.Nodes, sel.When, req) }
}

// HoldSelected is HoldKey for the requests sel selects; others pass. It
// returns an *ArgError for an unknown key or node and ErrClosed after Close.
func (b *Broker) HoldSelected(sel Selector) (*Handle, error) {
	const op = "HoldSelected"
	if err := b.checkSelector(op, sel); err != nil {
		return nil, err
	}
	return b.installSleep(op, sel.Key, -1, b.selector(sel), forever)
}

// DelaySelected is DelayKey (until removed) for the requests sel selects;
// others pass. It returns an *ArgError for an unknown key or node or a
// negative d, and ErrClosed after Close.
func (b *Broker) DelaySelected(sel Selector, d time.Duration) (*Handle, error) {
	const op = "DelaySelected"
	if err := b.checkSelector(op, sel); err != nil {
		return nil, err
	}
	if d < 0 {
		return nil, &ArgError{op, "d", d, "must be >= 0"}
	}
	return b.installSleep(op, sel.Key, -1, b.selector(sel), func() time.Duration { return d })
}

// BlackHole holds every request, of every key, to nodes (every node when
// none is given) until the handle is removed: connections are accepted and
// requests read (and recorded), none is answered; after removal they are
// answered in order. It returns an *ArgError for an unknown node and
// ErrClosed after Close.
func (b *Broker) BlackHole(nodes ...int32) (*Handle, error) {
	const op = "BlackHole"
	for _, n := range nodes {
		if !b.knownNode(n) {
			return nil, &ArgError{op, "node", n, "no such node"}
		}
	}
	nodes = slices.Clone(nodes)
	h := newHandle(b, op, -1, nil)
	return h.or(b.installControl(-1, h, func(req kmsg.Request) (kmsg.Response, error, bool) {
		if !b.selects(nodes, nil, req) {
			return nil, nil, false
		}
		if !h.take() {
			b.cluster.DropControl()
			return nil, nil, false
		}
		b.sleep(h, -1)
		return nil, nil, false
	}))
}

// Refuse makes nodes (every node when none is given) refuse connections
// until the handle is removed: each node's listening socket closes (a
// connection attempt is refused by the operating system) and its open
// connections close, while kfake's state (leadership, coordination, groups)
// stays as it is: a broker that is down without the cluster moving anything
// (the only broker of a one-node cluster, or one restarting faster than the
// controller notices). Removal listens on the same port again. Hits is the
// number of connections closed. It returns an *ArgError for an unknown node
// and ErrClosed after Close.
func (b *Broker) Refuse(nodes ...int32) (*Handle, error) {
	const op = "Refuse"
	if b.isClosing() {
		return nil, ErrClosed
	}
	if len(nodes) == 0 {
		b.mu.Lock()
		for n := range b.ports {
			nodes = append(nodes, n)
		}
		b.mu.Unlock()
		slices.Sort(nodes)
	}
	var lns []*tapListener
	for _, n := range nodes {
		l := b.tap.listenerOf(n)
		if l == nil || !b.knownNode(n) {
			return nil, &ArgError{op, "node", n, "no such node"}
		}
		lns = append(lns, l)
	}
	h := newHandle(b, op, -1, func() {
		if b.isClosing() {
			return // kfake closes the listeners
		}
		for _, l := range lns {
			if err := l.unrefuse(); err != nil {
				b.log.Error("fakebroker: listen again after Refuse", "node", l.node, "err", err)
			}
		}
	})
	if err := b.remember(h); err != nil {
		return nil, err
	}
	for _, l := range lns {
		for range l.refuse() {
			h.hits.Add()
		}
	}
	return h, nil
}

// checkSelector rejects an unknown key or node.
func (b *Broker) checkSelector(op string, sel Selector) error {
	if err := checkKey(op, sel.Key); err != nil {
		return err
	}
	for _, n := range sel.Nodes {
		if !b.knownNode(n) {
			return &ArgError{op, "node", n, "no such node"}
		}
	}
	return nil
}

// selects reports whether the request the control is handling is to one of
// nodes (any when empty) and passes when (nil: any).
func (b *Broker) selects(nodes []int32, when func(kmsg.Request) bool, req kmsg.Request) bool {
	if len(nodes) > 0 && !slices.Contains(nodes, b.cluster.CurrentNode()) {
		return false
	}
	return when == nil || when(req)
}
