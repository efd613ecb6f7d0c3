#!/bin/sh
# Run the conformance plan as N sonobuoy plugins (one per shard, from
# plugin.yaml), then the merge step: one report over every shard's run files,
# whose check is the exit status.
#
#   deploy/sonobuoy/run.sh [N]     (default 4; needs sonobuoy, kubectl and a
#                                   cluster whose nodes have kreactor/harness:dev)
set -eu
n="${1:-4}"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
plugins=""
i=0
while [ "$i" -lt "$n" ]; do
	sed -e "s/kreactor-shard-0/kreactor-shard-$i/" -e "s/shard 0 of 4/shard $i of $n/" \
		-e "s/-shard 4 /-shard $n /" -e "/name: JOB_COMPLETION_INDEX/{n;s/\"0\"/\"$i\"/}" \
		"$here/plugin.yaml" >"$work/plugin-$i.yaml"
	plugins="$plugins -p $work/plugin-$i.yaml"
	i=$((i + 1))
done
# shellcheck disable=SC2086
sonobuoy run $plugins --wait
tarball="$(sonobuoy retrieve "$work")"
mkdir -p "$work/results" && tar -xzf "$tarball" -C "$work/results"
sonobuoy delete --wait >/dev/null
out="${KREACTOR_REPORT_DIR:-reports/out/sonobuoy}"
files="$(find "$work/results/plugins" -name 'ginkgo-*.json' | sort | paste -sd, -)"
go run ./cmd/kreactor report -in "$files" -out "$out" -check reactor,baseline,null
