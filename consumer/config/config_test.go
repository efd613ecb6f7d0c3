package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Every field of both kinds has a java tag that parses, and the Java names,
// their omitempty and the defaults are these: a renamed or retagged field
// fails here before it changes a Java property, a scenario key or a default.
func TestTags(t *testing.T) {
	want := map[string]string{
		"BootstrapServers": "bootstrap.servers", "RetryBackoff": "retry.backoff.ms", "RetryBackoffMax": "retry.backoff.max.ms",
		"ReconnectBackoff": "reconnect.backoff.ms", "ReconnectBackoffMax": "reconnect.backoff.max.ms",
		"SocketConnectionSetupTimeout": "socket.connection.setup.timeout.ms", "SocketConnectionSetupTimeoutMax": "socket.connection.setup.timeout.max.ms",
		"RequestTimeout": "request.timeout.ms", "DefaultAPITimeout": "default.api.timeout.ms", "MaxPollInterval": "max.poll.interval.ms",
		"MetadataMaxAge": "metadata.max.age.ms", "MaxPollRecords": "max.poll.records", "FetchMaxWait": "fetch.max.wait.ms",
		"FetchMaxBytes": "fetch.max.bytes", "MaxPartitionFetchBytes": "max.partition.fetch.bytes",
		"Dial": "", "Logger": "", "Rand": "", "MaxBufferedRecords": "",
		"GroupID": "group.id", "GroupInstanceID": "group.instance.id", "ClientID": "client.id",
		"AutoOffsetReset": "auto.offset.reset", "EnableAutoCommit": "enable.auto.commit",
		"AutoCommitInterval": "auto.commit.interval.ms", "FetchMinBytes": "fetch.min.bytes", "IsolationLevel": "isolation.level",
	}
	for kind, fs := range map[string][]Field{"Consumer": Fields[Consumer](), "Share": Fields[Share]()} {
		for _, f := range fs {
			if w, ok := want[f.Name]; !ok || w != f.Java {
				t.Errorf("%s.%s: java %q, want %q", kind, f.Name, f.Java, w)
			}
		}
	}
	if n := len(Fields[Consumer]()); n != 27 {
		t.Errorf("Consumer has %d fields, want 27", n)
	}
	if n := len(Fields[Share]()); n != 21 {
		t.Errorf("Share has %d fields, want 21", n)
	}
	// A field without a java tag, or with a rule that does not parse, is refused.
	for _, bad := range []any{
		struct{ X int }{},
		struct {
			X int `java:"x" check:"min=1ms"`
		}{},
		struct {
			X time.Duration `java:"x" check:"nosuch"`
		}{},
		struct {
			X string `java:"x,always"`
		}{},
	} {
		sf := reflect.TypeOf(bad).Field(0)
		if _, err := parseField(sf); err == nil {
			t.Errorf("%s `%s` accepted", sf.Name, sf.Tag)
		}
	}
}

// The defaults are Java's, as the consumers had them before the tags.
func TestDefaults(t *testing.T) {
	common := Common{
		RetryBackoff: 100 * time.Millisecond, RetryBackoffMax: time.Second, ReconnectBackoff: 50 * time.Millisecond,
		ReconnectBackoffMax: time.Second, SocketConnectionSetupTimeout: 10 * time.Second, SocketConnectionSetupTimeoutMax: 30 * time.Second,
		RequestTimeout: 30 * time.Second, DefaultAPITimeout: 60 * time.Second, MaxPollInterval: 5 * time.Minute, MetadataMaxAge: 5 * time.Minute,
		MaxPollRecords: 500, FetchMaxWait: 500 * time.Millisecond, FetchMaxBytes: 52428800, MaxPartitionFetchBytes: 1048576,
	}
	c := Consumer{Common: common, ClientID: "kreactor", AutoOffsetReset: "latest", EnableAutoCommit: true, AutoCommitInterval: 5 * time.Second,
		FetchMinBytes: 1, IsolationLevel: "read_uncommitted", MaxBufferedRecords: 2000}
	if got := DefaultConsumer(); !reflect.DeepEqual(got, c) {
		t.Errorf("DefaultConsumer\n got %+v\nwant %+v", got, c)
	}
	s := Share{Common: common, ClientID: "kreactor-share", MaxBufferedRecords: 1000}
	if got := DefaultShare(); !reflect.DeepEqual(got, s) {
		t.Errorf("DefaultShare\n got %+v\nwant %+v", got, s)
	}
}

// Each rule's rejection names the field, its Java setting and the value.
func TestValidate(t *testing.T) {
	base := DefaultConsumer()
	base.BootstrapServers = []string{"127.0.0.1:9092"}
	if err := base.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		set  func(*Consumer)
		want string
	}{
		{func(c *Consumer) { c.RetryBackoff = 0 }, `invalid RetryBackoff (retry.backoff.ms) = 0s: must be >= 1ms: a zero backoff turns every retry into a busy loop (KAFKA-21049)`},
		{func(c *Consumer) { c.RetryBackoffMax = 50 * time.Millisecond }, `invalid RetryBackoffMax (retry.backoff.max.ms) = 50ms: must be >= RetryBackoff (100ms)`},
		{func(c *Consumer) { c.FetchMaxWait = -1 }, `invalid FetchMaxWait (fetch.max.wait.ms) = -1ns: must be >= 0`},
		{func(c *Consumer) { c.FetchMaxWait = 30 * 24 * time.Hour }, `invalid FetchMaxWait (fetch.max.wait.ms) = 720h0m0s: must be <= 596h31m23.647s`},
		{func(c *Consumer) { c.AutoCommitInterval = 0 }, `invalid AutoCommitInterval (auto.commit.interval.ms) = 0s: must be >= 1ms when EnableAutoCommit is true`},
		{func(c *Consumer) { c.MaxPollRecords = 0 }, `invalid MaxPollRecords (max.poll.records) = 0: must be in 1..2147483647`},
		{func(c *Consumer) { c.MaxBufferedRecords = 1 << 40 }, `invalid MaxBufferedRecords = 1099511627776: must be in 1..2147483647`},
		{func(c *Consumer) { c.AutoOffsetReset = "first" }, `invalid AutoOffsetReset (auto.offset.reset) = "first": must be earliest, latest or none`},
		{func(c *Consumer) { c.BootstrapServers = []string{"h:0"} }, `invalid BootstrapServers (bootstrap.servers) = "h:0": port must be a number in 1..65535`},
		{func(c *Consumer) { c.GroupInstanceID = "i" }, `invalid GroupInstanceID (group.instance.id) = "i": needs a GroupID (group.id)`},
	} {
		c := base
		tc.set(&c)
		err := c.Validate()
		var ce *Error
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want an *Error containing %s", err, tc.want)
		}
	}
	c := base
	c.EnableAutoCommit, c.AutoCommitInterval = false, 0
	if err := c.Validate(); err != nil {
		t.Errorf("auto-commit off, interval 0: %v", err)
	}

	s := DefaultShare()
	s.BootstrapServers = []string{"127.0.0.1:9092"}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), `invalid GroupID (group.id) = "": must not be empty: a share consumer needs its share group's id`) {
		t.Errorf("share without a group: %v", err)
	}
	s.GroupID, s.RetryBackoffMax = "g", time.Millisecond
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "RetryBackoffMax (retry.backoff.max.ms)") {
		t.Errorf("share with RetryBackoffMax < RetryBackoff: %v", err)
	}
}

func TestJavaProperties(t *testing.T) {
	c := DefaultConsumer()
	c.BootstrapServers = []string{"a:1", "b:2"}
	p := c.JavaProperties()
	for k, want := range map[string]string{"bootstrap.servers": "a:1,b:2", "retry.backoff.max.ms": "1000", "enable.auto.commit": "true",
		"max.poll.interval.ms": "300000", "fetch.min.bytes": "1", "isolation.level": "read_uncommitted", "client.id": "kreactor"} {
		if p[k] != want {
			t.Errorf("%s = %q, want %q", k, p[k], want)
		}
	}
	if _, ok := p["group.id"]; ok {
		t.Error("an empty group.id is sent")
	}
	if len(p) != 21 {
		t.Errorf("%d properties, want 21: %v", len(p), p)
	}
	s := DefaultShare()
	if p := s.JavaProperties(); len(p) != 17 || p["group.id"] != "" || p["client.id"] != "kreactor-share" {
		t.Errorf("share properties %v", p)
	}
}
