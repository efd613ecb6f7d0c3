package fakebroker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/wire"
)

// CoordinatorUnavailable makes group's coordinator look like it is failing
// over, until the handle is healed: every FindCoordinator for the group
// (coordinator type 0; a batched v4+ request fails only this key) answers
// COORDINATOR_NOT_AVAILABLE, and every request in wire.GroupCoordinatorKeys
// for the group answers NOT_COORDINATOR without being applied (kfake checks
// the group fault after its own coordinator check; OffsetCommit v8+
// and OffsetFetch v8+ carry it per group / partition, the heartbeats in the
// top-level ErrorCode). Other groups are not affected. Hits counts faulted
// requests. It returns an *ArgError for an empty group and ErrClosed after
// Close.
func (b *Broker) CoordinatorUnavailable(group string) (*Handle, error) {
	if group == "" {
		return nil, &ArgError{"CoordinatorUnavailable", "group", `""`, "must be non-empty (kfake treats \"\" as every group)"}
	}
	return b.installFault("CoordinatorUnavailable",
		kfake.Fault{Keys: []kmsg.Key{kmsg.FindCoordinator}, Group: group, Err: kerr.CoordinatorNotAvailable, Count: -1},
		kfake.Fault{Keys: wire.GroupCoordinatorKeys, Group: group, Err: kerr.NotCoordinator, Count: -1},
	)
}

// AnswerKeyWithError answers requests with API key key with err instead of
// the real answer, for count requests (0 means one, -1 until removed, n > 0
// n requests). kfake sets err on every entity the request names (each
// partition, group or coordinator key) and on the top-level ErrorCode of
// requests that name none (ApiVersions, DescribeCluster, ListGroups, ...);
// the entity is not acted on, except that REQUEST_TIMED_OUT on a commit,
// produce and other writes is answered after the write happens, as a real
// broker can. It returns an *ArgError for an unknown key, a nil err or a
// count below -1, and ErrClosed after Close.
func (b *Broker) AnswerKeyWithError(key kmsg.Key, err *kerr.Error, count int) (*Handle, error) {
	const op = "AnswerKeyWithError"
	if e := checkKey(op, key); e != nil {
		return nil, e
	}
	if err == nil {
		return nil, &ArgError{op, "err", nil, "must be a *kerr.Error"}
	}
	if _, e := normCount(op, count); e != nil {
		return nil, e
	}
	return b.installFault(op, kfake.Fault{Keys: []kmsg.Key{key}, Err: err, Count: count})
}

// Fault installs arbitrary kfake faults (see kfake.Fault for selectors and
// Count) behind a Handle that Close removes. It returns ErrClosed after
// Close.
func (b *Broker) Fault(faults ...kfake.Fault) (*Handle, error) {
	return b.installFault("Fault", faults...)
}

// installFault installs faults and tracks them; the ConsumerGroupHeartbeat
// refusals stay after them (keepHeartbeatRefusalsLast).
func (b *Broker) installFault(name string, faults ...kfake.Fault) (*Handle, error) {
	if b.isClosing() {
		return nil, ErrClosed
	}
	h := newHandle(b, name, -1, nil)
	h.faults = faults
	h.fault = b.cluster.Fault(faults...)
	if err := b.remember(h); err != nil {
		h.Remove()
		return nil, err
	}
	b.keepHeartbeatRefusalsLast(faults)
	return h, nil
}

// checkKey rejects keys kmsg does not know.
func checkKey(op string, key kmsg.Key) error {
	if kmsg.RequestForKey(int16(key)) == nil {
		return &ArgError{op, "key", int16(key), "unknown API key"}
	}
	return nil
}
