#!/usr/bin/env bash
# Build the local image kreactor/harness:dev (no registry needed): the
# harness as a root folder that `docker import` turns into an image, the way
# images/kafka/build.sh builds Kafka's. It holds
#   /usr/local/bin/kreactor  the CLI (kreactor plan -exec runs a shard)
#   /usr/local/bin/ginkgo    Ginkgo's CLI, the module's pinned version
#   /src                     the committed tree (git archive HEAD) with its
#                            modules vendored, and every suite precompiled as
#                            specs/NAME/NAME.test (kreactor plan runs those)
#   /usr/local/go            the Go toolchain: the structure specs (reactor/
#                            imports no protocol code) read packages with
#                            go list
#   /bin/busybox             a shell for the engines' commands
# The java subject (a JVM and kafka-clients) is not in the image: engines
# run the other subjects there; the java column runs where a JDK is
# (make java-matrix, the workflow).
#
#   images/harness/build.sh           build (about a minute when Go's caches are warm)
#
# Environment: KREACTOR_HARNESS_IMAGE (default kreactor/harness:dev),
# KREACTOR_IMAGE_WORK (scratch folder, default /tmp/kreactor-harness-image).
# Needs: a Docker engine (make docker), git, go, busybox-static (.ci/install
# installs it).
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
SRC="$(cd "$HERE/../.." && pwd)"
IMAGE="${KREACTOR_HARNESS_IMAGE:-kreactor/harness:dev}"
WORK="${KREACTOR_IMAGE_WORK:-/tmp/kreactor-harness-image}"
ROOT="$WORK/rootfs"

# shellcheck source=../lib.sh
. "$HERE/../lib.sh"

need_docker
need_busybox
start=$(date +%s)
commit="$(git -C "$SRC" rev-parse HEAD)"
rm -rf "$WORK"
mkdir -p "$ROOT"/{bin,etc,tmp,src,usr/local/bin,results}
chmod 1777 "$ROOT/tmp" "$ROOT/results"

say "source: git archive $commit"
git -C "$SRC" archive HEAD | tar -x -C "$ROOT/src"
(cd "$ROOT/src" && go mod vendor)

say "binaries: kreactor, ginkgo, the suites (static, CGO_ENABLED=0)"
export CGO_ENABLED=0 GOFLAGS=-mod=vendor
(cd "$ROOT/src" && go build -trimpath -o "$ROOT/usr/local/bin/kreactor" ./cmd/kreactor)
(cd "$ROOT/src" && go build -trimpath -o "$ROOT/usr/local/bin/ginkgo" github.com/onsi/ginkgo/v2/ginkgo)
for d in "$ROOT"/src/specs/*/; do
	name="$(basename "$d")"
	ls "$d"/*_test.go >/dev/null 2>&1 || continue
	(cd "$ROOT/src" && go test -c -o "specs/$name/$name.test" "./specs/$name")
done

say "go toolchain: $(go env GOROOT)"
GOROOT="$(go env GOROOT)"
mkdir -p "$ROOT/usr/local/go"
tar -C "$GOROOT" --exclude=./test --exclude=./doc --exclude=./api --exclude='./pkg/*_race' -c . | tar -x -C "$ROOT/usr/local/go"

add_busybox_root "$ROOT"

say "docker import $IMAGE ($(du -sh "$ROOT" | cut -f1) root folder)"
tar -C "$ROOT" -c . | docker import \
	-c 'ENTRYPOINT ["/usr/local/bin/kreactor"]' \
	-c 'ENV PATH=/usr/local/bin:/usr/local/go/bin:/bin GOROOT=/usr/local/go GOFLAGS=-mod=vendor GOTOOLCHAIN=local GOCACHE=/tmp/go-cache HOME=/tmp CGO_ENABLED=0 KREACTOR_GINKGO=/usr/local/bin/ginkgo KREACTOR_SUITE_BINARIES=1' \
	-c "ENV KREACTOR_GIT_COMMIT=$commit KREACTOR_GIT_DIRTY=0" \
	-c 'WORKDIR /src' \
	-c "LABEL org.opencontainers.image.title=kreactor-harness org.opencontainers.image.revision=$commit" \
	-m "kreactor harness at $commit" \
	- "$IMAGE" >/dev/null
rm -rf "$WORK"
# Smoke test: the plan lists a suite's units from its precompiled binary.
if ! docker run --rm "$IMAGE" plan -subjects reactor -suites ./specs/contract -shard 0/2 >/dev/null; then
	docker image rm "$IMAGE" >/dev/null 2>&1 || true
	say "smoke test failed: kreactor plan in $IMAGE (image removed)"
	exit 1
fi
say "built $IMAGE in $(($(date +%s) - start))s: $(docker image inspect --format '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1/1e6}')"
