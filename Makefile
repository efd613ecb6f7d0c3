# kreactor: conformance harness for the KIP-1371 consumer reactor.
#
#   make test         vet; race-enabled unit tests of every package outside specs/;
#                     then the conformance run below under the race detector
#   make conformance  run the Ginkgo suites once per subject (reactor, baseline) on the
#                     target (kfake), write reports/out/conformance.md and summary.json,
#                     and check the expectations: every catalogue item passes on the
#                     reactor and every regression spec fails on the baseline
#   make conformance-kafka
#                     the same on real Apache Kafka 4.4.0 in Docker (builds the
#                     image first), added to the same report
#   make fmt / vet
#   make java-driver  build the Java driver (subjects/java) and resolve kafka-clients
#                     $(KREACTOR_JAVA_CLIENTS) (default 4.4.0) into subjects/java/target
#                     (Maven; cached: a no-op when up to date)
#   make java-test    the java subject's tests (harness/subjects/java), race-enabled
#   make java-releases
#                     the java subject's release test on the latest patch of 4.0-4.4
#                     (JAVA_RELEASES), each resolved from Maven Central once

GO          ?= go
GINKGO      ?= $(GO) tool ginkgo
REPORT_DIR  ?= reports/out
TARGET      ?= kfake
SUBJECTS    ?= reactor baseline
# Extra ginkgo flags, e.g. --race (make test sets it) or --label-filter=...
GINKGO_FLAGS ?=

# Every package except the Ginkgo suites (they run in conformance).
UNIT_PKGS = $(shell $(GO) list ./... | grep -v '/specs/')

.PHONY: test unit conformance conformance-kafka suites report fmt vet

test: vet unit
	$(MAKE) conformance GINKGO_FLAGS="--race $(GINKGO_FLAGS)"

unit:
	$(GO) test -race $(UNIT_PKGS)

# One Ginkgo run per subject on $(TARGET) (a failing spec does not stop the
# others: --keep-going), then the report over every run found in
# $(REPORT_DIR) (kfake and kafka columns side by side). The exit status is
# the report's expectation check: the baseline is *expected* to fail the
# regression specs, so raw spec failures alone do not decide it.
conformance:
	@$(MAKE) --no-print-directory suites TARGET=$(TARGET)
	@$(MAKE) --no-print-directory report

# The same suites on real Apache Kafka (Docker, the local 4.4.0 image; see
# make docker / kafka-image), added to the same report.
conformance-kafka: kafka-image
	@$(MAKE) --no-print-directory suites TARGET=kafka
	@$(MAKE) --no-print-directory report

suites:
	@mkdir -p $(REPORT_DIR)
	@for s in $(SUBJECTS); do \
		echo "== conformance: subject $$s, target $(TARGET)"; \
		KREACTOR_SUBJECT=$$s KREACTOR_TARGET=$(TARGET) $(GINKGO) --keep-going $(GINKGO_FLAGS) \
			--json-report=ginkgo-$$s-$(TARGET).json --output-dir=$(REPORT_DIR) ./specs/... \
			|| echo "== conformance: subject $$s on $(TARGET) had failing specs (expected for baseline regressions)"; \
	done

report:
	@files=$$(ls $(REPORT_DIR)/ginkgo-*-*.json | paste -sd, -); \
	$(GO) run ./cmd/kreactor report -in $$files -out $(REPORT_DIR) -check reactor,baseline

fmt:
	$(GO) fmt ./...

vet:
	$(GO) vet ./...

# Real Kafka in Docker (package containers). Not part of `make test` yet.
#   make docker       start a local Docker engine: images/kafka/docker.sh start
#                     (installs docker.io when missing; waits <= 60 s for it)
#   make kafka-image  build $(KAFKA_IMAGE) from Maven Central jars unless the
#                     image is present (FORCE=1 rebuilds); starts Docker first
# testcontainers-go must not start its reaper (an image no registry here
# serves) nor address the Docker gateway: package containers also defaults
# both variables when unset.
KAFKA_IMAGE ?= kreactor/kafka:4.4.0
export TESTCONTAINERS_RYUK_DISABLED ?= true
export TESTCONTAINERS_HOST_OVERRIDE ?= 127.0.0.1

.PHONY: docker kafka-image

docker:
	images/kafka/docker.sh start

kafka-image: docker
	KREACTOR_KAFKA_IMAGE=$(KAFKA_IMAGE) images/kafka/build.sh

# The java subject (harness/subjects/java): the Java driver for kafka-clients.
# KREACTOR_JAVA_CLIENTS picks a release (default 4.4.0), KREACTOR_JAVA_CLASSPATH
# a locally built kafka-clients (colon-separated jars) instead.
KREACTOR_JAVA_CLIENTS ?= 4.4.0
JAVA_RELEASES ?= 4.0.2 4.1.2 4.2.2 4.3.1 4.4.0

.PHONY: java-driver java-test java-releases

java-driver:
	@subjects/java/build.sh classpath $(KREACTOR_JAVA_CLIENTS) >/dev/null
	@echo "java driver: subjects/java/target/kreactor-java-driver.jar, kafka-clients $(KREACTOR_JAVA_CLIENTS) in subjects/java/target/clients/$(KREACTOR_JAVA_CLIENTS)"

java-test: java-driver
	$(GO) test -race ./harness/subjects/java/...

java-releases: java-driver
	@for v in $(JAVA_RELEASES); do subjects/java/build.sh clients $$v || exit 1; done
	KREACTOR_JAVA_RELEASES="$(JAVA_RELEASES)" $(GO) test -race -run 'TestReleases' -v ./harness/subjects/java/
