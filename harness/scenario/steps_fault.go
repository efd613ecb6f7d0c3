package scenario

// Faults: one step kind (fault) whose kind picks an entry of faultDefs, each
// with the arguments it takes (any other is an error, never ignored), and
// how it is installed: through harness.FaultSpec, the vocabulary both
// targets implement (kfake through fakebroker, real Kafka through the
// recording proxy), or Cluster.StopBroker.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/fakebroker/vocab"
	"github.com/kreactor/kreactor/harness"
)

// Fault is a fault step's arguments; Kind says which apply.
type Fault struct {
	Kind  string      `yaml:"kind" sc:"required"`
	Key   *APIKey     `yaml:"key,omitempty"`
	Topic string      `yaml:"topic,omitempty" sc:"name"`
	Error *KafkaError `yaml:"error,omitempty"`
	Delay *Duration   `yaml:"delay,omitempty" sc:"max=step"`
	// Where selects requests by body (see Where): only epoch-0
	// heartbeats are {member_epoch: 0}; a leave is {member_epoch: -1}.
	Where Where `yaml:"where,omitempty"`
	// When is the older spelling of one selector: leave-heartbeat is
	// key ConsumerGroupHeartbeat, where {member_epoch: -1}.
	When string `yaml:"when,omitempty"`
	// First limits the fault to the first N requests it selects (a
	// one-shot fault is first: 1); later ones pass.
	First int `yaml:"first,omitempty" sc:"min=1"`
	// Node limits the fault to one broker: a node id or coordinator.
	Node *Node `yaml:"node,omitempty"`
	// Downtime is how long a restart keeps the broker unreachable.
	Downtime *Duration `yaml:"downtime,omitempty" sc:"max=step"`
	// Consumer picks whose group a coordinator fault is about (default:
	// the first consumer with a group).
	Consumer string `yaml:"consumer,omitempty" sc:"name"`
}

// faultDef is one fault kind: how it is installed. Its arguments and
// documentation are the vocab.Defs entry of the same name (fault_vocab.go
// fills them in), which the control API reads too.
type faultDef struct {
	kind     string
	takes    []string // argument keys besides kind (and as/at)
	requires []string
	doc      string
	example  string
	install  func(ctx context.Context, r *run, a *Fault) (harness.Fault, error)
}

var faultDefs = withVocab([]faultDef{
	{kind: "coordinator-unavailable",
		install: func(ctx context.Context, r *run, a *Fault) (harness.Fault, error) {
			return r.cl.Inject(ctx, harness.FaultSpec{Kind: harness.FaultCoordinatorUnavailable, Group: r.faultGroup(a)})
		}},
	{kind: "error",
		install: func(ctx context.Context, r *run, a *Fault) (harness.Fault, error) {
			return r.injectSelected(ctx, a, harness.FaultSpec{Kind: harness.FaultError, Topic: a.Topic, Err: a.Error.Err()})
		}},
	{kind: "hold",
		install: func(ctx context.Context, r *run, a *Fault) (harness.Fault, error) {
			return r.injectSelected(ctx, a, harness.FaultSpec{Kind: harness.FaultHold})
		}},
	{kind: "delay",
		install: func(ctx context.Context, r *run, a *Fault) (harness.Fault, error) {
			return r.injectSelected(ctx, a, harness.FaultSpec{Kind: harness.FaultDelay, Delay: a.Delay.D()})
		}},
	{kind: "brokers-down",
		install: func(ctx context.Context, r *run, a *Fault) (harness.Fault, error) {
			return r.injectNodes(ctx, a, harness.FaultBrokersDown)
		}},
	{kind: "black-hole",
		install: func(ctx context.Context, r *run, a *Fault) (harness.Fault, error) {
			return r.injectNodes(ctx, a, harness.FaultBlackHole)
		}},
	{kind: "refuse",
		install: func(ctx context.Context, r *run, a *Fault) (harness.Fault, error) {
			return r.injectNodes(ctx, a, harness.FaultRefuse)
		}},
	{kind: "restart",
		install: func(ctx context.Context, r *run, a *Fault) (harness.Fault, error) {
			f, err := r.injectNodes(ctx, a, harness.FaultRefuse)
			if err != nil {
				return nil, err
			}
			time.AfterFunc(a.Downtime.D(), f.Heal)
			return f, nil
		}},
	{kind: "stop-broker",
		install: func(ctx context.Context, r *run, a *Fault) (harness.Fault, error) {
			nodes, err := r.faultNodes(ctx, a)
			if err != nil {
				return nil, err
			}
			return r.cl.StopBroker(ctx, nodes[0])
		}},
})

// FaultKinds lists the fault kinds, for errors and docs.
func FaultKinds() []string {
	out := make([]string, len(faultDefs))
	for i, d := range faultDefs {
		out[i] = d.kind
	}
	return out
}

func faultDefOf(kind string) (faultDef, bool) {
	i := slices.IndexFunc(faultDefs, func(d faultDef) bool { return d.kind == kind })
	if i < 0 {
		return faultDef{}, false
	}
	return faultDefs[i], true
}

// FaultWhens are the request selectors `when` may name.
var FaultWhens = []string{"leave-heartbeat"}

func (a *Fault) validate(c *checker, st *Step) error {
	def, ok := faultDefOf(a.Kind)
	if !ok {
		return c.errf(st.line("kind"), a.Kind, "unknown fault kind (known: %s)", strings.Join(FaultKinds(), ", "))
	}
	for _, k := range st.lines.keys() {
		if k == "kind" || k == "as" || k == "at" {
			continue
		}
		if !slices.Contains(def.takes, k) {
			takes := "no arguments"
			if len(def.takes) > 0 {
				takes = "only " + strings.Join(def.takes, ", ")
			}
			return c.errf(st.line(k), k, "fault %s takes %s: %s would be ignored", a.Kind, takes, k)
		}
	}
	for _, k := range def.requires {
		if !st.lines.has(k) && !(k == "key" && a.When != "") {
			return c.errf(st.Line, k, "fault %s needs %s", a.Kind, k)
		}
	}
	if a.When != "" {
		if !slices.Contains(FaultWhens, a.When) {
			return c.errf(st.line("when"), a.When, "unknown request selector (known: %s; or write where:)", strings.Join(FaultWhens, ", "))
		}
		if a.Key != nil && kmsg.Key(*a.Key) != kmsg.ConsumerGroupHeartbeat {
			return c.errf(st.line("key"), a.Key.String(), "when: leave-heartbeat selects ConsumerGroupHeartbeat requests")
		}
		if a.Where != nil {
			return c.errf(st.line("where"), "where", "give when or where, not both")
		}
	}
	if a.Kind == "delay" && a.Delay.D() <= 0 {
		return c.errf(st.line("delay"), "delay", "a delay must be > 0")
	}
	if a.Kind == "restart" && a.Downtime.D() <= 0 {
		return c.errf(st.line("downtime"), "downtime", "a downtime must be > 0")
	}
	if a.Topic != "" {
		if _, err := c.topic(st.line("topic"), "topic", a.Topic); err != nil {
			return err
		}
		if key := a.key(); !vocab.CarriesTopics(key) {
			return c.errf(st.line("topic"), "topic", "%s requests carry no topic: topic %q would never match", key.Name(), a.Topic)
		}
	}
	if a.Where != nil {
		if _, err := a.Where.compile(a.key()); err != nil {
			return c.errf(st.line("where"), "where", "%v", err)
		}
	}
	if a.Node != nil {
		if id, ok := a.Node.id(); ok && int(id) >= c.sc.Cluster.brokers() {
			return c.errf(st.line("node"), string(*a.Node), "the cluster has %d brokers (nodes 0..%d)", c.sc.Cluster.brokers(), c.sc.Cluster.brokers()-1)
		}
		if *a.Node == NodeCoordinator && c.groupConsumer(a.Consumer) == nil {
			return c.errf(st.line("node"), NodeCoordinator, "no consumer has a group to find the coordinator of")
		}
	}
	if a.Kind == "coordinator-unavailable" && c.groupConsumer(a.Consumer) == nil {
		return c.errf(st.Line, a.Kind, "no consumer has a group (group: true)")
	}
	if a.Consumer != "" {
		if _, ok := c.sc.ConsumerByName(a.Consumer); !ok {
			return c.errf(st.line("consumer"), a.Consumer, "unknown consumer")
		}
	}
	return nil
}

// key is the API the fault selects.
func (a *Fault) key() kmsg.Key {
	if a.When == "leave-heartbeat" {
		return kmsg.ConsumerGroupHeartbeat
	}
	if a.Key == nil {
		return 0
	}
	return kmsg.Key(*a.Key)
}

func (a *Fault) run(ctx context.Context, r *run, st *Step) error {
	def, _ := faultDefOf(a.Kind)
	f, err := def.install(ctx, r, a)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.faults[st.name()] = f
	r.mu.Unlock()
	return nil
}

// faultGroup is the group id a coordinator fault is about.
func (r *run) faultGroup(a *Fault) string {
	if a.Consumer != "" {
		return r.member(a.Consumer).group
	}
	for _, m := range r.order {
		if m.group != "" {
			return m.group
		}
	}
	return ""
}

// faultNodes resolves Node (nil: every broker, as no Nodes).
func (r *run) faultNodes(ctx context.Context, a *Fault) ([]int32, error) {
	if a.Node == nil {
		return nil, nil
	}
	if id, ok := a.Node.id(); ok {
		return []int32{id}, nil
	}
	id, err := r.cl.Coordinator(ctx, r.faultGroup(a))
	if err != nil {
		return nil, fmt.Errorf("find the coordinator: %w", err)
	}
	return []int32{id}, nil
}

// injectNodes installs a fault of kind on the brokers Node names
// (faultNodes).
func (r *run) injectNodes(ctx context.Context, a *Fault, kind harness.FaultKind) (harness.Fault, error) {
	nodes, err := r.faultNodes(ctx, a)
	if err != nil {
		return nil, err
	}
	return r.cl.Inject(ctx, harness.FaultSpec{Kind: kind, Nodes: nodes})
}

// injectSelected installs spec for the fault's key with its selectors:
// where (or when), first and node.
func (r *run) injectSelected(ctx context.Context, a *Fault, spec harness.FaultSpec) (harness.Fault, error) {
	spec.Key = a.key()
	nodes, err := r.faultNodes(ctx, a)
	if err != nil {
		return nil, err
	}
	spec.Nodes = nodes
	var sel func(kmsg.Request) bool
	switch {
	case a.When == "leave-heartbeat":
		group := r.faultGroup(a)
		sel = func(req kmsg.Request) bool {
			hb, ok := req.(*kmsg.ConsumerGroupHeartbeatRequest)
			return ok && (group == "" || hb.Group == group) && hb.MemberEpoch == -1
		}
	case a.Where != nil:
		sel, _ = a.Where.compile(spec.Key)
	}
	if a.First > 0 {
		var n atomic.Int64
		inner, first := sel, int64(a.First)
		sel = func(req kmsg.Request) bool {
			if inner != nil && !inner(req) {
				return false
			}
			return n.Add(1) <= first
		}
	}
	spec.When = sel
	return r.cl.Inject(ctx, spec)
}

// keys lists the keys given, in order of their lines.
func (k keyLines) keys() []string {
	out := make([]string, 0, len(k))
	for key := range k {
		out = append(out, key)
	}
	slices.SortFunc(out, func(a, b string) int { return k[a] - k[b] })
	return out
}
