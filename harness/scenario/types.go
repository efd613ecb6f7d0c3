package scenario

import (
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"go.yaml.in/yaml/v3"

	"github.com/kreactor/kreactor/fakebroker/vocab"
)

// APIKey is a Kafka API, written by name ("FindCoordinator") or number.
type APIKey kmsg.Key

func (k APIKey) String() string { return kmsg.NameForKey(int16(k)) }

// MarshalYAML writes the API's name.
func (k APIKey) MarshalYAML() (any, error) { return k.String(), nil }

func (k *APIKey) decodeNode(p *parser, n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		if key, ok := vocab.ParseAPIKey(n.Value); ok {
			*k = APIKey(key)
			return nil
		}
	}
	return p.errf(n.Line, n.Value, "unknown Kafka API (use its name, e.g. FindCoordinator, OffsetCommit, Fetch)")
}

// KafkaError is a Kafka error code, written by name
// ("TOPIC_AUTHORIZATION_FAILED").
type KafkaError string

func (e *KafkaError) decodeNode(p *parser, n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return p.errf(n.Line, "", "want a Kafka error name, got %s", describe(n))
	}
	if _, ok := kafkaError(n.Value); !ok {
		return p.errf(n.Line, n.Value, "unknown Kafka error name (e.g. NOT_COORDINATOR)")
	}
	*e = KafkaError(n.Value)
	return nil
}

// Err is the kerr value.
func (e KafkaError) Err() *kerr.Error {
	ke, _ := kafkaError(string(e))
	return ke
}

// kafkaError parses a Kafka error name (vocab.ParseError).
func kafkaError(name string) (*kerr.Error, bool) { return vocab.ParseError(name) }

// At is when a step runs on the timeline: Offset after the start of the
// step named Step (after its end with End), or after the timeline's start
// when Step is "". Written "300ms", "+300ms", "long+300ms", "long.end+100ms"
// or "long".
type At struct {
	Step   string
	End    bool
	Offset time.Duration
}

func (a At) String() string {
	s := a.Step
	if a.End {
		s += ".end"
	}
	if a.Offset > 0 || s == "" {
		s += "+" + a.Offset.String()
	}
	return s
}

// MarshalYAML writes the anchor as the file does.
func (a At) MarshalYAML() (any, error) { return a.String(), nil }

func (a *At) decodeNode(p *parser, n *yaml.Node) error {
	bad := func() error {
		return p.errf(n.Line, "at", "want 300ms (from the timeline's start), NAME+300ms (from the start of the step named NAME) or NAME.end+300ms, got %s", describe(n))
	}
	if n.Kind != yaml.ScalarNode || n.Value == "" {
		return bad()
	}
	name, off, hasOff := strings.Cut(n.Value, "+")
	if !hasOff {
		if d, err := time.ParseDuration(n.Value); err == nil {
			name, off, hasOff = "", n.Value, true
			_ = d
		}
	}
	if hasOff {
		d, err := time.ParseDuration(off)
		if err != nil || d < 0 {
			return bad()
		}
		if d > MaxStepDuration {
			return p.errf(n.Line, "at", "offset %s is longer than MaxStepDuration (%s)", d, MaxStepDuration)
		}
		a.Offset = d
	}
	if before, ok := strings.CutSuffix(name, ".end"); ok {
		name, a.End = before, true
		if name == "" {
			return bad()
		}
	}
	if strings.ContainsAny(name, " .") {
		return bad()
	}
	a.Step = name
	return nil
}

// Where selects requests by their body: each key is a top-level field of the
// API's request, in snake case (ConsumerGroupHeartbeat's MemberEpoch is
// member_epoch), with the value it must have. Checked against the API when
// the file loads.
type Where map[string]string

// compile checks w against API key and returns its predicate
// (vocab.CompileWhere: the control API reads selectors the same way).
// Errors name the entry and the keys the API has.
func (w Where) compile(key kmsg.Key) (func(kmsg.Request) bool, error) {
	return vocab.CompileWhere(key, w)
}

func (w *Where) decodeNode(p *parser, n *yaml.Node) error {
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		return p.errf(n.Line, "where", "want a mapping of request fields to values, e.g. {member_epoch: -1}, got %s", describe(n))
	}
	if len(n.Content)/2 > MaxListLen {
		return p.errf(n.Line, "where", "more than MaxListLen (%d) fields", MaxListLen)
	}
	*w = Where{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			return p.errf(v.Line, k.Value, "want a scalar value, got %s", describe(v))
		}
		if _, dup := (*w)[k.Value]; dup {
			return p.errf(k.Line, k.Value, "repeated key in where")
		}
		(*w)[k.Value] = v.Value
	}
	return nil
}

// Node names a broker: its node id, or "coordinator" (the coordinator of
// the fault's consumer's group, resolved when the fault is injected).
type Node string

// NodeCoordinator names the group's coordinator.
const NodeCoordinator = "coordinator"

func (nd *Node) decodeNode(p *parser, n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		if n.Value == NodeCoordinator {
			*nd = Node(n.Value)
			return nil
		}
		if v, err := strconv.Atoi(n.Value); err == nil && v >= 0 && v < MaxBrokers {
			*nd = Node(n.Value)
			return nil
		}
	}
	return p.errf(n.Line, "node", "want a broker's node id (0..%d) or coordinator, got %s", MaxBrokers-1, describe(n))
}

// id is the node id of a numeric Node.
func (nd Node) id() (int32, bool) {
	v, err := strconv.Atoi(string(nd))
	return int32(v), err == nil
}
