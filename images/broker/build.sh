#!/usr/bin/env bash
# Build the kreactor broker image ($KREACTOR_BROKER_IMAGE, default
# kreactor/broker:dev) from this checkout: a static kreactor binary
# (CGO_ENABLED=0) on scratch. No registry is reached.
set -euo pipefail
cd "$(dirname "$0")/../.."
IMAGE="${KREACTOR_BROKER_IMAGE:-kreactor/broker:dev}"
ctx="$(mktemp -d)"
trap 'rm -rf "$ctx"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$ctx/kreactor" ./cmd/kreactor
cp images/broker/Dockerfile "$ctx/"
docker build -q -t "$IMAGE" "$ctx" >/dev/null
echo "build.sh: $IMAGE ($(du -h "$ctx/kreactor" | cut -f1) binary)"
