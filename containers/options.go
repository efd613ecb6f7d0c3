package containers

import (
	"fmt"
	"log/slog"
	"maps"
	"strconv"
	"strings"
	"time"
)

// Options configure a cluster. Zero fields take the defaults.
type Options struct {
	// Image is the Kafka image; "" means ResolveImage("") ($KREACTOR_KAFKA_IMAGE
	// or DefaultImage).
	Image string
	// Brokers is the number of KRaft nodes (each broker and controller);
	// StartCluster: 0 means 3; StartSingle ignores it (1).
	Brokers int
	// Config overrides broker properties on every node, by property name
	// (e.g. "group.consumer.heartbeat.interval.ms": "500"); it is applied
	// after BrokerDefaults. Listener and quorum properties are the
	// package's and cannot be overridden.
	Config map[string]string
	// Env adds container environment variables on every node, after
	// DefaultEnv, for what is not a broker property: JVM options such as
	// KAFKA_HEAP_OPTS or KAFKA_JVM_PERFORMANCE_OPTS (both images honour
	// them). A KAFKA_* variable that names a broker property is refused:
	// use Config.
	Env map[string]string
	// StartupTimeout bounds each start: the containers starting and Kafka
	// serving, and again each Start of a stopped node. 0 means
	// DefaultStartupTimeout.
	StartupTimeout time.Duration
	// Logger receives testcontainers-go's messages (Debug) and the
	// package's (Info); nil discards them.
	Logger *slog.Logger
}

// Defaults.
const (
	// DefaultStartupTimeout bounds a start (measured on 2 cores: one node
	// about 3 s, three nodes about 8 s, a node's restart in a running
	// cluster about 3-4 s).
	DefaultStartupTimeout = 2 * time.Minute
	// StopTimeout is how long Stop lets a node shut down cleanly
	// (controlled shutdown) before Docker kills it.
	StopTimeout = 30 * time.Second
)

// Ports inside every container.
const (
	clientPort     = 9092 // PLAINTEXT: advertised as 127.0.0.1:<host port>
	controllerPort = 9093 // CONTROLLER: kafka-<id>:9093 on the Docker network
	brokerPort     = 9094 // BROKER (inter-broker): kafka-<id>:9094
	// logDirs is writable in the official image (user appuser) as well as
	// in DefaultImage, and lives in the container's layer, so it survives
	// Stop/Start and goes with Terminate.
	logDirs = "/tmp/kraft-combined-logs"
)

// BrokerDefaults are the broker properties every node gets for a cluster of
// n nodes, before Options.Config:
//   - KIP-848 (consumer groups): group.consumer.heartbeat.interval.ms 250 ms
//     (the harness's default) with the broker minimum lowered to 100 ms (its
//     own default minimum is 5000 ms), and the session-timeout minimum lowered
//     to 1000 ms so a group or a test may shorten it (the default 45 s stays).
//   - KIP-932 (share groups): the same for group.share.*. Kafka 4.4 enables
//     share groups through the share.version feature, which a 4.4 storage
//     format sets to 2; group.coordinator.rebalance.protocols is deprecated in
//     4.4 and only gates "consumer" (with group.version >= 1); the list keeps
//     its default "streams" and names "share" for clarity.
//   - internal topics replicated on min(n, 3) nodes with min.insync.replicas
//     1, so a cluster serves with one node stopped; default.replication.factor
//     likewise (CreateTopic uses the broker default).
//   - KRaft broker liveness: broker.heartbeat.interval.ms 500 and
//     broker.session.timeout.ms 3000 (defaults 2000 / 9000): a frozen or
//     killed node is fenced within 3 s, and a restarted node, which the
//     controller may refuse (DUPLICATE_BROKER_REGISTRATION) while its previous
//     incarnation's session lasts, registers within 3 s instead of 9 s.
//   - num.partitions 1, auto.create.topics.enable false (as kfake: a spec
//     creates its topics), group.initial.rebalance.delay.ms 0.
func BrokerDefaults(n int) map[string]string {
	rf := strconv.Itoa(min(max(n, 1), 3))
	return map[string]string{
		"group.coordinator.rebalance.protocols":            "classic,consumer,share,streams",
		"group.consumer.heartbeat.interval.ms":             "250",
		"group.consumer.min.heartbeat.interval.ms":         "100",
		"group.consumer.min.session.timeout.ms":            "1000",
		"group.share.heartbeat.interval.ms":                "250",
		"group.share.min.heartbeat.interval.ms":            "100",
		"group.share.min.session.timeout.ms":               "1000",
		"group.initial.rebalance.delay.ms":                 "0",
		"offsets.topic.replication.factor":                 rf,
		"transaction.state.log.replication.factor":         rf,
		"transaction.state.log.min.isr":                    "1",
		"share.coordinator.state.topic.replication.factor": rf,
		"share.coordinator.state.topic.min.isr":            "1",
		"default.replication.factor":                       rf,
		"min.insync.replicas":                              "1",
		"num.partitions":                                   "1",
		"broker.heartbeat.interval.ms":                     "500",
		"broker.session.timeout.ms":                        "3000",
		"auto.create.topics.enable":                        "false",
	}
}

// fixedProperties are set by the package for the node topology.
var fixedProperties = map[string]bool{
	"node.id": true, "process.roles": true, "listeners": true, "advertised.listeners": true,
	"listener.security.protocol.map": true, "controller.listener.names": true,
	"inter.broker.listener.name": true, "controller.quorum.voters": true,
	"controller.quorum.bootstrap.servers": true, "log.dirs": true,
}

// DefaultEnv are the JVM options every node gets before Options.Env: C1
// only and the serial collector, which halve a start on 2 cores (measured:
// 3 nodes 11.2 s -> 5.8 s, 1 node 5.2 s -> 2.6 s) at a cost in peak
// throughput the specs do not need; a 768 MiB heap.
func DefaultEnv() map[string]string {
	return map[string]string{
		"KAFKA_HEAP_OPTS":            "-Xmx768M -Xms256M",
		"KAFKA_JVM_PERFORMANCE_OPTS": "-server -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.awt.headless=true",
	}
}

// jvmEnv are the KAFKA_* variables that are JVM options, not broker
// properties, in both images (kafka-run-class.sh and entrypoint.sh).
var jvmEnv = map[string]bool{
	"KAFKA_HEAP_OPTS": true, "KAFKA_JVM_PERFORMANCE_OPTS": true, "KAFKA_OPTS": true,
	"KAFKA_GC_LOG_OPTS": true, "KAFKA_JMX_OPTS": true, "KAFKA_LOG4J_OPTS": true,
}

// nodeAlias is node id's host name on the cluster's Docker network.
func nodeAlias(id int32) string { return fmt.Sprintf("kafka-%d", id) }

// nodeEnv is the container environment of node id (1..n) whose client
// listener is published on hostPort: every property as KAFKA_<NAME> by the
// official image's rule, plus CLUSTER_ID, plus extra (Options.Env).
func nodeEnv(id int32, n int, hostPort int, clusterID string, overrides, extra map[string]string) (map[string]string, error) {
	props := BrokerDefaults(n)
	for k, v := range overrides {
		if fixedProperties[k] {
			return nil, fmt.Errorf("containers: broker property %q is set by the package", k)
		}
		props[k] = v
	}
	voters := make([]string, n)
	for i := range n {
		voters[i] = fmt.Sprintf("%d@%s:%d", i+1, nodeAlias(int32(i+1)), controllerPort)
	}
	maps.Copy(props, map[string]string{
		"node.id":       strconv.Itoa(int(id)),
		"process.roles": "broker,controller",
		"listeners": fmt.Sprintf("PLAINTEXT://0.0.0.0:%d,BROKER://0.0.0.0:%d,CONTROLLER://0.0.0.0:%d",
			clientPort, brokerPort, controllerPort),
		"advertised.listeners": fmt.Sprintf("PLAINTEXT://127.0.0.1:%d,BROKER://%s:%d",
			hostPort, nodeAlias(id), brokerPort),
		"listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"controller.listener.names":      "CONTROLLER",
		"inter.broker.listener.name":     "BROKER",
		"controller.quorum.voters":       strings.Join(voters, ","),
		"log.dirs":                       logDirs,
	})
	env := make(map[string]string, len(props)+1)
	for k, v := range props {
		name, err := envName(k)
		if err != nil {
			return nil, err
		}
		env[name] = v
	}
	env["CLUSTER_ID"] = clusterID
	maps.Copy(env, DefaultEnv())
	for k, v := range extra {
		if k == "CLUSTER_ID" || (strings.HasPrefix(k, "KAFKA_") && !jvmEnv[k]) {
			return nil, fmt.Errorf("containers: Options.Env %s names a broker property or CLUSTER_ID: use Options.Config", k)
		}
		env[k] = v
	}
	return env, nil
}

// envName is the official image's environment variable for broker property
// prop: `-` -> `___`, `_` -> `__`, `.` -> `_`, upper-cased, prefixed KAFKA_
// (the inverse of the image's rule). Errors: a character other than
// [a-z0-9._-].
func envName(prop string) (string, error) {
	var b strings.Builder
	b.WriteString("KAFKA_")
	for _, r := range prop {
		switch {
		case r == '-':
			b.WriteString("___")
		case r == '_':
			b.WriteString("__")
		case r == '.':
			b.WriteByte('_')
		case r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			return "", fmt.Errorf("containers: broker property %q: %q cannot be named in an environment variable", prop, r)
		}
	}
	return b.String(), nil
}
