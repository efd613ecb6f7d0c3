package containers

import (
	"strings"
	"testing"
)

// imageRule is the official image's rule, env name -> property (the
// inverse of envName): strip KAFKA_, lower-case, `___` -> `-`, `__` -> `_`,
// `_` -> `.`. images/kafka/entrypoint.sh implements the same with sed.
func imageRule(env string) string {
	s := strings.ToLower(strings.TrimPrefix(env, "KAFKA_"))
	s = strings.ReplaceAll(s, "___", "-")
	s = strings.ReplaceAll(s, "__", "@")
	s = strings.ReplaceAll(s, "_", ".")
	return strings.ReplaceAll(s, "@", "_")
}

func TestEnvNameInvertsTheImageRule(t *testing.T) {
	for _, prop := range []string{
		"node.id", "group.consumer.heartbeat.interval.ms", "listener.security.protocol.map",
		"share.coordinator.state.topic.min.isr", "listener.name.internal.ssl.key_password",
		"some-dashed.name_with.under_scores",
	} {
		env, err := envName(prop)
		if err != nil {
			t.Fatalf("envName(%q): %v", prop, err)
		}
		if got := imageRule(env); got != prop {
			t.Errorf("envName(%q) = %q, which the image reads as %q", prop, env, got)
		}
	}
	if env, _ := envName("node.id"); env != "KAFKA_NODE_ID" {
		t.Errorf("envName(node.id) = %q, want KAFKA_NODE_ID", env)
	}
	if _, err := envName("Bad Name"); err == nil {
		t.Error("envName accepted a property with upper case and a space")
	}
}

func TestNodeEnv(t *testing.T) {
	env, err := nodeEnv(2, 3, 40123, "abc", map[string]string{"group.consumer.heartbeat.interval.ms": "500"},
		map[string]string{"KAFKA_HEAP_OPTS": "-Xmx1G"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"KAFKA_NODE_ID":                              "2",
		"KAFKA_ADVERTISED_LISTENERS":                 "PLAINTEXT://127.0.0.1:40123,BROKER://kafka-2:9094",
		"KAFKA_CONTROLLER_QUORUM_VOTERS":             "1@kafka-1:9093,2@kafka-2:9093,3@kafka-3:9093",
		"KAFKA_GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS": "500",
		"KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR":     "3",
		"CLUSTER_ID":                                 "abc",
		"KAFKA_HEAP_OPTS":                            "-Xmx1G",
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	if _, err := nodeEnv(1, 1, 1, "abc", map[string]string{"listeners": "x"}, nil); err == nil {
		t.Error("nodeEnv let Options.Config override listeners")
	}
	if _, err := nodeEnv(1, 1, 1, "abc", nil, map[string]string{"KAFKA_NUM_PARTITIONS": "3"}); err == nil {
		t.Error("nodeEnv let Options.Env set a broker property")
	}
}

func TestNewClusterID(t *testing.T) {
	for range 100 {
		id := newClusterID()
		if len(id) != 22 || id[0] == '-' {
			t.Fatalf("newClusterID() = %q", id)
		}
	}
}
