package scenario

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kreactor/kreactor/consumer"
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
	Settings Settings `yaml:",inline"`

	lines keyLines
}

// Consumer kinds.
const (
	KindRegular = "regular"
	KindShare   = "share"
)

// IsShare reports whether c is a share consumer.
func (c *ConsumerSpec) IsShare() bool { return c.Kind == KindShare }

// Settings are the consumer settings a file may give, each a field of
// consumer.Config (and of consumer.ShareConfig where the `share` tag says
// so) with the Java setting it is. Nil keeps the default: Java's, except
// auto_offset_reset (earliest here) and enable_auto_commit (false here), so
// every OffsetCommit a run sees is one its steps asked for.
// TestSettingsCoverConfig checks every Config and ShareConfig field has one.
type Settings struct {
	AutoOffsetReset                 *string   `yaml:"auto_offset_reset,omitempty" field:"AutoOffsetReset" java:"auto.offset.reset"`
	EnableAutoCommit                *bool     `yaml:"enable_auto_commit,omitempty" field:"EnableAutoCommit" java:"enable.auto.commit"`
	AutoCommitInterval              *Duration `yaml:"auto_commit_interval,omitempty" field:"AutoCommitInterval" java:"auto.commit.interval.ms"`
	RetryBackoff                    *Duration `yaml:"retry_backoff,omitempty" field:"RetryBackoff" java:"retry.backoff.ms" share:"yes"`
	RetryBackoffMax                 *Duration `yaml:"retry_backoff_max,omitempty" field:"RetryBackoffMax" java:"retry.backoff.max.ms" share:"yes"`
	ReconnectBackoff                *Duration `yaml:"reconnect_backoff,omitempty" field:"ReconnectBackoff" java:"reconnect.backoff.ms" share:"yes"`
	ReconnectBackoffMax             *Duration `yaml:"reconnect_backoff_max,omitempty" field:"ReconnectBackoffMax" java:"reconnect.backoff.max.ms" share:"yes"`
	SocketConnectionSetupTimeout    *Duration `yaml:"socket_connection_setup_timeout,omitempty" field:"SocketConnectionSetupTimeout" java:"socket.connection.setup.timeout.ms" share:"yes"`
	SocketConnectionSetupTimeoutMax *Duration `yaml:"socket_connection_setup_timeout_max,omitempty" field:"SocketConnectionSetupTimeoutMax" java:"socket.connection.setup.timeout.max.ms" share:"yes"`
	RequestTimeout                  *Duration `yaml:"request_timeout,omitempty" field:"RequestTimeout" java:"request.timeout.ms" share:"yes"`
	DefaultAPITimeout               *Duration `yaml:"default_api_timeout,omitempty" field:"DefaultAPITimeout" java:"default.api.timeout.ms" share:"yes"`
	MaxPollInterval                 *Duration `yaml:"max_poll_interval,omitempty" field:"MaxPollInterval" java:"max.poll.interval.ms" share:"yes"`
	MetadataMaxAge                  *Duration `yaml:"metadata_max_age,omitempty" field:"MetadataMaxAge" java:"metadata.max.age.ms" share:"yes"`
	FetchMaxWait                    *Duration `yaml:"fetch_max_wait,omitempty" field:"FetchMaxWait" java:"fetch.max.wait.ms" share:"yes"`
	MaxPollRecords                  *int      `yaml:"max_poll_records,omitempty" field:"MaxPollRecords" java:"max.poll.records" share:"yes" sc:"signed"`
	FetchMinBytes                   *int      `yaml:"fetch_min_bytes,omitempty" field:"FetchMinBytes" java:"fetch.min.bytes" sc:"signed"`
	FetchMaxBytes                   *int      `yaml:"fetch_max_bytes,omitempty" field:"FetchMaxBytes" java:"fetch.max.bytes" share:"yes" sc:"signed"`
	MaxPartitionFetchBytes          *int      `yaml:"max_partition_fetch_bytes,omitempty" field:"MaxPartitionFetchBytes" java:"max.partition.fetch.bytes" share:"yes" sc:"signed"`
	MaxBufferedRecords              *int      `yaml:"max_buffered_records,omitempty" field:"MaxBufferedRecords" share:"yes" sc:"signed"`
	IsolationLevel                  *string   `yaml:"isolation_level,omitempty" field:"IsolationLevel" java:"isolation.level"`
	GroupInstanceID                 *string   `yaml:"group_instance_id,omitempty" field:"GroupInstanceID" java:"group.instance.id"`
}

// settingsFields describes Settings' fields.
type settingField struct {
	index      int
	key, field string
	java       string
	share      bool
}

func settingFields() []settingField {
	t := reflect.TypeFor[Settings]()
	out := make([]settingField, 0, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		out = append(out, settingField{index: i, key: key, field: f.Tag.Get("field"), java: f.Tag.Get("java"), share: f.Tag.Get("share") == "yes"})
	}
	return out
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

// apply sets every given setting on dst, a *consumer.Config or a
// *consumer.ShareConfig (fields of the same names).
func (s Settings) apply(dst any) {
	d := reflect.ValueOf(dst).Elem()
	v := reflect.ValueOf(s)
	for _, f := range settingFields() {
		sv := v.Field(f.index)
		if sv.IsNil() {
			continue
		}
		df := d.FieldByName(f.field)
		if !df.IsValid() {
			continue // not a field of this config (a regular-only setting on a share config is refused at load)
		}
		val := sv.Elem()
		switch val.Type() {
		case reflect.TypeFor[Duration]():
			df.SetInt(val.Int())
		default:
			switch df.Kind() {
			case reflect.Int, reflect.Int32, reflect.Int64:
				df.SetInt(val.Int())
			default:
				df.Set(val)
			}
		}
	}
}

// given lists the keys of the settings given.
func (s Settings) given() []string {
	var out []string
	v := reflect.ValueOf(s)
	for _, f := range settingFields() {
		if !v.Field(f.index).IsNil() {
			out = append(out, f.key)
		}
	}
	return out
}

func (p *parser) consumerSpec(name string, n *yaml.Node) (*ConsumerSpec, error) {
	c := &ConsumerSpec{Name: name, Line: n.Line, Kind: KindRegular}
	what := "consumer " + name
	if name == DefaultConsumer {
		what = "consumer"
	}
	lines, err := p.decodeStruct(n, what, &c.Settings, map[string]func(*yaml.Node) error{
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
	})
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
		cfg := c.shareConfig([]string{placeholderBootstrap}, "c", group)
		err = cfg.Validate()
		if isConfigErrorOn(err, rejected) {
			// The refusal the file expects: check the rest with that
			// field at its default.
			def := consumer.DefaultShareConfig()
			setField(&cfg, &def, rejected)
			err = cfg.Validate()
		}
	} else {
		cfg := c.regularConfig([]string{placeholderBootstrap}, "c", group)
		err = cfg.Validate()
		if isConfigErrorOn(err, rejected) {
			def := consumer.DefaultConfig()
			setField(&cfg, &def, rejected)
			err = cfg.Validate()
		}
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

// javaOf is the Java setting of a Settings key ("" if none).
func javaOf(key string) string {
	for _, f := range settingFields() {
		if f.key == key {
			return f.java
		}
	}
	return ""
}

// formatSetting renders a setting's value as the file writes it.
func formatSetting(v reflect.Value) string {
	switch x := v.Interface().(type) {
	case Duration:
		return time.Duration(x).String()
	case int:
		return strconv.Itoa(x)
	}
	return fmt.Sprint(v.Interface())
}
