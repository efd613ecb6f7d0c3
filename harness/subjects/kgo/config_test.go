package kgo

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kreactor/kreactor/consumer"
)

func TestConfigRejections(t *testing.T) {
	base := func() consumer.Config {
		c := consumer.DefaultConfig()
		c.BootstrapServers = []string{"127.0.0.1:9092"}
		c.GroupID = "g"
		return c
	}
	for _, tc := range []struct {
		name  string
		edit  func(*consumer.Config)
		field string
		kgo   bool // an *UnsupportedError (kgo's limit), else a *consumer.ConfigError
	}{
		{"no bootstrap", func(c *consumer.Config) { c.BootstrapServers = nil }, "BootstrapServers", false},
		{"zero backoff", func(c *consumer.Config) { c.RetryBackoff = 0 }, "RetryBackoff", false},
		{"fetch wait below kgo's 10ms", func(c *consumer.Config) { c.FetchMaxWait = 5 * time.Millisecond }, "FetchMaxWait", true},
		{"auto-commit below kgo's 100ms", func(c *consumer.Config) { c.AutoCommitInterval = 50 * time.Millisecond }, "AutoCommitInterval", true},
		{"max poll interval below kgo's 100ms rebalance timeout", func(c *consumer.Config) { c.MaxPollInterval = 50 * time.Millisecond }, "MaxPollInterval", true},
		{"request timeout below kgo's 100ms", func(c *consumer.Config) { c.RequestTimeout = 50 * time.Millisecond }, "RequestTimeout", true},
		{"metadata age above kgo's 1h", func(c *consumer.Config) { c.MetadataMaxAge = 2 * time.Hour }, "MetadataMaxAge", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base()
			tc.edit(&cfg)
			_, err := Subject{}.New(cfg)
			var ue *UnsupportedError
			var ce *consumer.ConfigError
			switch {
			case tc.kgo && (!errors.As(err, &ue) || ue.Field != tc.field || !errors.Is(err, ErrUnsupported)):
				t.Fatalf("New = %v, want *UnsupportedError on %s (errors.Is ErrUnsupported)", err, tc.field)
			case !tc.kgo && (!errors.As(err, &ce) || ce.Field != tc.field):
				t.Fatalf("New = %v, want *consumer.ConfigError on %s", err, tc.field)
			}
		})
	}
	// Without a group the group settings do not matter, as in Java.
	cfg := base()
	cfg.GroupID, cfg.AutoCommitInterval = "", 50*time.Millisecond
	if _, err := (Subject{}).New(cfg); err != nil {
		t.Fatalf("New without a group: %v", err)
	}
	if _, err := (Subject{Protocol: "eager"}).New(base()); err == nil {
		t.Fatal("New accepted protocol \"eager\"")
	}
	share := consumer.DefaultShareConfig()
	share.BootstrapServers = []string{"127.0.0.1:9092"}
	var ce *consumer.ConfigError
	if _, err := (Subject{}).NewShare(share); !errors.As(err, &ce) || ce.Field != "GroupID" {
		t.Fatalf("NewShare without a group = %v, want *consumer.ConfigError on GroupID", err)
	}
}

func TestJavaBackoff(t *testing.T) {
	b := javaBackoff(100*time.Millisecond, time.Second)
	for fails, want := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 4: 800 * time.Millisecond, 5: time.Second, 40: time.Second, 100: time.Second} {
		for range 20 {
			if got := b(fails); got < want*8/10 || got > want*12/10 {
				t.Fatalf("backoff after %d failures = %s, want %s +-20%%", fails, got, want)
			}
		}
	}
}

func TestDescription(t *testing.T) {
	mod, err := os.ReadFile("../../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if pin := "\t" + franzModule + " " + PinnedFranzVersion + "\n"; !strings.Contains(string(mod), pin) {
		t.Fatalf("go.mod does not pin %q: update PinnedFranzVersion", strings.TrimSpace(pin))
	}
	if v := FranzVersion(); v != PinnedFranzVersion {
		t.Fatalf("FranzVersion() = %q, want %q", v, PinnedFranzVersion)
	}
	t.Log(Subject{}.Description())
	t.Log(Subject{Protocol: ProtocolClassic}.Description())
}
