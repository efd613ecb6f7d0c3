package fakebroker

import "fmt"

// StopNode simulates node dying until the handle is healed: kfake stops
// listening on its port (kfake.RemoveNode, which also moves partition
// leadership and group coordination among the remaining nodes) and every
// request still arriving on an open connection to it gets that connection
// closed. Heal restarts the node with the same id and port (kfake.AddNode)
// unless the Broker is closing. It returns an *ArgError for an unknown node,
// kfake's error if the node cannot be removed (it is the last one), and
// ErrClosed after Close.
func (b *Broker) StopNode(node int32) (*Handle, error) {
	const op = "StopNode"
	b.nodeMu.Lock()
	defer b.nodeMu.Unlock()
	b.mu.Lock()
	port, ok := b.ports[node]
	b.mu.Unlock()
	if !ok {
		return nil, &ArgError{op, "node", node, "no such node"}
	}
	if b.isClosing() {
		return nil, ErrClosed
	}
	if err := b.cluster.RemoveNode(node); err != nil {
		return nil, fmt.Errorf("fakebroker: StopNode(%d): %w", node, err)
	}
	h := newHandle(b, op, -1, func() {
		if b.isClosing() {
			return
		}
		b.nodeMu.Lock()
		defer b.nodeMu.Unlock()
		b.tap.expect(node)
		if _, _, err := b.cluster.AddNode(node, port); err != nil {
			b.log.Error("fakebroker: restart node", "node", node, "port", port, "err", err)
		}
	})
	return h.or(b.installControl(-1, h, b.dropFn(h, node)))
}

// knownNode reports whether node was started by the Broker.
func (b *Broker) knownNode(node int32) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.ports[node]
	return ok
}
