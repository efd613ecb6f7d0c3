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
		h, err = k.b.Fault(franzkfake.Fault{Keys: []kmsg.Key{spec.Key}, Topic: spec.Topic, Err: spec.Err, Count: -1, When: spec.When})
	case harness.FaultHold:
		h, err = k.b.HoldKey(spec.Key)
	case harness.FaultDelay:
		h, err = k.b.DelayKey(spec.Key, spec.Delay, -1)
	case harness.FaultBrokersDown:
		return k.brokersDown()
	}
	if err != nil {
		return nil, err
	}
	return h, nil
}

// brokersDown drops connections on every node: kfake cannot remove its last
// node, so "down" is modelled as "every request's connection is closed".
func (k *cluster) brokersDown() (harness.Fault, error) {
	var hs multiFault
	for node := range int32(k.b.Config().Brokers) {
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
