#!/usr/bin/env bash
# Compiles Ginkgo suites into test binaries the conformance run executes:
#
#   specs/build.sh TAG 'GO_TEST_FLAGS' DIR...
#
# writes DIR/<base of DIR>-TAG.test for each suite directory (go test -c with
# GO_TEST_FLAGS, e.g. --race), two at a time. Each binary stays in its
# package directory because specs read files relative to it (the scenario
# files); the TAG (make suites uses its shell's pid) keeps the binaries of
# two make runs at once apart (one building with -race, one without, would
# otherwise overwrite each other's, and the first to finish delete them).
set -euo pipefail
if [ $# -lt 3 ]; then
	echo "usage: specs/build.sh TAG 'GO_TEST_FLAGS' DIR..." >&2
	exit 2
fi
tag=$1 flags=$2
shift 2
printf '%s\n' "$@" | xargs -P 2 -I{} sh -c 'd="$1"; exec ${GO:-go} test -c $2 -o "$d/$(basename "$d")-$3.test" "$d"' _ {} "$flags" "$tag"
