package fakebroker

import (
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/fakebroker/vocab"
)

// Injected is a fault Inject installed: Heal removes it, Hits counts the
// requests it acted on (a *Handle, or Handles).
type Injected interface {
	Heal()
	Hits() int
}

// Handles heals and counts several faults as one.
type Handles []*Handle

// Heal heals every fault.
func (hs Handles) Heal() {
	for _, h := range hs {
		h.Heal()
	}
}

// Hits is the sum of the faults' hits.
func (hs Handles) Hits() int {
	n := 0
	for _, h := range hs {
		n += h.Hits()
	}
	return n
}

// Inject installs spec, a fault of the shared vocabulary (package vocab),
// with the broker's helpers: CoordinatorUnavailable, Fault (an error on
// every matching request), HoldSelected, DelaySelected, DropConnections
// (brokers-down: "down" is modelled as "every request's connection is
// closed"; every node when spec names none), BlackHole and Refuse. The
// kfake target and the control API's fakebroker mode both install faults
// here. Errors: spec's validation error, the helper's.
func (b *Broker) Inject(spec vocab.Spec) (Injected, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	var h *Handle
	var err error
	switch spec.Kind {
	case vocab.CoordinatorUnavailable:
		h, err = b.CoordinatorUnavailable(spec.Group)
	case vocab.Error:
		h, err = b.Fault(kfake.Fault{Keys: []kmsg.Key{spec.Key}, Nodes: spec.Nodes, Topic: spec.Topic, Err: spec.Err, Count: -1, When: spec.When})
	case vocab.Hold:
		h, err = b.HoldSelected(Selector{Key: spec.Key, Nodes: spec.Nodes, When: spec.When})
	case vocab.Delay:
		h, err = b.DelaySelected(Selector{Key: spec.Key, Nodes: spec.Nodes, When: spec.When}, spec.Delay)
	case vocab.BrokersDown:
		return b.brokersDown(spec.Nodes)
	case vocab.BlackHole:
		h, err = b.BlackHole(spec.Nodes...)
	case vocab.Refuse:
		h, err = b.Refuse(spec.Nodes...)
	}
	if err != nil {
		return nil, err
	}
	return h, nil
}

// brokersDown drops connections on nodes (every node when empty).
func (b *Broker) brokersDown(nodes []int32) (Injected, error) {
	if len(nodes) == 0 {
		for node := range int32(b.Config().Brokers) {
			nodes = append(nodes, node)
		}
	}
	var hs Handles
	for _, node := range nodes {
		h, err := b.DropConnections(node)
		if err != nil {
			hs.Heal()
			return nil, err
		}
		hs = append(hs, h)
	}
	return hs, nil
}
