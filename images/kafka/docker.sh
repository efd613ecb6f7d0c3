#!/usr/bin/env bash
# Start, stop or report a local Docker engine for the real-Kafka target.
#
#   images/kafka/docker.sh start    start dockerd (Debian's docker.io, which
#                                   .ci/install installs) in the background
#                                   unless an engine already answers, wait
#                                   until `docker info` answers
#   images/kafka/docker.sh stop     stop the dockerd this script started
#   images/kafka/docker.sh status   exit 0 when an engine answers, 1 otherwise
#
# Files: pid file $KREACTOR_DOCKERD_PID (default /var/run/kreactor-dockerd.pid),
# log $KREACTOR_DOCKERD_LOG (default /tmp/kreactor-dockerd.log).
# Wait: at most $KREACTOR_DOCKERD_WAIT seconds (default 60) for `docker info`;
# on time-out the script prints the end of the log and exits 1.
set -euo pipefail

PIDFILE="${KREACTOR_DOCKERD_PID:-/var/run/kreactor-dockerd.pid}"
LOGFILE="${KREACTOR_DOCKERD_LOG:-/tmp/kreactor-dockerd.log}"
WAIT="${KREACTOR_DOCKERD_WAIT:-60}"

say() { echo "docker.sh: $*" >&2; }

answers() { docker info >/dev/null 2>&1; }

install() {
	command -v dockerd >/dev/null 2>&1 && command -v docker >/dev/null 2>&1 && return 0
	say "dockerd is not installed: install Debian's docker.io (.ci/install does, as root)"
	exit 1
}

start() {
	if answers; then
		say "a Docker engine already answers"
		return 0
	fi
	install
	if [ -s "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
		say "dockerd (pid $(cat "$PIDFILE")) is running but does not answer yet; waiting"
	else
		if [ "$(id -u)" != 0 ]; then
			say "starting dockerd needs root"
			exit 1
		fi
		rm -f "$PIDFILE"
		say "starting dockerd (log $LOGFILE)"
		# setsid: the daemon outlives this script and its process group.
		setsid dockerd --pidfile "$PIDFILE" >"$LOGFILE" 2>&1 </dev/null &
	fi
	local i
	for ((i = 0; i < WAIT * 2; i++)); do
		if answers; then
			say "Docker engine answers ($(docker version --format '{{.Server.Version}}' 2>/dev/null))"
			return 0
		fi
		if [ -s "$PIDFILE" ] && ! kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
			break
		fi
		sleep 0.5
	done
	say "the Docker engine did not answer within ${WAIT}s; end of $LOGFILE:"
	tail -n 30 "$LOGFILE" >&2 || true
	exit 1
}

stop() {
	if [ ! -s "$PIDFILE" ]; then
		say "no pid file $PIDFILE: nothing started by this script"
		return 0
	fi
	local pid i
	pid="$(cat "$PIDFILE")"
	if kill -0 "$pid" 2>/dev/null; then
		kill "$pid"
		for ((i = 0; i < 60; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.5
		done
		if kill -0 "$pid" 2>/dev/null; then
			say "dockerd (pid $pid) did not stop within 30s"
			exit 1
		fi
	fi
	rm -f "$PIDFILE"
	say "dockerd stopped"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status)
	if answers; then
		docker version --format 'Docker engine {{.Server.Version}} (API {{.Server.APIVersion}})'
	else
		say "no Docker engine answers"
		exit 1
	fi
	;;
*)
	echo "usage: $0 start|stop|status" >&2
	exit 2
	;;
esac
