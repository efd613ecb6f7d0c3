package scenario

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/consumer/config"
)

// ConsumerSpec is one consumer of the file: its kind, group, bootstrap and
// settings over Java's defaults.
type ConsumerSpec struct {
	Name string `yaml:"-"`
	Line int    `yaml:"-"`
	// Kind is "regular" (KafkaConsumer, the default) or "share"
	// (KafkaShareConsumer, KIP-932).
	Kind string `yaml:"kind,omitempty"`
	// Group is the consumer's group: "" none (a regular consumer without
	// group.id), "true" the run's group, another name a second group of
	// the run; consumers naming the same group are members of one group.
	// Each run makes its group ids unique. A share consumer is in the
	// run's group unless it names another.
	Group string `yaml:"group,omitempty"`
	// Bootstrap is "cluster" (default) or "unreachable" (a loopback port
	// nothing listens on: every connection is refused).
	Bootstrap string `yaml:"bootstrap,omitempty"`
	// GroupConfigs are dynamic configs of the consumer's group, set before
	// the first step (share.auto.offset.reset, share.record.lock.duration.ms,
	// ...). A share consumer's group gets share.auto.offset.reset=earliest
	// unless it says otherwise.
	GroupConfigs map[string]string `yaml:"group_configs,omitempty"`
	// Settings are the consumer configuration over Java's defaults.
	Settings Settings `yaml:"-"`

	lines keyLines
}

// Consumer kinds.
const (
	KindRegular = "regular"
	KindShare   = "share"
)

// IsShare reports whether c is a share consumer.
func (c *ConsumerSpec) IsShare() bool { return c.Kind == KindShare }

// Settings are the consumer settings a file gives, by key: each a field of
// consumer.Config (and of consumer.ShareConfig where both have it), its key
// the field's Java setting without ".ms" and with "_" for "." (the Go name
// in snake case for a field with none), read from consumer/config's tags
// (settingFields); a value is the field's type, Duration for a duration and
// int for any integer. An absent key keeps the default: Java's, except
// auto_offset_reset (earliest here) and enable_auto_commit (false here), so
// every OffsetCommit a run sees is one its steps asked for.
// TestSettingKeys keeps the keys the files use.
type Settings map[string]any

// settingField is one setting a file may give.
type settingField struct {
	key, field string
	java       string // "" none
	share      bool   // consumer.ShareConfig has it too
	value      reflect.Type
}

// runSettings are the Config fields a run sets itself (bootstrap, client id
// and group), never a file.
var runSettings = []string{"BootstrapServers", "ClientID", "GroupID"}

// settingFields are the settings a file may give, in consumer.Config's
// order: every field whose value a file can write (a duration, an integer,
// a bool or a string) that the run does not set itself.
var settingFields = sync.OnceValue(func() []settingField {
	var out []settingField
	for _, f := range config.Fields[consumer.Config]() {
		var value reflect.Type
		switch {
		case slices.Contains(runSettings, f.Name):
			continue
		case f.Type == reflect.TypeFor[time.Duration]():
			value = reflect.TypeFor[Duration]()
		case f.Type.Kind() == reflect.Int || f.Type.Kind() == reflect.Int32 || f.Type.Kind() == reflect.Int64:
			value = reflect.TypeFor[int]()
		case f.Type.Kind() == reflect.Bool || f.Type.Kind() == reflect.String:
			value = f.Type
		default:
			continue // Dial, Logger, Rand: not for a file
		}
		_, share := config.Lookup[consumer.ShareConfig](f.Name)
		out = append(out, settingField{key: settingKey(f), field: f.Name, java: f.Java, share: share, value: value})
	}
	return out
})

// settingKey is f's key in a file: its Java setting without ".ms", "_" for
// "."; its Go name in snake case when it has none.
func settingKey(f config.Field) string {
	if f.Java != "" {
		return strings.ReplaceAll(strings.TrimSuffix(f.Java, ".ms"), ".", "_")
	}
	var b strings.Builder
	for i, r := range f.Name {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// settingKeyOf is the file key of Config field name.
func settingKeyOf(field string) (string, bool) {
	for _, f := range settingFields() {
		if f.field == field {
			return f.key, true
		}
	}
	return "", false
}

// settingDecoders decode each setting's value into s, as handlers of
// decodeStruct.
func (p *parser) settingDecoders(s Settings, extra map[string]func(*yaml.Node) error) {
	for _, f := range settingFields() {
		extra[f.key] = func(n *yaml.Node) error {
			v := reflect.New(f.value).Elem()
			if err := p.decodeValue(n, f.key, fieldRule{signed: f.value.Kind() == reflect.Int}, v); err != nil {
				return err
			}
			s[f.key] = v.Interface()
			return nil
		}
	}
}

// apply sets every given setting on dst, a *consumer.Config or a
// *consumer.ShareConfig (fields of the same names).
func (s Settings) apply(dst any) {
	d := reflect.ValueOf(dst).Elem()
	for _, f := range settingFields() {
		val, ok := s[f.key]
		if !ok {
			continue
		}
		df := d.FieldByName(f.field)
		if !df.IsValid() {
			continue // not a field of this config (a regular-only setting on a share config is refused at load)
		}
		switch v := reflect.ValueOf(val); v.Kind() {
		case reflect.Int, reflect.Int64:
			df.SetInt(v.Int())
		default:
			df.Set(v)
		}
	}
}

// given lists the keys of the settings given, in settingFields' order.
func (s Settings) given() []string {
	var out []string
	for _, f := range settingFields() {
		if _, ok := s[f.key]; ok {
			out = append(out, f.key)
		}
	}
	return out
}

// nodes are the given settings as YAML key and value nodes, in
// settingFields' order (Format).
func (s Settings) nodes() ([]*yaml.Node, error) {
	var out []*yaml.Node
	for _, key := range s.given() {
		v, err := encode(s[key])
		if err != nil {
			return nil, err
		}
		out = append(out, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
	}
	return out, nil
}

func (p *parser) consumerSpec(name string, n *yaml.Node) (*ConsumerSpec, error) {
	c := &ConsumerSpec{Name: name, Line: n.Line, Kind: KindRegular, Settings: Settings{}}
	what := "consumer " + name
	if name == DefaultConsumer {
		what = "consumer"
	}
	extra := map[string]func(*yaml.Node) error{
		"kind": func(n *yaml.Node) error {
			if n.Value != KindRegular && n.Value != KindShare {
				return p.errf(n.Line, "kind", "want regular or share, got %s", describe(n))
			}
			c.Kind = n.Value
			return nil
		},
		"group": func(n *yaml.Node) error {
			switch {
			case n.Kind == yaml.ScalarNode && n.Value == "false":
				c.Group = ""
			case n.Kind == yaml.ScalarNode && n.Value == "true":
				c.Group = "true"
			default:
				return p.str(n, "group", true, &c.Group)
			}
			return nil
		},
		"bootstrap": func(n *yaml.Node) error {
			if n.Value != "cluster" && n.Value != "unreachable" {
				return p.errf(n.Line, "bootstrap", "want cluster or unreachable, got %s", describe(n))
			}
			c.Bootstrap = n.Value
			return nil
		},
		"group_configs": func(n *yaml.Node) error {
			var m struct {
				M map[string]string `yaml:"group_configs"`
			}
			if err := p.decodeValue(n, "group_configs", fieldRule{}, reflect.ValueOf(&m).Elem().Field(0)); err != nil {
				return err
			}
			c.GroupConfigs = m.M
			return nil
		},
	}
	p.settingDecoders(c.Settings, extra)
	lines, err := p.decodeStruct(n, what, &struct{}{}, extra)
	if err != nil {
		return nil, err
	}
	c.lines = lines
	if c.IsShare() {
		if !lines.has("group") {
			c.Group = "true"
		}
		if c.Group == "" {
			return nil, p.errf(lines.line("group", c.Line), "group", "a share consumer needs a share group (group: true, or a group name)")
		}
		for _, f := range settingFields() {
			if !f.share && lines.has(f.key) {
				return nil, p.errf(lines[f.key], f.key, "not a share consumer setting (consumer.ShareConfig has no %s)", f.field)
			}
		}
	}
	return c, nil
}

// placeholderBootstrap stands in for the cluster's addresses when a
// configuration is validated at load.
const placeholderBootstrap = "127.0.0.1:9092"

// regularConfig is c's consumer.Config over Java's defaults, with the
// bootstrap, client id and group the run gives.
func (c *ConsumerSpec) regularConfig(bootstrap []string, clientID, group string) consumer.Config {
	cfg := consumer.DefaultConfig()
	cfg.BootstrapServers = bootstrap
	cfg.ClientID = clientID
	cfg.GroupID = group
	cfg.AutoOffsetReset = "earliest"
	cfg.EnableAutoCommit = false
	c.Settings.apply(&cfg)
	return cfg
}

// shareConfig is c's consumer.ShareConfig over the share defaults.
func (c *ConsumerSpec) shareConfig(bootstrap []string, clientID, group string) consumer.ShareConfig {
	cfg := consumer.DefaultShareConfig()
	cfg.BootstrapServers = bootstrap
	cfg.ClientID = clientID
	cfg.GroupID = group
	c.Settings.apply(&cfg)
	return cfg
}

// validateConfig runs the consumer's own validation at load, so a setting
// the consumer would refuse is an error with its line now, not at run time.
// rejected is the field a config_rejected expectation of this consumer
// names ("" none): a refusal naming it is what the file expects.
func (p *parser) validateConfig(c *ConsumerSpec, rejected string) error {
	group := ""
	if c.Group != "" {
		group = "g"
	}
	var err error
	if c.IsShare() {
		err = validateExpecting(c.shareConfig([]string{placeholderBootstrap}, "c", group), consumer.DefaultShareConfig(), rejected)
	} else {
		err = validateExpecting(c.regularConfig([]string{placeholderBootstrap}, "c", group), consumer.DefaultConfig(), rejected)
	}
	var ce *consumer.ConfigError
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &ce):
		return p.errf(c.Line, "", "consumer %s: %v", c.Name, err)
	}
	key, ok := settingKeyOf(ce.Field)
	line := c.Line
	note := ""
	switch {
	case !ok:
		key = ce.Field
	case c.lines.has(key):
		line = c.lines[key]
	default:
		note = fmt.Sprintf(" (%s is not set: its default conflicts with the settings given)", key)
	}
	msg := fmt.Sprintf("the consumer refuses this configuration: %v%s", err, note)
	if rejected == "" {
		msg += fmt.Sprintf(" (a file about that refusal says so: config_rejected: {field: %s})", ce.Field)
	}
	return p.errf(line, key, "%s", msg)
}

func isConfigErrorOn(err error, field string) bool {
	var ce *consumer.ConfigError
	return field != "" && errors.As(err, &ce) && ce.Field == field
}

// validateExpecting validates cfg; a refusal naming field rejected ("" none)
// is the one the file expects, so the rest is checked again with that field
// at its default (its value in def).
func validateExpecting[C interface{ Validate() error }](cfg, def C, rejected string) error {
	err := cfg.Validate()
	if isConfigErrorOn(err, rejected) {
		setField(&cfg, &def, rejected)
		err = cfg.Validate()
	}
	return err
}

// setField copies field from src to dst (both pointers to one struct type).
func setField(dst, src any, field string) {
	d := reflect.ValueOf(dst).Elem().FieldByName(field)
	if d.IsValid() {
		d.Set(reflect.ValueOf(src).Elem().FieldByName(field))
	}
}

// configFields are the Config fields config_rejected may name.
func configFields() []string {
	var out []string
	for _, f := range settingFields() {
		out = append(out, f.field)
	}
	slices.Sort(out)
	return out
}
