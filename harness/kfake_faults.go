package harness

import (
	"context"
	"errors"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/fakebroker"
)

func (k *kfakeCluster) Inject(_ context.Context, spec FaultSpec) (Fault, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	var h *fakebroker.Handle
	var err error
	switch spec.Kind {
	case FaultCoordinatorUnavailable:
		h, err = k.b.CoordinatorUnavailable(spec.Group)
	case FaultError:
		h, err = k.b.Fault(kfake.Fault{Keys: []kmsg.Key{spec.Key}, Topic: spec.Topic, Err: spec.Err, Count: -1, When: spec.When})
	case FaultHold:
		h, err = k.b.HoldKey(spec.Key)
	case FaultDelay:
		h, err = k.b.DelayKey(spec.Key, spec.Delay, -1)
	case FaultBrokersDown:
		return k.brokersDown()
	}
	if err != nil {
		return nil, err
	}
	return h, nil
}

// brokersDown drops connections on every node: kfake cannot remove its last
// node, so "down" is modelled as "every request's connection is closed".
func (k *kfakeCluster) brokersDown() (Fault, error) {
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

func (k *kfakeCluster) Observe(_ context.Context, key kmsg.Key, fn func(Observed)) (Fault, error) {
	if fn == nil {
		return nil, errors.New("harness: Observe with a nil fn")
	}
	return k.b.ObserveKey(key, func(at time.Time, req kmsg.Request) { fn(Observed{At: at, Req: req}) })
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
