package scenario

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"go.yaml.in/yaml/v3"
)

// APIKey is a Kafka API, written by name ("FindCoordinator") or number.
type APIKey kmsg.Key

func (k APIKey) String() string { return kmsg.NameForKey(int16(k)) }

// MarshalYAML writes the API's name.
func (k APIKey) MarshalYAML() (any, error) { return k.String(), nil }

func (k *APIKey) decodeNode(p *parser, n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		if v, err := strconv.Atoi(n.Value); err == nil && v >= 0 && v < 1<<15 && kmsg.RequestForKey(int16(v)) != nil {
			*k = APIKey(v)
			return nil
		}
		if key, ok := apiKeyByName(n.Value); ok {
			*k = APIKey(key)
			return nil
		}
	}
	return p.errf(n.Line, n.Value, "unknown Kafka API (use its name, e.g. FindCoordinator, OffsetCommit, Fetch)")
}

func apiKeyByName(name string) (kmsg.Key, bool) {
	for k := int16(0); k < 200; k++ {
		if kmsg.RequestForKey(k) != nil && kmsg.NameForKey(k) == name {
			return kmsg.Key(k), true
		}
	}
	return 0, false
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

// kafkaError parses a Kafka error name.
func kafkaError(name string) (*kerr.Error, bool) {
	for code := int16(-1); code < 200; code++ {
		var ke *kerr.Error
		if errors.As(kerr.ErrorForCode(code), &ke) && ke.Message == name {
			return ke, true
		}
	}
	return nil, false
}

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

// whereField is one compiled Where entry.
type whereField struct {
	name  string // Go field name
	value any    // int64, string or bool
}

// snake is a Go field name in snake case ("MemberEpoch" -> "member_epoch",
// "MemberID" -> "member_id").
func snake(name string) string {
	var b strings.Builder
	rs := []rune(name)
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 && (unicode.IsLower(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// whereKeys lists the keys Where may use for API key: its request's
// top-level integer, string and bool fields.
func whereKeys(key kmsg.Key) map[string]reflect.StructField {
	req := kmsg.RequestForKey(int16(key))
	if req == nil {
		return nil
	}
	t := reflect.TypeOf(req).Elem()
	out := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Name == "Version" {
			continue
		}
		switch f.Type.Kind() {
		case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.String, reflect.Bool:
			out[snake(f.Name)] = f
		case reflect.Pointer:
			if f.Type.Elem().Kind() == reflect.String {
				out[snake(f.Name)] = f
			}
		}
	}
	return out
}

// compile checks w against API key and returns its predicate. Errors name
// the entry and the keys the API has.
func (w Where) compile(key kmsg.Key) (func(kmsg.Request) bool, error) {
	fields := whereKeys(key)
	var want []whereField
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range w {
			if !yield(k) {
				return
			}
		}
	}) {
		f, ok := fields[k]
		if !ok {
			names := make([]string, 0, len(fields))
			for n := range fields {
				names = append(names, n)
			}
			slices.Sort(names)
			return nil, fmt.Errorf("%s requests have no field %q (fields: %s)", key.Name(), k, strings.Join(names, ", "))
		}
		v := w[k]
		var val any
		kind := f.Type.Kind()
		if kind == reflect.Pointer {
			kind = f.Type.Elem().Kind()
		}
		switch kind {
		case reflect.String:
			val = v
		case reflect.Bool:
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("%s: want true or false, got %q", k, v)
			}
			val = b
		default:
			i, err := strconv.ParseInt(v, 10, f.Type.Bits())
			if err != nil {
				return nil, fmt.Errorf("%s: want an integer of %d bits, got %q", k, f.Type.Bits(), v)
			}
			val = i
		}
		want = append(want, whereField{name: f.Name, value: val})
	}
	return func(req kmsg.Request) bool {
		if req == nil || req.Key() != int16(key) {
			return false
		}
		rv := reflect.ValueOf(req).Elem()
		for _, wf := range want {
			f := rv.FieldByName(wf.name)
			if f.Kind() == reflect.Pointer {
				if f.IsNil() {
					return false
				}
				f = f.Elem()
			}
			switch x := wf.value.(type) {
			case string:
				if f.String() != x {
					return false
				}
			case bool:
				if f.Bool() != x {
					return false
				}
			case int64:
				if f.Int() != x {
					return false
				}
			}
		}
		return true
	}, nil
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
