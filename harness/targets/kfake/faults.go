package kfake

import (
	"context"
	"errors"
	"time"

	franzkfake "github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/fakebroker"
	"github.com/kreactor/kreactor/harness"
)

func (k *cluster) CoordinatorUnavailable(_ context.Context, group string) (harness.Fault, error) {
	h, err := k.b.CoordinatorUnavailable(group)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// Inject installs spec with fakebroker's helpers.
func (k *cluster) Inject(_ context.Context, spec harness.FaultSpec) (harness.Fault, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	var h *fakebroker.Handle
	var err error
	switch spec.Kind {
	case harness.FaultCoordinatorUnavailable:
		h, err = k.b.CoordinatorUnavailable(spec.Group)
	case harness.FaultError:
		h, err = k.b.Fault(franzkfake.Fault{Keys: []kmsg.Key{spec.Key}, Nodes: spec.Nodes, Topic: spec.Topic, Err: spec.Err, Count: -1, When: spec.When})
	case harness.FaultHold:
		h, err = k.b.HoldSelected(fakebroker.Selector{Key: spec.Key, Nodes: spec.Nodes, When: spec.When})
	case harness.FaultDelay:
		h, err = k.b.DelaySelected(fakebroker.Selector{Key: spec.Key, Nodes: spec.Nodes, When: spec.When}, spec.Delay)
	case harness.FaultBrokersDown:
		return k.brokersDown(spec.Nodes)
	case harness.FaultBlackHole:
		h, err = k.b.BlackHole(spec.Nodes...)
	case harness.FaultRefuse:
		h, err = k.b.Refuse(spec.Nodes...)
	}
	if err != nil {
		return nil, err
	}
	return h, nil
}

// brokersDown drops connections on nodes (every node when empty): "down" is
// modelled as "every request's connection is closed".
func (k *cluster) brokersDown(nodes []int32) (harness.Fault, error) {
	if len(nodes) == 0 {
		for node := range int32(k.b.Config().Brokers) {
			nodes = append(nodes, node)
		}
	}
	var hs multiFault
	for _, node := range nodes {
		h, err := k.b.DropConnections(node)
		if err != nil {
			hs.Heal()
			return nil, err
		}
		hs = append(hs, h)
	}
	return hs, nil
}

func (k *cluster) Observe(_ context.Context, key kmsg.Key, fn func(harness.Observed)) (harness.Fault, error) {
	if fn == nil {
		return nil, errors.New("kfake target: Observe with a nil fn")
	}
	return k.b.ObserveKey(key, func(at time.Time, req kmsg.Request) { fn(harness.Observed{At: at, Req: req}) })
}

// multiFault heals and counts several faults as one.
type multiFault []*fakebroker.Handle

func (m multiFault) Heal() {
	for _, h := range m {
		h.Heal()
	}
}

func (m multiFault) Hits() int {
	n := 0
	for _, h := range m {
		n += h.Hits()
	}
	return n
}
