package proxy

import (
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/fakebroker/vocab"
	"github.com/kreactor/kreactor/wire"
)

// checkKey rejects keys kmsg does not know.
func checkKey(op string, key kmsg.Key) error {
	if kmsg.RequestForKey(int16(key)) == nil {
		return &ArgError{op, "key", int16(key), "unknown API key"}
	}
	return nil
}

// AnswerError answers the requests spec selects with spec.Err instead of the
// broker's answer, until healed. How each API carries the error is described
// at errAPIs (errors_api.go): the request is answered by the proxy and not
// forwarded when every entity it names is selected; when only some are (a
// Topic or Group filter on a request naming others too), the request is
// forwarded and the selected entities of the broker's answer are overwritten.
// Metadata and Fetch are always forwarded and their answers overwritten.
// Hits counts requests with at least one entity faulted. It returns an
// *ArgError for an unknown key, a nil Err, a key the proxy cannot answer
// (no per-API helper and no top-level ErrorCode) or a Topic / Group filter
// the API has no entities for; ErrClosed after Close.
func (p *Proxy) AnswerError(spec ErrorSpec) (*Fault, error) {
	const op = "AnswerError"
	if err := checkKey(op, spec.Key); err != nil {
		return nil, err
	}
	if spec.Err == nil {
		return nil, &ArgError{op, "Err", nil, "must be a *kerr.Error"}
	}
	api := apiFor(spec.Key)
	switch {
	case api == nil:
		return nil, &ArgError{op, "Key", spec.Key, "the proxy cannot answer this API with an error (no helper, no top-level ErrorCode)"}
	case spec.Topic != "" && !api.topics:
		return nil, &ArgError{op, "Topic", spec.Topic, fmt.Sprintf("%s has no per-topic entities", spec.Key.Name())}
	case spec.Group != "" && !api.groups:
		return nil, &ArgError{op, "Group", spec.Group, fmt.Sprintf("%s has no group", spec.Key.Name())}
	}
	return p.install(fmt.Sprintf("AnswerError(%s, %s)", spec.Key.Name(), spec.Err.Message), &rule{
		kind: ruleError, keys: []kmsg.Key{spec.Key}, nodes: slices.Clone(spec.Nodes),
		topic: spec.Topic, group: spec.Group, when: spec.When, err: spec.Err,
	})
}

// CoordinatorUnavailable makes group's coordinator look unavailable until
// healed: FindCoordinator for the group (key type group; in a batched v4+
// request only this key) answers COORDINATOR_NOT_AVAILABLE, and every request
// in wire.GroupCoordinatorKeys for the group (ConsumerGroupHeartbeat,
// ShareGroupHeartbeat, OffsetCommit, OffsetFetch) answers NOT_COORDINATOR
// without reaching the broker. Other groups are not affected. It returns an
// *ArgError for an empty group and ErrClosed after Close.
func (p *Proxy) CoordinatorUnavailable(group string) (*Fault, error) {
	if group == "" {
		return nil, &ArgError{"CoordinatorUnavailable", "group", `""`, "must be non-empty"}
	}
	return p.install(fmt.Sprintf("CoordinatorUnavailable(%s)", group),
		&rule{kind: ruleError, keys: []kmsg.Key{kmsg.FindCoordinator}, group: group, err: kerr.CoordinatorNotAvailable},
		&rule{kind: ruleError, keys: slices.Clone(wire.GroupCoordinatorKeys), group: group, err: kerr.NotCoordinator},
	)
}

// Hold gives requests with key no answer until healed: they are recorded,
// then not forwarded until Heal (the broker does not see them meanwhile);
// after Heal they are forwarded and answered normally. Later requests on a
// held request's connection wait behind it. Close closes held requests'
// connections. Hits counts requests held so far (use Wait to know a request
// is held). It returns an *ArgError for an unknown key and ErrClosed after
// Close.
func (p *Proxy) Hold(key kmsg.Key) (*Fault, error) {
	if err := checkKey("Hold", key); err != nil {
		return nil, err
	}
	return p.install(fmt.Sprintf("Hold(%s)", key.Name()), &rule{kind: ruleHold, keys: []kmsg.Key{key}})
}

// Delay forwards requests with key only d after the proxy starts handling
// each, so each is answered at least d after it arrived; later requests on
// the same connection wait behind it. Heal or Close ends pending delays (Heal
// forwards them at once). It returns an *ArgError for an unknown key or d <=
// 0, and ErrClosed after Close.
func (p *Proxy) Delay(key kmsg.Key, d time.Duration) (*Fault, error) {
	if err := checkKey("Delay", key); err != nil {
		return nil, err
	}
	if d <= 0 {
		return nil, &ArgError{"Delay", "d", d, "must be > 0"}
	}
	return p.install(fmt.Sprintf("Delay(%s, %s)", key.Name(), d), &rule{kind: ruleDelay, keys: []kmsg.Key{key}, delay: d})
}

// DropConnections closes the client connection (and its broker connection)
// of every request that arrives for node, instead of forwarding it, until
// healed. Clients see the connection die and reconnect (the listener keeps
// accepting). It returns an *ArgError for a node the proxy has no listener
// for, and ErrClosed after Close.
func (p *Proxy) DropConnections(node int32) (*Fault, error) {
	if _, ok := p.Addr(node); !ok {
		return nil, &ArgError{"DropConnections", "node", node, "no such node"}
	}
	return p.install(fmt.Sprintf("DropConnections(%d)", node), &rule{kind: ruleDrop, nodes: []int32{node}})
}

// BrokersDown drops the connection of every request to every node (the
// brokers look unreachable) until healed. It returns ErrClosed after Close.
func (p *Proxy) BrokersDown() (*Fault, error) {
	return p.install("BrokersDown", &rule{kind: ruleDrop})
}

// Observe calls fn with the arrival time and parsed body of every request
// with key until healed; requests are handled normally. fn runs on the
// connection's reading goroutine before the request is handled: it must not
// block or modify the request. Hits counts observed requests. It returns an
// *ArgError for an unknown key or a nil fn, and ErrClosed after Close.
func (p *Proxy) Observe(key kmsg.Key, fn func(at time.Time, req kmsg.Request)) (*Fault, error) {
	if err := checkKey("Observe", key); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, &ArgError{"Observe", "fn", nil, "must not be nil"}
	}
	return p.install(fmt.Sprintf("Observe(%s)", key.Name()), &rule{kind: ruleObserve, keys: []kmsg.Key{key}, observe: fn})
}

// observe runs the observers that select rq.
func (p *Proxy) observe(node int32, rq *request) {
	for _, r := range p.activeRules() {
		if r.kind == ruleObserve && r.selects(node, rq) && r.f.hit() {
			r.observe(rq.at, rq.Body)
		}
	}
}

// Inject installs spec, a fault of the shared vocabulary
// (fakebroker/vocab, harness.FaultSpec), with the proxy's helpers:
// CoordinatorUnavailable, AnswerError, HoldSelected, DelaySelected,
// DropConnectionsOf (brokers-down), BlackHole and Refuse. The kafka target
// and the control API's proxy mode both install faults here. Errors:
// spec's validation error, the helper's.
func (p *Proxy) Inject(spec vocab.Spec) (*Fault, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	switch spec.Kind {
	case vocab.CoordinatorUnavailable:
		return p.CoordinatorUnavailable(spec.Group)
	case vocab.Error:
		return p.AnswerError(ErrorSpec{Key: spec.Key, Err: spec.Err, Topic: spec.Topic, When: spec.When, Nodes: spec.Nodes})
	case vocab.Hold:
		return p.HoldSelected(SelectSpec{Key: spec.Key, Nodes: spec.Nodes, When: spec.When})
	case vocab.Delay:
		return p.DelaySelected(SelectSpec{Key: spec.Key, Nodes: spec.Nodes, When: spec.When}, spec.Delay)
	case vocab.BrokersDown:
		return p.DropConnectionsOf(spec.Nodes...)
	case vocab.BlackHole:
		return p.BlackHole(spec.Nodes...)
	case vocab.Refuse:
		return p.Refuse(spec.Nodes...)
	}
	return nil, fmt.Errorf("proxy: Inject: unknown fault kind %q", spec.Kind)
}
