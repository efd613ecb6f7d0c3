# kreactor: conformance harness for the KIP-1371 consumer reactor.
#
#   make test         vet; race-enabled unit tests of every package outside specs/;
#                     then the conformance run below under the race detector for the
#                     subjects whose verdicts decide the check (TEST_SUBJECTS: reactor,
#                     baseline, null)
#   make conformance  run the Ginkgo suites RUNS times (default 1) per subject (reactor,
#                     baseline, java, kgo; the null subject runs the regression suite
#                     only) on the target (kfake), then write in reports/out:
#                     conformance.html (self-contained, plots), conformance.md,
#                     summary.json, conformance.jira.txt (Jira markup for KAFKA-20995),
#                     junit-<subject>-<target>-run<k>.xml (Ginkgo's JUnit reporter);
#                     check the expectations (every catalogue item passes on the reactor,
#                     every regression spec fails on the baseline on its signal and on the
#                     null subject on a liveness key; java and kgo are evidence: shown
#                     per regression, failing the check only on a harness error such as
#                     a driver crash) and render the HTML in headless Chromium
#                     (browser-check). SUBJECTS='reactor null baseline' leaves the real
#                     clients out
#   make conformance PROCS=1 JAVA_PROCS=1 NULL_PROCS=1
#                     one Ginkgo process per suite (default 4, java 2, null 8, every
#                     subject KAFKA_PROCS 2 on real Kafka); specs that judge CPU or timing
#                     (suite.Alone; CPU only: alone except on the reactor, docs/running.md)
#                     run alone, after the suite's parallel specs
#   make conformance RUNS=5      repeat the suites; the report shows min/median/max per figure
#   make conformance LABEL_FILTER='covers:KAFKA-20253'
#                     only the specs matching the filter (no spec matched: an error)
#   make conformance-kafka
#                     the same on real Apache Kafka 4.4.0 in Docker (builds the
#                     image first), added to the same report: the reactor on every
#                     suite, the baseline on the regression suite (KAFKA_SUBJECTS,
#                     KAFKA_CONTROLS, KAFKA_CONTROL_SUITES)
#   make real-clients java and kgo on every suite on kfake, then make real-kafka
#   make report       rebuild the reports from the JSON runs in reports/out (with the
#                     kill matrix when reports/out/mutants.json exists)
#   make mutants      build every suite that can kill (regressions, properties, contract,
#                     e2e, share) and the model's trace validation with the mutants tag
#                     and run them on every mutant of the reactor path (internal/mutant),
#                     reactor on kfake;
#                     print the kill matrix, write reports/out/mutants.json; fails when a
#                     mutant survives or is killed only by specs of another shape. Long
#                     (every suite on 2 cores: about 3.3 min per mutant and for the run
#                     without one, over an hour in all): not part of make test or .ci/run.
#                     MUTANT_FLAGS='-only NAME -suites ./specs/properties' narrows it
#   make browser-check
#                     headless Chromium (Debian's chromium; skipped with a note when missing) opens
#                     conformance.html: no console error, no network request, every plot
#                     drawn; screenshots in reports/out
#   make harness-image
#                     the harness in a local image kreactor/harness:dev (images/harness/build.sh,
#                     no registry) for the engines in deploy/ (Indexed Job, sonobuoy plugin)
#   make shards-check the Indexed Job simulated here: SHARDS processes of kreactor plan -shard
#                     N -exec with JOB_COMPLETION_INDEX=i, checked disjoint, complete and
#                     merge-equal to an unsharded run (kreactor plan -h: units, shards)
#   make fmt / vet
#   make java-driver  build the Java driver (subjects/java) and resolve kafka-clients
#                     $(KREACTOR_JAVA_CLIENTS) (default 4.4.0) into subjects/java/target
#                     (Maven; cached: a no-op when up to date)
#   make java-test    the java subject's tests (harness/subjects/java), race-enabled
#   make java-kafka   every suite with the java subject on real Kafka 4.4.0 (Docker),
#                     added to the report as a java (4.4.0) / kafka column; not in .ci/run
#   make real-kafka   the regression and contract suites with java and kgo on real
#                     Kafka 4.4.0 (Docker), added to the report: its agreement section
#                     sets each client's verdict on kafka next to the one on kfake.
#                     In .ci/run
#   make java-matrix  the release matrix: the specs of the regression suite that cover a
#                     regression item, with KREACTOR_SUBJECT=java
#                     on kfake RUNS times (default 5) per kafka-clients release in
#                     MATRIX_RELEASES (every 4.x release, 4.0.0-4.4.0), then the table
#                     regression x release (rate k/n with its 95% Wilson interval;
#                     reproduces / does not / inconclusive / n/a) on stdout, in
#                     reports/out/release-matrix.json (+ .md); make report shows it,
#                     kreactor report -findings names the release a shape starts or
#                     stops in. MATRIX_FOCUS='covers:KAFKA-18641' restricts it further.
#                     Hours on 2 cores; not in make test or .ci/run
#   make java-releases
#                     the java subject's release test on the latest patch of 4.0-4.4
#                     (JAVA_RELEASES), each resolved from Maven Central once
#   make bench        the side-by-side benchmark (package bench; docs/bench.md; not in make
#                     test; it prints how long it took): reactor, baseline, raw kgo and Java
#                     (through the driver, polling inside a fresh JVM, and warm) on kfake
#                     and on real Kafka 4.4.0 (Docker), $(BENCH_ROUNDS) interleaved rounds;
#                     latency produce -> Poll (one subject at a time, and all at once in
#                     alternating 1 s turns), memory with a backlog, idle CPU; writes
#                     $(BENCH_OUT)/bench.txt (benchstat reads it: go run
#                     golang.org/x/perf/cmd/benchstat -col /subject bench.txt) and
#                     perf.json (kreactor report -perf), prints min/median/max and the
#                     ratios to kgo. BENCH_FLAGS adds flags, e.g. -targets kfake

GO          ?= go
GINKGO      ?= $(GO) tool ginkgo
REPORT_DIR  ?= reports/out
TARGET      ?= kfake
# java (kafka-clients $(KREACTOR_JAVA_CLIENTS), a JVM per consumer) and kgo
# (franz-go) are the real clients: evidence columns, never required to pass
# or fail a regression (the check fails only on their harness errors).
SUBJECTS    ?= reactor null baseline java kgo
# The null subject (a consumer that never sends) is a control for regression
# specs only: it runs the regression suite, not the properties or e2e suites.
NULL_SUITES ?= ./specs/regressions
# -check REFERENCE,CONTROL[,NULL...] (reports.Check).
CHECK       ?= reactor,baseline,null
RUNS        ?= 1
LABEL_FILTER ?=
# What conformance-kafka runs on real Kafka: the reference on every suite,
# the control on the regression suite (what the check asks of it; its
# failures of the other suites show on kfake). The null control is left out:
# it sends nothing, so no verdict of it can depend on the broker
# (KAFKA_CONTROLS='baseline null' adds it). The real clients on Kafka: make
# real-kafka.
KAFKA_SUBJECTS ?= reactor
KAFKA_CONTROLS ?= baseline
KAFKA_CONTROL_SUITES ?= ./specs/regressions
# The subjects make test runs: the reference and the two controls, whose
# verdicts decide the check. The real clients are evidence: make conformance
# runs them on kfake, make real-clients on kfake and Kafka (.ci/run).
TEST_SUBJECTS ?= reactor null baseline
# Subjects that run alongside the subject after them in SUBJECTS rather than
# alone: null, the consumer that never sends, judged on liveness keys only
# (its specs mostly wait out timeouts), beside the baseline, whose
# regression verdicts are busy loops far above their bounds. Never the
# reference or a real client: their CPU and timing figures need the
# machine. Its console output goes to REPORT_DIR/console-SUBJECT-TARGET.log.
OVERLAP_SUBJECTS ?= null
# The suite packages `suites` runs for every subject but null.
SUITES      ?= ./specs/...
# Extra ginkgo run flags, e.g. -v.
GINKGO_FLAGS ?=
# Extra build flags for the suite binaries (specs/build.sh: go test -c), e.g.
# --race (make test sets it).
GINKGO_BUILD_FLAGS ?=
# Ginkgo processes per suite run. Most specs wait out timeouts and retry
# schedules, so they run side by side; a spec that judges CPU or timing
# (suite.Alone: Serial, label judges:cpu / judges:timing) runs alone after
# them. The java subject starts a JVM per consumer: fewer at once. PROCS=1
# JAVA_PROCS=1 NULL_PROCS=1 runs everything in one process per suite.
PROCS       ?= 4
JAVA_PROCS  ?= 2
# The null subject (OVERLAP_SUBJECTS) sends nothing: its specs wait out
# their timeouts at almost no CPU, and wait again whenever a serial spec of
# the subject beside it holds the machine lease. With PROCS of them it
# outlasted the baseline beside it (243 s to 189 s on 2 cores), and the
# next subject waited for it. On real Kafka it gets KAFKA_PROCS, as every
# subject does (each process pools its own clusters).
NULL_PROCS  ?= 8
# On real Kafka each Ginkgo process pools its own clusters (a container per
# broker, per cluster shape): fewer processes keep the containers' memory in
# bounds.
KAFKA_PROCS ?= 2

# Provenance for the test binaries (package harness/suite reads these; they fall back
# to running git themselves): commit, dirty flag and a hash of the uncommitted
# changes (suite.DiffHash: sha256 over `git diff HEAD` and `git status --porcelain`).
export KREACTOR_GIT_COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
export KREACTOR_GIT_DIRTY  ?= $(shell test -z "$$(git status --porcelain 2>/dev/null)" && echo 0 || echo 1)
export KREACTOR_GIT_DIFF   ?= $(shell test -z "$$(git status --porcelain 2>/dev/null)" || { git diff HEAD; git status --porcelain; } | sha256sum | cut -c1-12)

# Every package except the Ginkgo suites (they run in conformance).
UNIT_PKGS = $(shell $(GO) list ./... | grep -v '/specs/')

.PHONY: test unit conformance conformance-kafka suites report browser-check fmt vet mutants

test: vet unit
	$(MAKE) conformance SUBJECTS="$(TEST_SUBJECTS)" GINKGO_BUILD_FLAGS="--race $(GINKGO_BUILD_FLAGS)"

# The machine lease (internal/machinelease): a spec that judges CPU or timing
# (suite.Alone) takes it exclusively, every other spec and each suite
# compilation shared, and the unit tests exclusively (they saturate both
# cores under -race, and some time their own runs), so none of these runs
# beside a unit-test run or a judging spec, even from another make or shard
# on the machine at the same time. It orders processes only: what another
# run leaves running between its specs (a Kafka cluster it pools) is not
# covered, which is why .ci/run runs its steps one after another.
# KREACTOR_MACHINE_LEASE names the lease file (default
# $$TMPDIR/kreactor-machine.lease; off disables it).
LEASE ?= $(GO) run ./cmd/kreactor lease

unit:
	$(LEASE) -exclusive -- $(GO) test -race $(UNIT_PKGS)

# RUNS rounds of one Ginkgo run per subject on $(TARGET) (a failing spec does not
# stop the others: --keep-going), then the report over every run file in
# $(REPORT_DIR) (kfake and kafka columns side by side), then the browser check.
# The exit status is the report's expectation check: the baseline is *expected*
# to fail the regression specs, so raw spec failures alone do not decide it.
conformance:
	@$(MAKE) --no-print-directory suites TARGET=$(TARGET)
	@$(MAKE) --no-print-directory report
	@$(MAKE) --no-print-directory browser-check

# The same suites on real Apache Kafka (Docker, the local 4.4.0 image; see
# make docker / kafka-image), added to the same report.
conformance-kafka: kafka-image
	@$(MAKE) --no-print-directory suites TARGET=kafka SUBJECTS="$(KAFKA_SUBJECTS)" PROCS=$(KAFKA_PROCS) JAVA_PROCS=$(KAFKA_PROCS) NULL_PROCS=$(KAFKA_PROCS)
	@$(MAKE) --no-print-directory suites TARGET=kafka SUBJECTS="$(KAFKA_CONTROLS)" SUITES="$(KAFKA_CONTROL_SUITES)" PROCS=$(KAFKA_PROCS) JAVA_PROCS=$(KAFKA_PROCS) NULL_PROCS=$(KAFKA_PROCS)
	@$(MAKE) --no-print-directory report
	@$(MAKE) --no-print-directory browser-check

# Old run files of the same subject and target are removed first, so a report
# never mixes this run with rounds of an earlier one. Each suite is compiled
# once per invocation (specs/build.sh: go test -c with GINKGO_BUILD_FLAGS
# such as --race; the binary SUITE/NAME-<pid>.test, so two makes at once keep
# theirs apart, removed again at the end) and run for every subject and
# round. Console output carries no ANSI colour codes unless stdout
# is a terminal.
suites:
	@mkdir -p $(REPORT_DIR)
	@case " $(SUBJECTS) " in *" java "*|*" java-classic "*) $(MAKE) --no-print-directory java-driver;; esac
	@case "$(RUNS)" in ''|*[!0-9]*|0) echo "RUNS=$(RUNS): want a positive integer" >&2; exit 2;; esac
	@color=$$( [ -t 1 ] || echo --no-color ); \
	filter=$$( [ -n "$(LABEL_FILTER)" ] && printf -- "--label-filter=%s" "$(LABEL_FILTER)" ); \
	dirs() { $(GO) list -f '{{if .TestGoFiles}}{{.Dir}}{{end}}' "$$@"; }; \
	tag=$$$$; bins() { for d in $$(dirs "$$@"); do printf '%s/%s-%s.test ' "$$d" "$$(basename "$$d")" "$$tag"; done; }; \
	all="$(SUITES)"; case " $(SUBJECTS) " in *" null "*) all="$$all $(NULL_SUITES)";; esac; \
	built=$$(bins $$all); trap 'rm -f $$built' EXIT; \
	echo "== conformance: compiling $$(dirs $$all | wc -l) suite(s) $(GINKGO_BUILD_FLAGS)"; \
	GO="$(GO)" $(LEASE) -- specs/build.sh $$tag "$(GINKGO_BUILD_FLAGS)" $$(dirs $$all) || exit 1; \
	one() { s=$$1; \
		rm -f $(REPORT_DIR)/ginkgo-$$s-$(TARGET).json $(REPORT_DIR)/ginkgo-$$s-$(TARGET)-run*.json $(REPORT_DIR)/junit-$$s-$(TARGET)*.xml; \
		for k in $$(seq 1 $(RUNS)); do \
			echo "== conformance: subject $$s, target $(TARGET), run $$k of $(RUNS)"; \
			pkgs="$(SUITES)"; [ "$$s" = null ] && pkgs="$(NULL_SUITES)"; \
			procs=$(PROCS); case "$$s" in java*) procs=$(JAVA_PROCS);; null) procs=$(NULL_PROCS);; esac; \
			KREACTOR_SUBJECT=$$s KREACTOR_TARGET=$(TARGET) KREACTOR_RUN=$$k KREACTOR_RUNS=$(RUNS) \
			$(GINKGO) --keep-going --procs=$$procs $$color $${filter:+"$$filter"} $(GINKGO_FLAGS) \
				--json-report=ginkgo-$$s-$(TARGET)-run$$k.json --junit-report=junit-$$s-$(TARGET)-run$$k.xml \
				--output-dir=$(REPORT_DIR) $$(bins $$pkgs) \
				|| case "$$s" in \
					baseline|null) echo "== conformance: subject $$s on $(TARGET) run $$k had failing specs (expected: the controls fail the regression specs; the report checks on which keys)";; \
					reactor) echo "== conformance: subject $$s on $(TARGET) run $$k had failing specs (the report's check fails)";; \
					*) echo "== conformance: subject $$s on $(TARGET) run $$k had failing specs (evidence about the client; the report classifies each)";; \
				esac; \
		done; }; \
	bg=; bgs=; \
	join() { [ -n "$$bg" ] || return 0; wait $$bg; \
		grep -E '^== conformance|Ran [0-9]+ of [0-9]+ Specs' $(REPORT_DIR)/console-$$bgs-$(TARGET).log; \
		echo "== conformance: subject $$bgs done (console: $(REPORT_DIR)/console-$$bgs-$(TARGET).log)"; bg=; }; \
	for s in $(SUBJECTS); do \
		case " $(OVERLAP_SUBJECTS) " in *" $$s "*) \
			join; echo "== conformance: subject $$s runs alongside the next subject"; \
			one $$s > $(REPORT_DIR)/console-$$s-$(TARGET).log 2>&1 & bg=$$!; bgs=$$s; continue;; \
		esac; \
		one $$s; join; \
	done; join

report:
	@files=$$(ls $(REPORT_DIR)/ginkgo-*-*.json | paste -sd, -); \
	mutants=$$( [ -f $(REPORT_DIR)/mutants.json ] && echo "-mutants $(REPORT_DIR)/mutants.json" ); \
	releases=$$( [ -f $(MATRIX_OUT) ] && echo "-releases $(MATRIX_OUT)" ); \
	$(GO) run ./cmd/kreactor report -in $$files -out $(REPORT_DIR) -check $(CHECK) $$mutants $$releases

# The mutation runs: one test binary per suite (and the model's trace
# validation) built with the mutants tag, run once without a mutant and once
# per mutant.
mutants:
	@start=$$(date +%s); \
	$(GO) run ./cmd/kreactor mutants -out $(REPORT_DIR)/mutants.json -dir $(REPORT_DIR)/mutants $(MUTANT_FLAGS); status=$$?; \
	echo "== make mutants: $$(( $$(date +%s) - start )) s"; exit $$status

# Headless Chromium renders conformance.html (package reports, TestBrowser): no
# console error, no request beyond the file, every plot drawn; it saves
# screenshots next to the report. Chromium comes from Debian's package.
# Without chromium on PATH it says so and skips, unless
# KREACTOR_REQUIRE_CHROMIUM=1 (.ci/run) makes that a failure.
browser-check:
	@if command -v chromium >/dev/null 2>&1 || [ "$${KREACTOR_REQUIRE_CHROMIUM:-}" = 1 ]; then \
		KREACTOR_REQUIRE_CHROMIUM=1 KREACTOR_REPORT_HTML=$(abspath $(REPORT_DIR))/conformance.html \
			$(GO) test -count=1 -run 'TestBrowser$$' ./reports/; \
	else echo "== browser-check skipped: no chromium on PATH (Debian's chromium; .ci/install installs it)"; fi

fmt:
	$(GO) fmt ./...

vet:
	$(GO) vet ./...

# Real Kafka in Docker (package containers). Not part of `make test` yet.
#   make docker       start a local Docker engine: images/kafka/docker.sh start
#                     (Debian's docker.io, which .ci/install installs; waits <= 60 s for it)
#   make kafka-image  build $(KAFKA_IMAGE) from Maven Central jars unless the
#                     image is present (FORCE=1 rebuilds); starts Docker first
# testcontainers-go must not start its reaper (an image no registry here
# serves) nor address the Docker gateway: package containers also defaults
# both variables when unset.
KAFKA_IMAGE ?= kreactor/kafka:4.4.0
export TESTCONTAINERS_RYUK_DISABLED ?= true
export TESTCONTAINERS_HOST_OVERRIDE ?= 127.0.0.1

.PHONY: docker kafka-image harness-image shards-check

# The harness in a local image (images/harness/build.sh: static kreactor and
# ginkgo, the suites precompiled, the tree vendored, no registry) for the
# engines in deploy/ (Kubernetes Indexed Job, sonobuoy plugin).
HARNESS_IMAGE ?= kreactor/harness:dev
harness-image: docker
	KREACTOR_HARNESS_IMAGE=$(HARNESS_IMAGE) images/harness/build.sh

# The Indexed Job simulated on this machine (deploy, TestSimulatedJob):
# SHARDS local processes of `kreactor plan -shard SHARDS -exec`, each with
# JOB_COMPLETION_INDEX=i, against one unsharded run: the shards' units are
# disjoint and complete, and their merged report has the unsharded verdicts.
# SHARD_SUITES/SHARD_SUBJECTS choose the part of the matrix (default: the
# contract and e2e suites, reactor and baseline: about 3 minutes).
SHARDS ?= 4
SHARD_SUITES ?= ./specs/contract,./specs/e2e
SHARD_SUBJECTS ?= reactor,baseline
shards-check:
	KREACTOR_SIM_JOB=1 KREACTOR_SIM_SHARDS=$(SHARDS) KREACTOR_SIM_SUITES=$(SHARD_SUITES) KREACTOR_SIM_SUBJECTS=$(SHARD_SUBJECTS) \
		$(GO) test -count=1 -timeout 60m -run 'TestSimulatedJob$$' -v ./deploy/

docker:
	images/kafka/docker.sh start

kafka-image: docker
	KREACTOR_KAFKA_IMAGE=$(KAFKA_IMAGE) images/kafka/build.sh

# make broker-image  build $(BROKER_IMAGE): kreactor broker as a static binary
#                    on scratch (images/broker), from this checkout
BROKER_IMAGE ?= kreactor/broker:dev
.PHONY: broker-image broker-process-tests
broker-image: docker
	KREACTOR_BROKER_IMAGE=$(BROKER_IMAGE) images/broker/build.sh

# make broker-process-tests  kreactor broker / proxy as processes with kgo and the
#                            Java driver as processes (KAFKA-21031 over HTTP), the
#                            proxy in front of Kafka 4.4.0, and the image
broker-process-tests: broker-image kafka-image java-driver
	KREACTOR_PROXY_DOCKER=1 KREACTOR_REQUIRE_DOCKER=1 KREACTOR_REQUIRE_JAVA=1 KREACTOR_REQUIRE_BROKER_IMAGE=1 \
		$(GO) test -race -count=1 -run 'Process|Container' -v ./cmd/kreactor ./containers/broker

# The java subject (harness/subjects/java): the Java driver for kafka-clients.
# KREACTOR_JAVA_CLIENTS picks a release (default 4.4.0), KREACTOR_JAVA_CLASSPATH
# a locally built kafka-clients (colon-separated jars) instead.
KREACTOR_JAVA_CLIENTS ?= 4.4.0
JAVA_RELEASES ?= 4.0.2 4.1.2 4.2.2 4.3.1 4.4.0

.PHONY: java-driver java-test java-releases java-matrix java-kafka real-kafka real-clients

# The real clients on real Kafka 4.4.0 (Docker): the regression and contract
# suites with java and kgo (REAL_KAFKA_SUBJECTS, REAL_KAFKA_SUITES), added to
# the report, whose agreement section sets each client's verdict on kafka
# next to its verdict on kfake. .ci/run runs it; it prints its own time.
REAL_KAFKA_SUBJECTS ?= java kgo
REAL_KAFKA_SUITES   ?= ./specs/regressions ./specs/contract

real-kafka: kafka-image java-driver
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory suites TARGET=kafka SUBJECTS="$(REAL_KAFKA_SUBJECTS)" SUITES="$(REAL_KAFKA_SUITES)" PROCS=$(KAFKA_PROCS) JAVA_PROCS=$(KAFKA_PROCS) NULL_PROCS=$(KAFKA_PROCS); \
	echo "== make real-kafka: $$(( $$(date +%s) - start )) s"
	@$(MAKE) --no-print-directory report

# The real clients' columns, as .ci/run takes them after make test: java
# (kafka-clients $(KREACTOR_JAVA_CLIENTS)) and kgo on every suite on kfake,
# then on real Kafka as make real-kafka does, then the report (its agreement
# section compares each client's verdicts on the two targets).
real-clients: kafka-image java-driver
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory suites SUBJECTS="$(REAL_KAFKA_SUBJECTS)"; \
	echo "== make real-clients: kfake $$(( $$(date +%s) - start )) s"
	@$(MAKE) --no-print-directory real-kafka

# The java subject on real Kafka 4.4.0 (Docker): every suite, added to the
# same report as a java (4.4.0) / kafka column. Not in .ci/run.
java-kafka: kafka-image java-driver
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory suites TARGET=kafka SUBJECTS=java; \
	echo "== make java-kafka: $$(( $$(date +%s) - start )) s"
	@$(MAKE) --no-print-directory report

java-driver:
	@subjects/java/build.sh classpath $(KREACTOR_JAVA_CLIENTS) >/dev/null
	@echo "java driver: subjects/java/target/kreactor-java-driver.jar, kafka-clients $(KREACTOR_JAVA_CLIENTS) in subjects/java/target/clients/$(KREACTOR_JAVA_CLIENTS)"

java-test: java-driver
	$(GO) test -race ./harness/subjects/java/...

java-releases: java-driver
	@for v in $(JAVA_RELEASES); do subjects/java/build.sh clients $$v || exit 1; done
	KREACTOR_JAVA_RELEASES="$(JAVA_RELEASES)" $(GO) test -race -run 'TestReleases' -v ./harness/subjects/java/

# The release matrix: the regression suite (the Go regression specs and
# every scenario file) with KREACTOR_SUBJECT=java on kfake, RUNS times (default
# 5 here) per kafka-clients release in MATRIX_RELEASES (every 4.x release on
# Maven Central), rounds interleaved (round k runs every release once) so a
# change of machine load falls on all releases alike; then `kreactor matrix`:
# per regression x release the reproduction rate over the runs with its 95%
# Wilson interval and the decision (reproduces / does not reproduce /
# inconclusive / n/a) on stdout, as $(MATRIX_OUT) (JSON; `make report` and
# `kreactor report -findings` read it) and as .md next to it. MATRIX_FOCUS is
# a Ginkgo label filter (default: the specs covering a regression item of the
# catalogue, `kreactor catalogue -kind regression -format label-filter`; e.g.
# 'covers:KAFKA-18641' for one). It fails only on harness errors (a driver
# crash): what the releases do is evidence. Not in .ci/run (hours on 2 cores).
MATRIX_DIR ?= $(REPORT_DIR)/matrix
MATRIX_OUT ?= $(REPORT_DIR)/release-matrix.json
MATRIX_SUITES ?= ./specs/regressions
# Ginkgo processes per matrix run (specs that judge CPU still run alone).
MATRIX_PROCS ?= $(JAVA_PROCS)
MATRIX_RELEASES ?= 4.0.0 4.0.1 4.0.2 4.1.0 4.1.1 4.1.2 4.2.0 4.2.1 4.2.2 4.3.0 4.3.1 4.4.0
MATRIX_RUNS ?= $(if $(filter command line environment,$(origin RUNS)),$(RUNS),5)
MATRIX_FOCUS ?=

java-matrix: java-driver
	@case "$(MATRIX_RUNS)" in ''|*[!0-9]*|0) echo "RUNS=$(MATRIX_RUNS): want a positive integer" >&2; exit 2;; esac
	@mkdir -p $(MATRIX_DIR); rm -f $(MATRIX_DIR)/ginkgo-java-*.json
	@for v in $(MATRIX_RELEASES); do subjects/java/build.sh clients $$v >/dev/null || exit 1; done
	@start=$$(date +%s); color=$$( [ -t 1 ] || echo --no-color ); files=; \
	focus='$(MATRIX_FOCUS)'; [ -n "$$focus" ] || focus=$$($(GO) run ./cmd/kreactor catalogue -kind regression -format label-filter) || exit 1; \
	filter=$$(printf -- "--label-filter=%s" "$$focus"); \
	dirs=$$($(GO) list -f '{{if .TestGoFiles}}{{.Dir}}{{end}}' $(MATRIX_SUITES)); \
	bins=$$(for d in $$dirs; do printf '%s/%s.test ' "$$d" "$$(basename "$$d")"; done); trap 'rm -f $$bins' EXIT; \
	$(GINKGO) build $$dirs >/dev/null || exit 1; \
	for k in $$(seq 1 $(MATRIX_RUNS)); do \
		for v in $(MATRIX_RELEASES); do \
			echo "== java-matrix: kafka-clients $$v, run $$k of $(MATRIX_RUNS) ($$(( $$(date +%s) - start )) s)"; \
			KREACTOR_SUBJECT=java KREACTOR_JAVA_CLIENTS=$$v KREACTOR_TARGET=kfake KREACTOR_RUN=$$k KREACTOR_RUNS=$(MATRIX_RUNS) \
			$(GINKGO) --keep-going --procs=$(MATRIX_PROCS) $$color $${filter:+"$$filter"} --json-report=ginkgo-java-kfake-$$v-run$$k.json --output-dir=$(MATRIX_DIR) $$bins >$(MATRIX_DIR)/java-$$v-run$$k.log 2>&1 \
				|| echo "== java-matrix: kafka-clients $$v run $$k had failing specs (evidence; see $(MATRIX_DIR)/java-$$v-run$$k.log)"; \
			files="$$files$${files:+,}$(MATRIX_DIR)/ginkgo-java-kfake-$$v-run$$k.json"; \
		done; \
	done; \
	$(GO) run ./cmd/kreactor matrix -in $$files -subject java -target kfake -out $(MATRIX_OUT) \
		-seconds $$(( $$(date +%s) - start )) -command "make java-matrix RUNS=$(MATRIX_RUNS) MATRIX_RELEASES='$(MATRIX_RELEASES)'$(if $(MATRIX_FOCUS), MATRIX_FOCUS='$(MATRIX_FOCUS)')"; status=$$?; \
	echo "== make java-matrix: $$(( $$(date +%s) - start )) s"; exit $$status

# The side-by-side benchmark. Each measurement runs in a child
# process of the built binary; kfake lives in the parent, Kafka in Docker.
BENCH_OUT    ?= reports/out/bench
BENCH_ROUNDS ?= 6
BENCH_FLAGS  ?=

.PHONY: bench

bench: kafka-image java-driver
	@mkdir -p $(BENCH_OUT)
	$(GO) build -o $(BENCH_OUT)/kreactor ./cmd/kreactor
	@start=$$(date +%s); \
	$(BENCH_OUT)/kreactor bench -rounds $(BENCH_ROUNDS) -out $(BENCH_OUT)/bench.txt -perf $(BENCH_OUT)/perf.json $(BENCH_FLAGS); \
	status=$$?; echo "== make bench: $$(( $$(date +%s) - start )) s"; exit $$status

# Simulation runs: SEEDS schedules on SUBJECT, checked, failing ones shrunk into
# EXPLORE_OUT (the .yaml is a scenario file `kreactor run` replays; the .json `kreactor explore
# -replay`). The baseline runs on the wall clock (its busy loop freezes a bubble's clock).
SEEDS ?= 200
SUBJECT ?= reactor
EXPLORE_BUDGET ?= 10m
EXPLORE_OUT ?= $(CURDIR)/explore-out
.PHONY: explore
explore:
	@mkdir -p $(EXPLORE_OUT)
	$(GO) run ./cmd/kreactor explore -subject $(SUBJECT) -seeds $(SEEDS) -budget $(EXPLORE_BUDGET) -out $(EXPLORE_OUT) -summary $(EXPLORE_OUT)/summary-$(SUBJECT).json $(EXPLORE_FLAGS)

# The Spin model of the loop's publication/wait protocol and close (model/):
# exhaustive search of the model and of its mutants (model/README.md).
# Needs Debian's spin and gcc (.ci/install installs them); fails rather
# than skips without them.
.PHONY: model
model:
	@start=$$(date +%s); \
	out=$$(KREACTOR_REQUIRE_SPIN=1 $(GO) test -count=1 -v -run 'TestModel$$' ./model/ 2>&1); status=$$?; \
	printf '%s\n' "$$out" | grep -E '^(=== RUN|--- |ok|FAIL|PASS)|states stored|killed|all runs|want|survived'; \
	[ $$status -eq 0 ] || printf '%s\n' "$$out" | tail -40; \
	echo "== make model: $$(( $$(date +%s) - start )) s"; exit $$status
