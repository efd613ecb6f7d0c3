package proxy

import (
	"fmt"
	"net"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// SelectSpec selects requests for Hold and Delay by key, node and body.
type SelectSpec struct {
	Key kmsg.Key // API key; required
	// Nodes, if set, selects only requests to these nodes.
	Nodes []int32
	// When, if set, selects requests by their body; it is asked once per
	// request of Key to the Nodes, on the connection's forwarding
	// goroutine: it must not block or modify the request.
	When func(kmsg.Request) bool
}

// HoldSelected is Hold for the requests spec selects. It returns an
// *ArgError for an unknown key or node, and ErrClosed after Close.
func (p *Proxy) HoldSelected(spec SelectSpec) (*Fault, error) {
	if err := p.checkSelect("HoldSelected", spec); err != nil {
		return nil, err
	}
	return p.install(fmt.Sprintf("Hold(%s, nodes %v)", spec.Key.Name(), spec.Nodes),
		&rule{kind: ruleHold, keys: []kmsg.Key{spec.Key}, nodes: slices.Clone(spec.Nodes), when: spec.When})
}

// DelaySelected is Delay for the requests spec selects. It returns an
// *ArgError for an unknown key or node or d <= 0, and ErrClosed after Close.
func (p *Proxy) DelaySelected(spec SelectSpec, d time.Duration) (*Fault, error) {
	if err := p.checkSelect("DelaySelected", spec); err != nil {
		return nil, err
	}
	if d <= 0 {
		return nil, &ArgError{"DelaySelected", "d", d, "must be > 0"}
	}
	return p.install(fmt.Sprintf("Delay(%s, %s, nodes %v)", spec.Key.Name(), d, spec.Nodes),
		&rule{kind: ruleDelay, keys: []kmsg.Key{spec.Key}, nodes: slices.Clone(spec.Nodes), when: spec.When, delay: d})
}

func (p *Proxy) checkSelect(op string, spec SelectSpec) error {
	if err := checkKey(op, spec.Key); err != nil {
		return err
	}
	return p.checkNodes(op, spec.Nodes)
}

func (p *Proxy) checkNodes(op string, nodes []int32) error {
	for _, n := range nodes {
		if _, ok := p.Addr(n); !ok {
			return &ArgError{op, "node", n, "no such node"}
		}
	}
	return nil
}

// DropConnectionsOf is BrokersDown for nodes (every node when empty).
func (p *Proxy) DropConnectionsOf(nodes ...int32) (*Fault, error) {
	if err := p.checkNodes("DropConnectionsOf", nodes); err != nil {
		return nil, err
	}
	return p.install(fmt.Sprintf("DropConnections(%v)", nodes), &rule{kind: ruleDrop, nodes: slices.Clone(nodes)})
}

// BlackHole holds every request to nodes (every node when empty) until
// healed: connections are accepted and requests read (and recorded), but
// none is answered or forwarded; after Heal they are forwarded in order. It
// returns an *ArgError for an unknown node and ErrClosed after Close.
func (p *Proxy) BlackHole(nodes ...int32) (*Fault, error) {
	if err := p.checkNodes("BlackHole", nodes); err != nil {
		return nil, err
	}
	return p.install(fmt.Sprintf("BlackHole(%v)", nodes), &rule{kind: ruleHold, nodes: slices.Clone(nodes)})
}

// Refuse makes nodes (every node when empty) refuse connections until
// healed: each node's listener closes (a connection attempt is refused by
// the operating system) and its client connections close; Heal listens
// again on the same address. The brokers behind are untouched, so
// leadership and coordination stay where they are (a broker restarting
// faster than the controller notices). Hits is the number of connections
// closed. It returns an *ArgError for an unknown node and ErrClosed after
// Close.
func (p *Proxy) Refuse(nodes ...int32) (*Fault, error) {
	if err := p.checkNodes("Refuse", nodes); err != nil {
		return nil, err
	}
	f, err := p.install(fmt.Sprintf("Refuse(%v)", nodes))
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	if len(nodes) == 0 {
		nodes = p.nodeIDsLocked()
	}
	var lns []net.Listener
	var conns []*conn
	for _, id := range nodes {
		n := p.nodes[id]
		n.refusing++
		if n.ln != nil {
			lns = append(lns, n.ln)
			n.ln = nil
		}
	}
	for c := range p.conns {
		if slices.Contains(nodes, c.node) {
			conns = append(conns, c)
		}
	}
	p.mu.Unlock()
	for _, ln := range lns {
		ln.Close()
	}
	for _, c := range conns {
		f.hit()
		c.close()
	}
	f.onHeal = func() { p.unrefuse(nodes) }
	return f, nil
}

// unrefuse ends one Refuse of nodes: a node no Refuse holds listens again.
func (p *Proxy) unrefuse(nodes []int32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, id := range nodes {
		n := p.nodes[id]
		n.refusing--
		if n.refusing > 0 || p.closed || n.ln != nil {
			continue
		}
		ln, err := net.Listen("tcp", n.addr)
		if err != nil {
			p.log.Error("listen again after Refuse", "node", id, "addr", n.addr, "err", err)
			continue
		}
		n.ln = ln
		p.goLocked(func() { p.accept(n, ln) })
	}
}
