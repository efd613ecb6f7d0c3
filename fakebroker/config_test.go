package fakebroker

import (
	"errors"
	"testing"
	"time"
)

func TestStartRejectsInvalidConfig(t *testing.T) {
	cases := []struct {
		name  string
		cfg   Config
		field string
	}{
		{"negative brokers", Config{Brokers: -1}, "Brokers"},
		{"zero partitions", Config{Topics: map[string]int32{"t": 0}}, `Topics["t"]`},
		{"empty topic", Config{Topics: map[string]int32{"": 1}}, `Topics[""]`},
		{"negative heartbeat", Config{HeartbeatInterval: -time.Second}, "HeartbeatInterval"},
		{"sub-ms heartbeat", Config{HeartbeatInterval: 1500 * time.Microsecond}, "HeartbeatInterval"},
		{"negative session", Config{SessionTimeout: -1}, "SessionTimeout"},
		{"session not above heartbeat", Config{HeartbeatInterval: time.Second, SessionTimeout: time.Second}, "SessionTimeout"},
		{"typed key in BrokerConfigs", Config{BrokerConfigs: map[string]string{cfgConsumerHeartbeat: "1"}}, `BrokerConfigs["group.consumer.heartbeat.interval.ms"]`},
		{"negative max records", Config{MaxRecords: -5}, "MaxRecords"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := Start(c.cfg)
			if err == nil {
				b.Close()
				t.Fatal("Start accepted an invalid config")
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Field != c.field {
				t.Fatalf("error %v: want *ConfigError for field %s", err, c.field)
			}
		})
	}
}

func TestStartAppliesDefaultsAndSeedsTopics(t *testing.T) {
	b := startBroker(t, Config{Topics: map[string]int32{"a": 4, "b": 1}})
	cfg := b.Config()
	if cfg.Brokers != DefaultBrokers || cfg.HeartbeatInterval != DefaultHeartbeatInterval ||
		cfg.SessionTimeout != DefaultSessionTimeout || cfg.MaxRecords != DefaultMaxRecords {
		t.Fatalf("defaults not applied: %+v", cfg)
	}
	if n := len(b.Addrs()); n != DefaultBrokers {
		t.Fatalf("Addrs: got %d, want %d", n, DefaultBrokers)
	}
	for topic, want := range map[string]int{"a": 4, "b": 1} {
		if got := len(b.Cluster().PartitionInfos(topic)); got != want {
			t.Fatalf("topic %s: %d partitions, want %d", topic, got, want)
		}
	}
	if c := b.CoordinatorFor("g"); c < 0 || c >= DefaultBrokers {
		t.Fatalf("CoordinatorFor: %d", c)
	}
	if gi := b.GroupInfo("nope"); gi != nil {
		t.Fatalf("GroupInfo of unknown group: %+v", gi)
	}
	b.Close()
	b.Close() // idempotent
	if _, err := b.HoldKey(1); !errors.Is(err, ErrClosed) {
		t.Fatalf("HoldKey after Close: %v, want ErrClosed", err)
	}
}
