package kfake

import (
	"context"
	"errors"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/harness"
)

func (k *cluster) CoordinatorUnavailable(_ context.Context, group string) (harness.Fault, error) {
	h, err := k.b.CoordinatorUnavailable(group)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// Inject installs spec with fakebroker's helpers (fakebroker.Broker.Inject).
func (k *cluster) Inject(_ context.Context, spec harness.FaultSpec) (harness.Fault, error) {
	return k.b.Inject(spec)
}

func (k *cluster) Observe(_ context.Context, key kmsg.Key, fn func(harness.Observed)) (harness.Fault, error) {
	if fn == nil {
		return nil, errors.New("kfake target: Observe with a nil fn")
	}
	return k.b.ObserveKey(key, func(at time.Time, req kmsg.Request) { fn(harness.Observed{At: at, Req: req}) })
}
