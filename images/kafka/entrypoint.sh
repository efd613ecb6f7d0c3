#!/bin/sh
# Entrypoint of the kreactor/kafka image (busybox sh): write the broker
# configuration from the environment, format the KRaft storage once, and exec
# the broker (kafka.Kafka) as PID 1 so `docker stop` (SIGTERM) shuts it down
# cleanly and `docker start` resumes on the same data.
#
# Environment, as in the official apache/kafka image:
#   KAFKA_<NAME>    broker property <name>: strip KAFKA_, lower-case, then
#                   `___` -> `-`, `__` -> `_`, `_` -> `.`
#                   (KAFKA_NODE_ID -> node.id, KAFKA_GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS
#                   -> group.consumer.heartbeat.interval.ms).
#                   With no such variable the image runs one standalone
#                   broker+controller on PLAINTEXT://localhost:9092 (the
#                   defaults below); with any, the variables alone are the
#                   configuration (plus log.dirs when unset).
#   CLUSTER_ID      KRaft cluster id (22-character base64 UUID); required for
#                   a multi-node cluster, every node must get the same one.
#   KAFKA_HEAP_OPTS, KAFKA_JVM_PERFORMANCE_OPTS, KAFKA_OPTS, KAFKA_GC_LOG_OPTS,
#   KAFKA_JMX_OPTS, KAFKA_LOG4J_OPTS
#                   JVM options (not broker properties), as kafka-run-class.sh.
# Storage: format once with the cluster id (`--ignore-formatted` on later
# starts); with process.roles containing controller and no
# controller.quorum.voters, the node formats as a standalone (dynamic) quorum.
set -eu

KAFKA_HOME=/opt/kafka
CONF_DIR=/var/lib/kafka
CONF="$CONF_DIR/server.properties"
CP="$KAFKA_HOME/libs/*"
JAVA="${JAVA_HOME:-/opt/java}/bin/java"
mkdir -p "$CONF_DIR"

# Environment variables that are JVM options, never broker properties.
is_jvm_var() {
	case "$1" in
	KAFKA_HEAP_OPTS | KAFKA_JVM_PERFORMANCE_OPTS | KAFKA_OPTS | KAFKA_GC_LOG_OPTS | \
		KAFKA_JMX_OPTS | KAFKA_LOG4J_OPTS | KAFKA_JMX_PORT | KAFKA_JMX_HOSTNAME | \
		KAFKA_LOG4J_ROOT_LOGLEVEL | KAFKA_LOG4J_LOGGERS | KAFKA_TOOLS_LOG4J_LOGLEVEL | \
		KAFKA_VERSION | KAFKA_HOME) return 0 ;;
	esac
	return 1
}

# KAFKA_FOO__BAR___BAZ_QUX -> foo_bar-baz.qux (names hold only A-Z0-9_, so
# '@' is a safe placeholder for the `__` of a literal underscore).
prop_name() {
	printf '%s' "${1#KAFKA_}" | tr 'A-Z' 'a-z' |
		sed -e 's/___/-/g' -e 's/__/@/g' -e 's/_/./g' -e 's/@/_/g'
}

tmp="$CONF.tmp"
: >"$tmp"
env | grep '^KAFKA_[A-Z0-9_]*=' | while IFS= read -r line; do
	name="${line%%=*}"
	is_jvm_var "$name" && continue
	printf '%s=%s\n' "$(prop_name "$name")" "${line#*=}" >>"$tmp"
done

if [ ! -s "$tmp" ]; then
	# No configuration given: one standalone broker+controller.
	cat >"$tmp" <<'EOF'
node.id=1
process.roles=broker,controller
listeners=PLAINTEXT://:9092,CONTROLLER://:9093
advertised.listeners=PLAINTEXT://localhost:9092
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
controller.quorum.voters=1@localhost:9093
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
EOF
fi
grep -q '^log\.dirs=' "$tmp" || echo "log.dirs=/tmp/kraft-combined-logs" >>"$tmp"
mv "$tmp" "$CONF"

CLUSTER_ID="${CLUSTER_ID:-5L6g3nShT-eMCtK--X86sw}"
format_args="format --cluster-id $CLUSTER_ID --config $CONF --ignore-formatted"
if grep -q '^process\.roles=.*controller' "$CONF" && ! grep -q '^controller\.quorum\.voters=' "$CONF"; then
	format_args="$format_args --standalone"
fi

LOG4J="${KAFKA_LOG4J_OPTS:--Dlog4j2.configurationFile=$KAFKA_HOME/config/log4j2.properties}"
HEAP="${KAFKA_HEAP_OPTS:--Xmx768M -Xms256M}"
PERF="${KAFKA_JVM_PERFORMANCE_OPTS:--server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true}"

echo "kreactor/kafka: configuration $CONF:"
sort "$CONF" | sed 's/^/  /'
# shellcheck disable=SC2086 # option lists are word-split on purpose
"$JAVA" -Xmx256M $LOG4J -cp "$CP" kafka.tools.StorageTool $format_args

# shellcheck disable=SC2086
exec "$JAVA" $HEAP $PERF ${KAFKA_GC_LOG_OPTS:-} ${KAFKA_JMX_OPTS:-} ${KAFKA_OPTS:-} $LOG4J \
	-cp "$CP" kafka.Kafka "$CONF"
