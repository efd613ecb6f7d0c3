# kreactor: conformance harness for the KIP-1371 consumer reactor.
#
#   make test         vet; race-enabled unit tests of every package outside specs/;
#                     then the conformance run below under the race detector
#   make conformance  run the Ginkgo suites once per subject (reactor, baseline) on the
#                     target (kfake), write reports/out/conformance.md and summary.json,
#                     and check the expectations: every catalogue item passes on the
#                     reactor and every regression spec fails on the baseline
#   make fmt / vet

GO          ?= go
GINKGO      ?= $(GO) tool ginkgo
REPORT_DIR  ?= reports/out
TARGET      ?= kfake
SUBJECTS    ?= reactor baseline
# Extra ginkgo flags, e.g. --race (make test sets it) or --label-filter=...
GINKGO_FLAGS ?=

# Every package except the Ginkgo suites (they run in conformance).
UNIT_PKGS = $(shell $(GO) list ./... | grep -v '/specs/')

.PHONY: test unit conformance fmt vet

test: vet unit
	$(MAKE) conformance GINKGO_FLAGS="--race $(GINKGO_FLAGS)"

unit:
	$(GO) test -race $(UNIT_PKGS)

# One Ginkgo run per subject (a failing spec does not stop the others:
# --keep-going), then the report. The exit status is the report's
# expectation check: the baseline is *expected* to fail the regression specs,
# so raw spec failures alone do not decide it.
conformance:
	@mkdir -p $(REPORT_DIR)
	@set -e; files=""; \
	for s in $(SUBJECTS); do \
		echo "== conformance: subject $$s, target $(TARGET)"; \
		KREACTOR_SUBJECT=$$s KREACTOR_TARGET=$(TARGET) $(GINKGO) --keep-going $(GINKGO_FLAGS) \
			--json-report=ginkgo-$$s-$(TARGET).json --output-dir=$(REPORT_DIR) ./specs/... \
			|| echo "== conformance: subject $$s had failing specs (expected for baseline regressions)"; \
		files="$$files$${files:+,}$(REPORT_DIR)/ginkgo-$$s-$(TARGET).json"; \
	done; \
	$(GO) run ./cmd/kreactor report -in $$files -out $(REPORT_DIR) -check reactor,baseline

fmt:
	$(GO) fmt ./...

vet:
	$(GO) vet ./...
