package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"go.yaml.in/yaml/v3"

	"github.com/kreactor/kreactor/catalogue"
)

// Scenario is one parsed scenario file.
type Scenario struct {
	File    string   // path as given
	Title   string   // the opening "# ..." line, without "#"
	ID      string   // spec id (labels "id:")
	Covers  []string // catalogue items (labels "covers:")
	Cluster ClusterSpec
	Client  ClientSpec
	Steps   []Step
	Expect  []Expectation
	// Signals are the expectation keys that express the covered Jira's
	// symptom: the negative control (the baseline) must fail on one of
	// them (issue 9). Required, with Liveness, for a file covering a
	// regression.
	Signals []string
	// Liveness are the expectation keys that express progress (records
	// delivered, a commit completing, an error surfaced): the null control
	// (a consumer that never sends) must fail on one of them.
	Liveness []string

	signalsLine, livenessLine int // where the lists are, for errors
}

// ClusterSpec is what the scenario needs from the target.
type ClusterSpec struct {
	Brokers           int
	Topics            map[string]int32
	HeartbeatInterval time.Duration
}

// ClientSpec overrides consumer.DefaultConfig. Nil pointers keep defaults.
type ClientSpec struct {
	Group              bool   // a unique group.id per run
	Bootstrap          string // "cluster" (default) or "unreachable"
	AutoOffsetReset    string
	EnableAutoCommit   *bool
	AutoCommitInterval *time.Duration
	RetryBackoff       *time.Duration
	RetryBackoffMax    *time.Duration
	// ReconnectBackoff ... SocketConnectionSetupTimeoutMax are the
	// connection settings (reconnect.backoff.ms, reconnect.backoff.max.ms,
	// socket.connection.setup.timeout.ms and .max.ms).
	ReconnectBackoff                *time.Duration
	ReconnectBackoffMax             *time.Duration
	SocketConnectionSetupTimeout    *time.Duration
	SocketConnectionSetupTimeoutMax *time.Duration
	DefaultAPITimeout               *time.Duration // default.api.timeout.ms
	MaxPollInterval                 *time.Duration // max.poll.interval.ms
	RequestTimeout                  *time.Duration
	MetadataMaxAge                  *time.Duration
	FetchMaxWait                    *time.Duration
	MaxPollRecords                  *int
}

// Error is a problem in a scenario file, with its position.
type Error struct {
	File string
	Line int
	Key  string // the offending key, if any
	Msg  string
}

func (e *Error) Error() string {
	if e.Key != "" {
		return fmt.Sprintf("%s:%d: %q: %s", e.File, e.Line, e.Key, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// LoadDir loads every *.yaml file in dir, sorted by name. Errors: the first
// file that fails to load.
func LoadDir(dir string) ([]*Scenario, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("scenario: no *.yaml files in %s", dir)
	}
	slices.Sort(files)
	var out []*Scenario
	ids := map[string]string{}
	for _, f := range files {
		sc, err := Load(f)
		if err != nil {
			return nil, err
		}
		if prev, ok := ids[sc.ID]; ok {
			return nil, &Error{File: f, Line: 1, Key: "id", Msg: fmt.Sprintf("duplicate id %q (also in %s)", sc.ID, prev)}
		}
		ids[sc.ID] = f
		out = append(out, sc)
	}
	return out, nil
}

// Load reads and validates one scenario file. Errors: *Error for anything
// wrong in the file, or the read error (a missing file names its path).
func Load(file string) (*Scenario, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return Parse(file, data)
}

// Parse validates data as the scenario file named file.
func Parse(file string, data []byte) (*Scenario, error) {
	p := &parser{file: file}
	first, _, _ := bytes.Cut(data, []byte("\n"))
	if !bytes.HasPrefix(bytes.TrimSpace(first), []byte("#")) {
		return nil, p.errf(1, "", "the first line must be a \"# ...\" comment saying what the scenario checks")
	}
	sc := &Scenario{File: file, Title: strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(first)), "#"))}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line := 0
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		return nil, p.errf(line, "", "not valid YAML: %v", err)
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, p.errf(1, "", "the document must be a mapping")
	}
	err := p.mapping(doc.Content[0], "scenario", map[string]func(*yaml.Node) error{
		"id":       func(n *yaml.Node) error { return p.str(n, &sc.ID) },
		"covers":   func(n *yaml.Node) error { return p.strs(n, &sc.Covers) },
		"cluster":  func(n *yaml.Node) error { return p.cluster(n, &sc.Cluster) },
		"consumer": func(n *yaml.Node) error { return p.client(n, &sc.Client) },
		"steps":    func(n *yaml.Node) error { return p.steps(n, &sc.Steps) },
		"expect":   func(n *yaml.Node) error { return p.expectations(n, &sc.Expect) },
		"signals": func(n *yaml.Node) error {
			sc.signalsLine = n.Line
			return p.strs(n, &sc.Signals)
		},
		"liveness": func(n *yaml.Node) error {
			sc.livenessLine = n.Line
			return p.strs(n, &sc.Liveness)
		},
	}, "id", "covers", "steps", "expect")
	if err != nil {
		return nil, err
	}
	if err := p.check(sc); err != nil {
		return nil, err
	}
	return sc, nil
}

// yamlLine finds the line yaml.v3 names in its syntax errors.
var yamlLine = regexp.MustCompile(`line (\d+)`)

type parser struct{ file string }

func (p *parser) errf(line int, key, format string, args ...any) error {
	return &Error{File: p.file, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)}
}

// mapping walks a mapping node calling the handler of each key; an unknown
// key is an error listing the known ones; required keys must be present.
func (p *parser) mapping(n *yaml.Node, what string, handlers map[string]func(*yaml.Node) error, required ...string) error {
	if n.Kind != yaml.MappingNode {
		return p.errf(n.Line, "", "%s must be a mapping", what)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		h, ok := handlers[k.Value]
		if !ok {
			known := make([]string, 0, len(handlers))
			for name := range handlers {
				known = append(known, name)
			}
			slices.Sort(known)
			return p.errf(k.Line, k.Value, "unknown key in %s (known: %s)", what, strings.Join(known, ", "))
		}
		if seen[k.Value] {
			return p.errf(k.Line, k.Value, "repeated key in %s", what)
		}
		seen[k.Value] = true
		if err := h(v); err != nil {
			return err
		}
	}
	for _, r := range required {
		if !seen[r] {
			return p.errf(n.Line, r, "missing required key in %s", what)
		}
	}
	return nil
}

// empty accepts a key with no arguments: nothing, null or {}.
func (p *parser) empty(n *yaml.Node, what string) error {
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!null" || n.Value == "") {
		return nil
	}
	return p.mapping(n, what, map[string]func(*yaml.Node) error{})
}

func (p *parser) str(n *yaml.Node, out *string) error {
	if n.Kind != yaml.ScalarNode || n.Value == "" {
		return p.errf(n.Line, "", "want a non-empty string, got %q", n.Value)
	}
	*out = n.Value
	return nil
}

func (p *parser) strs(n *yaml.Node, out *[]string) error {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return p.errf(n.Line, "", "want a non-empty list of strings")
	}
	for _, c := range n.Content {
		var s string
		if err := p.str(c, &s); err != nil {
			return err
		}
		*out = append(*out, s)
	}
	return nil
}

func (p *parser) int(n *yaml.Node, out *int) error {
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || v < 0 {
		return p.errf(n.Line, "", "want a non-negative integer, got %q", n.Value)
	}
	*out = v
	return nil
}

func (p *parser) bool(n *yaml.Node, out *bool) error {
	v, err := strconv.ParseBool(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		return p.errf(n.Line, "", "want true or false, got %q", n.Value)
	}
	*out = v
	return nil
}

// duration parses Go durations ("250ms", "3s").
func (p *parser) duration(n *yaml.Node, out *time.Duration) error {
	d, err := time.ParseDuration(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || d < 0 {
		return p.errf(n.Line, "", "want a duration such as 250ms or 3s, got %q", n.Value)
	}
	*out = d
	return nil
}

func durPtr(p *parser, n *yaml.Node, out **time.Duration) error {
	var d time.Duration
	if err := p.duration(n, &d); err != nil {
		return err
	}
	*out = &d
	return nil
}

func (p *parser) cluster(n *yaml.Node, c *ClusterSpec) error {
	return p.mapping(n, "cluster", map[string]func(*yaml.Node) error{
		"brokers":            func(n *yaml.Node) error { return p.int(n, &c.Brokers) },
		"heartbeat_interval": func(n *yaml.Node) error { return p.duration(n, &c.HeartbeatInterval) },
		"topics": func(n *yaml.Node) error {
			c.Topics = map[string]int32{}
			return p.mapping(n, "cluster.topics", anyKey(n, func(k, v *yaml.Node) error {
				var parts int
				if err := p.int(v, &parts); err != nil || parts < 1 {
					return p.errf(v.Line, k.Value, "partitions must be an integer >= 1")
				}
				c.Topics[k.Value] = int32(parts)
				return nil
			}))
		},
	})
}

// anyKey builds handlers accepting every key of n (for maps keyed by name).
func anyKey(n *yaml.Node, fn func(k, v *yaml.Node) error) map[string]func(*yaml.Node) error {
	hs := map[string]func(*yaml.Node) error{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		hs[k.Value] = func(v *yaml.Node) error { return fn(k, v) }
	}
	return hs
}

func (p *parser) client(n *yaml.Node, c *ClientSpec) error {
	return p.mapping(n, "consumer", map[string]func(*yaml.Node) error{
		"group": func(n *yaml.Node) error { return p.bool(n, &c.Group) },
		"bootstrap": func(n *yaml.Node) error {
			if n.Value != "cluster" && n.Value != "unreachable" {
				return p.errf(n.Line, "bootstrap", "want cluster or unreachable, got %q", n.Value)
			}
			c.Bootstrap = n.Value
			return nil
		},
		"auto_offset_reset": func(n *yaml.Node) error { return p.str(n, &c.AutoOffsetReset) },
		"enable_auto_commit": func(n *yaml.Node) error {
			var b bool
			c.EnableAutoCommit = &b
			return p.bool(n, &b)
		},
		"auto_commit_interval":  func(n *yaml.Node) error { return durPtr(p, n, &c.AutoCommitInterval) },
		"retry_backoff":         func(n *yaml.Node) error { return durPtr(p, n, &c.RetryBackoff) },
		"retry_backoff_max":     func(n *yaml.Node) error { return durPtr(p, n, &c.RetryBackoffMax) },
		"reconnect_backoff":     func(n *yaml.Node) error { return durPtr(p, n, &c.ReconnectBackoff) },
		"reconnect_backoff_max": func(n *yaml.Node) error { return durPtr(p, n, &c.ReconnectBackoffMax) },
		"socket_connection_setup_timeout": func(n *yaml.Node) error {
			return durPtr(p, n, &c.SocketConnectionSetupTimeout)
		},
		"socket_connection_setup_timeout_max": func(n *yaml.Node) error {
			return durPtr(p, n, &c.SocketConnectionSetupTimeoutMax)
		},
		"default_api_timeout": func(n *yaml.Node) error { return durPtr(p, n, &c.DefaultAPITimeout) },
		"max_poll_interval":   func(n *yaml.Node) error { return durPtr(p, n, &c.MaxPollInterval) },
		"request_timeout":     func(n *yaml.Node) error { return durPtr(p, n, &c.RequestTimeout) },
		"metadata_max_age":    func(n *yaml.Node) error { return durPtr(p, n, &c.MetadataMaxAge) },
		"fetch_max_wait":      func(n *yaml.Node) error { return durPtr(p, n, &c.FetchMaxWait) },
		"max_poll_records": func(n *yaml.Node) error {
			var v int
			c.MaxPollRecords = &v
			return p.int(n, &v)
		},
	})
}

// apiKey parses a Kafka API name ("FindCoordinator") or number.
func (p *parser) apiKey(n *yaml.Node, out *kmsg.Key) error {
	if v, err := strconv.Atoi(n.Value); err == nil && kmsg.RequestForKey(int16(v)) != nil {
		*out = kmsg.Key(v)
		return nil
	}
	for k := int16(0); k < 200; k++ {
		if kmsg.RequestForKey(k) != nil && kmsg.NameForKey(k) == n.Value {
			*out = kmsg.Key(k)
			return nil
		}
	}
	return p.errf(n.Line, n.Value, "unknown Kafka API (use its name, e.g. FindCoordinator, OffsetCommit, Fetch)")
}

// kafkaError parses a Kafka error name ("TOPIC_AUTHORIZATION_FAILED").
func kafkaError(name string) (*kerr.Error, bool) {
	for code := int16(-1); code < 150; code++ {
		var ke *kerr.Error
		if errors.As(kerr.ErrorForCode(code), &ke) && ke.Message == name {
			return ke, true
		}
	}
	return nil, false
}

func (p *parser) check(sc *Scenario) error {
	windows := map[string]int{} // name -> line opened
	names := map[string]string{}
	for _, st := range sc.Steps {
		switch st.Kind {
		case "window":
			windows[st.Name] = st.Line
		case "end_window":
			if _, ok := windows[st.Name]; !ok {
				return p.errf(st.Line, st.Name, "end_window of a window not opened before")
			}
		case "heal":
			if names[st.Name] != "fault" {
				return p.errf(st.Line, st.Name, "heal of a fault not installed before (name it with as:)")
			}
		}
		if st.As != "" {
			if _, dup := names[st.As]; dup {
				return p.errf(st.Line, st.As, "name used twice")
			}
			names[st.As] = st.Kind
		}
	}
	regression := false
	if cat, err := catalogue.Load(); err == nil {
		for _, c := range sc.Covers {
			it, ok := cat.Lookup(c)
			if !ok {
				return p.errf(1, c, "covers an item the catalogue does not have (catalogue/catalogue.json)")
			}
			regression = regression || it.Kind == catalogue.KindRegression
		}
	}
	for _, e := range sc.Expect {
		for _, w := range []string{e.Window, e.Idle} {
			if w == "" {
				continue
			}
			if _, ok := windows[w]; !ok {
				return p.errf(e.Line, w, "unknown window (open one with a window step)")
			}
		}
		if e.Of != "" {
			kind, ok := names[e.Of]
			if !ok {
				return p.errf(e.Line, e.Of, "unknown step name (name a step with as:)")
			}
			if want := e.ofKinds(); len(want) > 0 && !slices.Contains(want, kind) {
				return p.errf(e.Line, e.Of, "names a %s step; %s expects one of %v", kind, e.Kind, want)
			}
		}
	}
	known := map[string]bool{}
	for _, e := range sc.Expect {
		for _, k := range e.keys() {
			known[k] = true
		}
	}
	for _, list := range []struct {
		name string
		keys []string
		line int
	}{{"signals", sc.Signals, sc.signalsLine}, {"liveness", sc.Liveness, sc.livenessLine}} {
		if regression && len(list.keys) == 0 {
			return p.errf(1, list.name, "a scenario covering a regression names its %s: expectation keys (%s)", list.name, strings.Join(slices.Sorted(maps.Keys(known)), ", "))
		}
		for _, k := range list.keys {
			if !known[k] {
				return p.errf(list.line, k, "%s names a key no expectation has (keys: %s)", list.name, strings.Join(slices.Sorted(maps.Keys(known)), ", "))
			}
		}
	}
	return nil
}
