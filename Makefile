# kreactor: conformance harness for the KIP-1371 consumer reactor.
#
#   make test         vet, then every package's tests under the race detector
#                     (the Ginkgo suites in specs/ run here too, once)
#   make conformance  run the Ginkgo suites, then write reports/out/conformance.md
#                     and reports/out/summary.json; fails if a spec failed
#   make fmt / vet

GO         ?= go
GINKGO     ?= $(GO) tool ginkgo
REPORT_DIR ?= reports/out
# Targets and subjects: KREACTOR_TARGET (kfake) and KREACTOR_SUBJECT (reactor)
# are read by the suites (package harness).

.PHONY: test conformance fmt vet

test: vet
	$(GO) test -race ./...

# The report is written even when specs fail (--keep-going runs every suite;
# the status is kept and returned after the report), so a red run still
# shows which items failed and with which figures.
conformance:
	@mkdir -p $(REPORT_DIR)
	@status=0; \
	$(GINKGO) --keep-going --json-report=ginkgo.json --output-dir=$(REPORT_DIR) ./specs/... || status=$$?; \
	$(GO) run ./cmd/kreactor report -in $(REPORT_DIR)/ginkgo.json -out $(REPORT_DIR) || exit $$?; \
	if [ $$status -ne 0 ]; then echo "conformance: specs failed (ginkgo exit $$status); see $(REPORT_DIR)/conformance.md" >&2; fi; \
	exit $$status

fmt:
	$(GO) fmt ./...

vet:
	$(GO) vet ./...
