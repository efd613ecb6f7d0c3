#!/usr/bin/env bash
# Build the local image kreactor/kafka:4.4.0 (no registry needed): Apache
# Kafka 4.4.0 jars from Maven Central, a jlink'ed Java 17 runtime with the
# shared libraries it links, busybox for the entrypoint's shell, and
# entrypoint.sh, in a minimal root folder that `docker import` turns into an
# image.
#
#   images/kafka/build.sh           build unless the image exists (seconds)
#   FORCE=1 images/kafka/build.sh   rebuild
#
# Environment: KREACTOR_KAFKA_IMAGE (image name, default kreactor/kafka:4.4.0),
# KREACTOR_IMAGE_WORK (scratch folder, default /tmp/kreactor-kafka-image),
# JAVA_HOME (the JDK whose jlink builds the runtime; default the machine's 17).
# Needs: a Docker engine (make docker), mvn, a JDK 17+ with jmods, and
# busybox-static (.ci/install installs it). Maven's ~/.m2 caches
# the jars between builds.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
IMAGE="${KREACTOR_KAFKA_IMAGE:-kreactor/kafka:4.4.0}"
WORK="${KREACTOR_IMAGE_WORK:-/tmp/kreactor-kafka-image}"
ROOT="$WORK/rootfs"

# shellcheck source=../lib.sh
. "$HERE/../lib.sh"

need_docker
if [ -z "${FORCE:-}" ] && docker image inspect "$IMAGE" >/dev/null 2>&1; then
	say "$IMAGE is present (FORCE=1 rebuilds)"
	exit 0
fi

start=$(date +%s)
if [ -z "${JAVA_HOME:-}" ]; then
	JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"
fi
[ -d "$JAVA_HOME/jmods" ] || { say "$JAVA_HOME has no jmods/ for jlink (set JAVA_HOME to a full JDK 17+)"; exit 1; }
need_busybox

rm -rf "$WORK"
mkdir -p "$ROOT"/{bin,etc,tmp,var/lib/kafka,opt/kafka/bin,opt/kafka/config}
chmod 1777 "$ROOT/tmp"

say "jars: mvn dependency:copy-dependencies (Kafka 4.4.0)"
# (Output to a log, shown on failure: Debian's Maven 3.8.7 prints stray colour
# codes even with -q -B.)
if ! mvn -q -B -f "$HERE/pom.xml" dependency:copy-dependencies \
	-DincludeScope=runtime -DoutputDirectory="$ROOT/opt/kafka/libs" >"$WORK/mvn.log" 2>&1; then
	cat "$WORK/mvn.log" >&2
	say "mvn failed"
	exit 1
fi

# Modules: Kafka and its libraries use JMX (java.management, jdk.management
# for OS metrics), JAAS/SASL (java.security.*, jdk.security.auth), JNDI
# (java.naming), java.beans via commons-beanutils (java.desktop), java.sql and
# java.scripting from Log4j, sun.misc.Unsafe (jdk.unsupported), EC for TLS.
MODULES=java.base,java.compiler,java.desktop,java.instrument,java.logging,java.management
MODULES+=,java.management.rmi,java.naming,java.net.http,java.rmi,java.scripting
MODULES+=,java.security.jgss,java.security.sasl,java.sql,java.transaction.xa,java.xml
MODULES+=,jdk.crypto.ec,jdk.jfr,jdk.management,jdk.naming.dns,jdk.net
MODULES+=,jdk.security.auth,jdk.unsupported,jdk.zipfs
say "java: jlink $(basename "$JAVA_HOME")"
"$JAVA_HOME/bin/jlink" --module-path "$JAVA_HOME/jmods" --add-modules "$MODULES" \
	--output "$ROOT/opt/java" --strip-debug --no-header-files --no-man-pages --compress=2

# Shared libraries: what the runtime links, plus what the native codecs that
# snappy-java / zstd-jni / lz4-java unpack at run time link (libstdc++,
# libgcc_s), with the dynamic loader.
libs="$( {
	find "$ROOT/opt/java" -type f \( -name '*.so' -o -path '*/bin/*' \) -exec ldd {} \; 2>/dev/null
	ldd "$(readlink -f /usr/lib/x86_64-linux-gnu/libstdc++.so.6)"
} | grep -o '/[^ ]*\.so[^ ]*' | sort -u)"
for lib in $libs /usr/lib/x86_64-linux-gnu/libstdc++.so.6 /lib/x86_64-linux-gnu/libgcc_s.so.1; do
	case "$lib" in "$ROOT"*) continue ;; esac
	[ -e "$lib" ] && cp -L --parents "$lib" "$ROOT"
done
# Debian is merged-/usr: keep /lib and /lib64 where the loader looks.
add_busybox_root "$ROOT"
printf 'hosts: files dns\n' >"$ROOT/etc/nsswitch.conf"
install -m 0755 "$HERE/entrypoint.sh" "$ROOT/opt/kafka/bin/entrypoint.sh"
install -m 0644 "$HERE/log4j2.properties" "$ROOT/opt/kafka/config/log4j2.properties"

say "docker import $IMAGE ($(du -sh "$ROOT" | cut -f1) root folder)"
tar -C "$ROOT" -c . | docker import \
	-c 'ENTRYPOINT ["/opt/kafka/bin/entrypoint.sh"]' \
	-c 'ENV JAVA_HOME=/opt/java PATH=/opt/java/bin:/bin:/usr/bin' \
	-c 'WORKDIR /opt/kafka' \
	-c 'EXPOSE 9092' \
	-c 'LABEL org.opencontainers.image.title=kreactor-kafka org.opencontainers.image.version=4.4.0' \
	-m "Apache Kafka 4.4.0 (Maven Central jars, jlink Java 17) for kreactor" \
	- "$IMAGE" >/dev/null
rm -rf "$WORK"
# Smoke test: the runtime starts in the image and finds the broker classes.
if ! docker run --rm --entrypoint /opt/java/bin/java "$IMAGE" -cp '/opt/kafka/libs/*' \
	kafka.tools.StorageTool random-uuid >/dev/null; then
	docker image rm "$IMAGE" >/dev/null 2>&1 || true
	say "smoke test failed: java in $IMAGE cannot run kafka.tools.StorageTool (image removed)"
	exit 1
fi
say "built $IMAGE in $(($(date +%s) - start))s: $(docker image inspect --format '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1/1e6}')"
