package scenario

// The generic decoder: every step's, fault's and expectation's arguments are
// a plain struct whose `yaml` tags name the keys and whose `sc` tags give the
// rules (required, bounds); the decoder walks the YAML node, so each key is
// checked against its field with the line it is on, and an unknown key is an
// error listing the known ones. Format writes the same structs back with
// yaml.v3, so a file and its Scenario are one definition.

import (
	"cmp"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"
)

type parser struct{ file string }

func (p *parser) errf(line int, key, format string, args ...any) error {
	return &Error{File: p.file, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)}
}

// sized checks that n is a non-empty node of kind (a mapping counts its
// pairs) with at most max entries. Its errors are at key: want, or that n
// has more entries (noun) than maxName allows.
func (p *parser) sized(n *yaml.Node, kind yaml.Kind, key, want, noun string, max int, maxName string) error {
	if n.Kind != kind || len(n.Content) == 0 {
		return p.errf(n.Line, key, "%s", want)
	}
	entries := len(n.Content)
	if kind == yaml.MappingNode {
		entries /= 2
	}
	if entries > max {
		return p.errf(n.Line, key, "%d %s, more than %s (%d)", entries, noun, maxName, max)
	}
	return nil
}

// namedMap checks mapping n as sized does, then calls fn with each key, a
// name (p.str's rules), and its value, in file order, until fn fails.
func (p *parser) namedMap(n *yaml.Node, key, want, noun string, max int, maxName string, fn func(name string, k, v *yaml.Node) error) error {
	if err := p.sized(n, yaml.MappingNode, key, want, noun, max, maxName); err != nil {
		return err
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		var name string
		if err := p.str(k, key, true, &name); err != nil {
			return err
		}
		if err := fn(name, k, v); err != nil {
			return err
		}
	}
	return nil
}

// kindList checks sequence n (the list of noun under key) as sized does,
// then calls fn with each entry, a mapping with exactly one key (the
// entry's kind; notOne is the error for an entry that is not one), in file
// order, until fn fails.
func (p *parser) kindList(n *yaml.Node, key, noun string, max int, maxName, notOne string, fn func(item *yaml.Node) error) error {
	if err := p.sized(n, yaml.SequenceNode, key, "want a non-empty list of "+noun, noun, max, maxName); err != nil {
		return err
	}
	for _, item := range n.Content {
		if item.Kind != yaml.MappingNode || len(item.Content) != 2 {
			return p.errf(item.Line, "", "%s", notOne)
		}
		if err := fn(item); err != nil {
			return err
		}
	}
	return nil
}

// nodeDecoder is implemented (on the pointer) by field types with a syntax
// of their own (an API key by name, a Kafka error by name, an at: anchor, a
// body selector).
type nodeDecoder interface {
	decodeNode(p *parser, n *yaml.Node) error
}

var nodeDecoderType = reflect.TypeFor[nodeDecoder]()

// limitsByName are the limits an `sc:"max=..."` tag may name.
var limitsByName = map[string]int64{
	"count":      MaxCount,
	"produce":    MaxProduce,
	"rate":       MaxRate,
	"partitions": MaxPartitions,
	"call":       int64(MaxCallTimeout),
	"step":       int64(MaxStepDuration),
	"timeline":   int64(MaxTimeline),
}

// limitNames says in errors which limit a bound is.
var limitNames = map[string]string{
	"count": "MaxCount", "produce": "MaxProduce", "rate": "MaxRate", "partitions": "MaxPartitions",
	"call": "MaxCallTimeout", "step": "MaxStepDuration", "timeline": "MaxTimeline",
}

// fieldRule is a struct field's key and rules.
type fieldRule struct {
	index    []int
	key      string
	required bool
	name     bool   // a name: MaxNameLen, no spaces, printable characters only
	min      int64  // ints: smallest value (default 0)
	max      string // limit name; "" means count (ints) or timeline (durations)
	signed   bool   // ints: negative values allowed (offsets, epochs)
}

func rulesOf(t reflect.Type) []fieldRule {
	var out []fieldRule
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		key, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if key == "" && strings.Contains(opts, "inline") && f.Type.Kind() == reflect.Struct {
			for _, r := range rulesOf(f.Type) {
				r.index = append([]int{i}, r.index...)
				out = append(out, r)
			}
			continue
		}
		if key == "" || key == "-" {
			continue
		}
		r := fieldRule{index: []int{i}, key: key}
		for _, opt := range strings.Split(f.Tag.Get("sc"), ",") {
			k, v, _ := strings.Cut(opt, "=")
			switch k {
			case "required":
				r.required = true
			case "name":
				r.name = true
			case "min":
				r.min, _ = strconv.ParseInt(v, 10, 64)
			case "max":
				r.max = v
			case "signed":
				r.signed = true
			}
		}
		out = append(out, r)
	}
	return out
}

// keyLines records the line of each key a mapping gave.
type keyLines map[string]int

// has reports whether key was given.
func (k keyLines) has(key string) bool { _, ok := k[key]; return ok }

// line is key's line, or def.
func (k keyLines) line(key string, def int) int {
	if l, ok := k[key]; ok {
		return l
	}
	return def
}

// decodeStruct decodes mapping n into the struct dst points to. extra
// handles keys that are not fields (a step's modifiers); it may be nil. A
// null or empty node decodes as an empty mapping. It returns the line of
// every key given.
func (p *parser) decodeStruct(n *yaml.Node, what string, dst any, extra map[string]func(*yaml.Node) error) (keyLines, error) {
	v := reflect.ValueOf(dst).Elem()
	rules := rulesOf(v.Type())
	lines := keyLines{}
	if isNull(n) {
		n = &yaml.Node{Kind: yaml.MappingNode, Line: n.Line}
	}
	if n.Kind != yaml.MappingNode {
		return nil, p.errf(n.Line, "", "%s takes a mapping of arguments (keys: %s), got %s", what, strings.Join(knownKeys(rules, extra), ", "), describe(n))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if lines.has(k.Value) {
			return nil, p.errf(k.Line, k.Value, "repeated key in %s", what)
		}
		lines[k.Value] = k.Line
		if h, ok := extra[k.Value]; ok {
			if err := h(val); err != nil {
				return nil, err
			}
			continue
		}
		idx := slices.IndexFunc(rules, func(r fieldRule) bool { return r.key == k.Value })
		if idx < 0 {
			return nil, p.errf(k.Line, k.Value, "unknown key in %s (known: %s)", what, strings.Join(knownKeys(rules, extra), ", "))
		}
		r := rules[idx]
		if err := p.decodeValue(val, k.Value, r, v.FieldByIndex(r.index)); err != nil {
			return nil, err
		}
	}
	for _, r := range rules {
		if r.required && !lines.has(r.key) {
			return nil, p.errf(n.Line, r.key, "missing required key in %s", what)
		}
	}
	return lines, nil
}

func knownKeys(rules []fieldRule, extra map[string]func(*yaml.Node) error) []string {
	var out []string
	for _, r := range rules {
		out = append(out, r.key)
	}
	for k := range extra {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && (n.Tag == "!!null" || (n.Value == "" && n.Style == 0))
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return fmt.Sprintf("%q", n.Value)
}

// decodeValue decodes n into field f of rule r.
func (p *parser) decodeValue(n *yaml.Node, key string, r fieldRule, f reflect.Value) error {
	if f.Kind() == reflect.Pointer {
		nv := reflect.New(f.Type().Elem())
		if err := p.decodeValue(n, key, r, nv.Elem()); err != nil {
			return err
		}
		f.Set(nv)
		return nil
	}
	if f.CanAddr() && f.Addr().Type().Implements(nodeDecoderType) {
		return f.Addr().Interface().(nodeDecoder).decodeNode(p, n)
	}
	switch f.Type() {
	case reflect.TypeFor[Duration]():
		var d time.Duration
		if err := p.duration(n, key, r.max, &d); err != nil {
			return err
		}
		f.SetInt(int64(d))
		return nil
	}
	switch f.Kind() {
	case reflect.String:
		var s string
		if err := p.str(n, key, r.name, &s); err != nil {
			return err
		}
		f.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(n.Value)
		if n.Kind != yaml.ScalarNode || err != nil {
			return p.errf(n.Line, key, "want true or false, got %s", describe(n))
		}
		f.SetBool(b)
	case reflect.Float64:
		v, err := strconv.ParseFloat(n.Value, 64)
		if n.Kind != yaml.ScalarNode || err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return p.errf(n.Line, key, "want a finite non-negative number, got %s", describe(n))
		}
		if v > float64(limitsByName[cmp.Or(r.max, "count")]) {
			return p.errf(n.Line, key, "%v is more than %s (%d)", v, limitNames[cmp.Or(r.max, "count")], limitsByName[cmp.Or(r.max, "count")])
		}
		f.SetFloat(v)
	case reflect.Int, reflect.Int32, reflect.Int64:
		v, err := p.integer(n, key, r)
		if err != nil {
			return err
		}
		if f.OverflowInt(v) {
			return p.errf(n.Line, key, "%d does not fit", v)
		}
		f.SetInt(v)
	case reflect.Slice:
		if err := p.sized(n, yaml.SequenceNode, key, fmt.Sprintf("want a non-empty list, got %s", describe(n)), "entries", MaxListLen, "MaxListLen"); err != nil {
			return err
		}
		s := reflect.MakeSlice(f.Type(), len(n.Content), len(n.Content))
		for i, c := range n.Content {
			if err := p.decodeValue(c, key, r, s.Index(i)); err != nil {
				return err
			}
		}
		f.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(f.Type())
		err := p.namedMap(n, key, fmt.Sprintf("want a non-empty mapping, got %s", describe(n)), "entries", MaxListLen, "MaxListLen", func(ks string, k, v *yaml.Node) error {
			if m.MapIndex(reflect.ValueOf(ks)).IsValid() {
				return p.errf(k.Line, ks, "repeated key in %s", key)
			}
			ev := reflect.New(f.Type().Elem()).Elem()
			if err := p.decodeValue(v, ks, fieldRule{max: r.max, min: r.min, name: false}, ev); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(ks), ev)
			return nil
		})
		if err != nil {
			return err
		}
		f.Set(m)
	case reflect.Struct:
		_, err := p.decodeStruct(n, key, f.Addr().Interface(), nil)
		return err
	default:
		return p.errf(n.Line, key, "internal: no decoder for %s", f.Type())
	}
	return nil
}

// maxStringLen bounds any string value that is not a name.
const maxStringLen = 1000

func (p *parser) str(n *yaml.Node, key string, name bool, out *string) error {
	if n.Kind != yaml.ScalarNode || n.Value == "" || isNull(n) {
		return p.errf(n.Line, key, "want a non-empty string, got %s", describe(n))
	}
	switch {
	case name && len(n.Value) > MaxNameLen:
		return p.errf(n.Line, key, "a name of %d characters, more than MaxNameLen (%d)", len(n.Value), MaxNameLen)
	case name && strings.ContainsAny(n.Value, " \t\r\n"):
		return p.errf(n.Line, key, "a name must not contain spaces, got %q", n.Value)
	case name && strings.IndexFunc(n.Value, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0:
		return p.errf(n.Line, key, "a name must contain printable characters only (no control characters), got %q", n.Value)
	case len(n.Value) > maxStringLen:
		return p.errf(n.Line, key, "a string of %d characters, more than %d", len(n.Value), maxStringLen)
	}
	*out = n.Value
	return nil
}

func (p *parser) integer(n *yaml.Node, key string, r fieldRule) (int64, error) {
	v, err := strconv.ParseInt(n.Value, 10, 64)
	if n.Kind != yaml.ScalarNode || err != nil {
		if f, ferr := strconv.ParseFloat(n.Value, 64); n.Kind == yaml.ScalarNode && ferr == nil && f == math.Trunc(f) && !math.IsInf(f, 0) {
			return 0, p.errf(n.Line, key, "want an integer written in digits, got %q (%.0f)", n.Value, f)
		}
		return 0, p.errf(n.Line, key, "want an integer, got %s", describe(n))
	}
	lo := r.min
	if r.signed && r.min == 0 {
		lo = -MaxCount
	}
	hiName := r.max
	if hiName == "" {
		hiName = "count"
	}
	hi := limitsByName[hiName]
	if v < lo {
		if lo == 0 {
			return 0, p.errf(n.Line, key, "want a non-negative integer, got %d", v)
		}
		return 0, p.errf(n.Line, key, "want an integer >= %d, got %d", lo, v)
	}
	if v > hi {
		return 0, p.errf(n.Line, key, "%d is more than %s (%d)", v, limitNames[hiName], hi)
	}
	return v, nil
}

// duration parses a Go duration ("250ms", "3s") of at most the named limit
// ("" is MaxTimeline).
func (p *parser) duration(n *yaml.Node, key, limit string, out *time.Duration) error {
	d, err := time.ParseDuration(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || d < 0 {
		return p.errf(n.Line, key, "want a duration such as 250ms or 3s, got %s", describe(n))
	}
	if limit == "" {
		limit = "timeline"
	}
	if hi := time.Duration(limitsByName[limit]); d > hi {
		return p.errf(n.Line, key, "%s is longer than %s (%s)", d, limitNames[limit], hi)
	}
	*out = d
	return nil
}

// checkNoAliases refuses anchors and aliases: scenario files do not need
// them, and an alias is how a small YAML file expands without bound.
func (p *parser) checkNoAliases(n *yaml.Node) error {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return p.errf(n.Line, "", "YAML anchors and aliases are not allowed in scenario files")
	}
	for _, c := range n.Content {
		if err := p.checkNoAliases(c); err != nil {
			return err
		}
	}
	return nil
}
