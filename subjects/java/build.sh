#!/usr/bin/env bash
# Build and cache kreactor's Java driver and the kafka-clients releases it runs
# against. Everything goes under target/ (gitignored); Maven's ~/.m2 caches the
# downloads, so after the first run (about 30 s) nothing is fetched again.
#
#   build.sh driver              target/kreactor-java-driver.jar (+ target/logging/*.jar),
#                                rebuilt only when src/ or pom.xml is newer than the jar
#   build.sh clients VERSION     target/clients/VERSION/*.jar: kafka-clients VERSION and its
#                                runtime dependencies from Maven Central (once per version)
#   build.sh classpath [VERSION] both of the above, then print the driver's full classpath
#                                (driver jar, logging jars, the release's jars) on stdout;
#                                VERSION defaults to $KREACTOR_JAVA_CLIENTS or 4.4.0
#
# Concurrent runs (several test packages at once) are serialised by a lock
# file. Needs java and mvn (Maven 3.6.3+) on PATH; says so clearly when missing.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
TARGET="$HERE/target"
JAR="$TARGET/kreactor-java-driver.jar"

say() { echo "build.sh: $*" >&2; }
die() { say "$*"; exit 1; }
# Exit status 3: a tool is missing (the Go side reports ErrJavaMissing).
missing() { say "$*"; exit 3; }

need() {
	command -v "$1" >/dev/null 2>&1 || missing "$1 not found on PATH: the java subject needs a JDK 17+ and Maven 3.6.3+ (Debian: apt-get install openjdk-17-jdk-headless maven)"
}

check_version() {
	[[ "$1" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[A-Za-z0-9.]+)?$ ]] ||
		die "invalid kafka-clients version \"$1\": want a release such as 4.4.0 (KREACTOR_JAVA_CLIENTS)"
}

# mvn_quiet LOG ARGS...: run Maven in batch mode with output in LOG, shown on
# failure (Debian's Maven 3.8.7 prints stray colour codes even with -q).
mvn_quiet() {
	local log="$1"
	shift
	if ! mvn -B -q "$@" >"$log" 2>&1; then
		sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -v '^\[ERROR\] *$' | head -40 >&2
		die "mvn $* failed (log: $log)"
	fi
}

build_driver() {
	if [ -f "$JAR" ] && [ -d "$TARGET/logging" ] &&
		[ -z "$(find "$HERE/src" "$HERE/pom.xml" -newer "$JAR" -print -quit)" ]; then
		return 0
	fi
	need javac
	need mvn
	say "building the driver (mvn package)"
	mvn_quiet "$TARGET/mvn-driver.log" -f "$HERE/pom.xml" package
	[ -f "$JAR" ] || die "mvn package produced no $JAR"
	touch "$JAR"
}

resolve_clients() {
	local v="$1" dir="$TARGET/clients/$1"
	check_version "$v"
	[ -f "$dir/.complete" ] && return 0
	need mvn
	say "resolving kafka-clients $v (mvn dependency:copy-dependencies)"
	rm -rf "$dir"
	mkdir -p "$dir"
	if ! (mvn_quiet "$TARGET/mvn-clients-$v.log" -f "$HERE/clients/pom.xml" \
		-Dkafka.clients.version="$v" dependency:copy-dependencies \
		-DincludeScope=runtime -DexcludeGroupIds=org.slf4j -DoutputDirectory="$dir"); then
		rm -rf "$dir"
		die "kafka-clients $v could not be resolved from Maven Central: is it a released version? (KREACTOR_JAVA_CLIENTS)"
	fi
	ls "$dir"/kafka-clients-"$v".jar >/dev/null 2>&1 || die "kafka-clients $v: no jar after resolving (see $TARGET/mvn-clients-$v.log)"
	touch "$dir/.complete"
}

jars() { find "$1" -maxdepth 1 -name '*.jar' | sort | paste -sd: -; }

mkdir -p "$TARGET"
exec 9>"$TARGET/.lock"
flock 9

case "${1:-}" in
driver)
	build_driver
	;;
clients)
	[ $# -eq 2 ] || die "usage: build.sh clients VERSION"
	resolve_clients "$2"
	;;
classpath)
	v="${2:-${KREACTOR_JAVA_CLIENTS:-4.4.0}}"
	build_driver
	resolve_clients "$v"
	echo "$JAR:$(jars "$TARGET/logging"):$(jars "$TARGET/clients/$v")"
	;;
*)
	die "usage: build.sh driver | clients VERSION | classpath [VERSION]"
	;;
esac
