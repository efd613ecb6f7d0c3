// Package harness is what the kreactor specs stand on: the Target, Cluster,
// Fault and Recorder interfaces every target implements (the kfake and
// kafka targets live in harness/targets/kfake and harness/targets/kafka;
// harness/targets chooses one by name), subjects (the consumer
// implementation under test: the reactor consumer and the baseline model),
// probes over both (request counts and rates from the broker-side recorder,
// loop counters and decisions from the subject), label and figure helpers
// that follow the conformance report's conventions (package reports),
// delivery checkers, a client-side response delay (ResponseDelay), and the
// named timeouts and bounds specs use.
//
// Dependency direction (DESIGN.md): reactor <- managers <- consumer <-
// harness <- harness/targets <- specs; wire (request records and frame
// parsing) is a leaf. Specs see recorded requests as harness.Request and
// harness.RequestFilter (aliases of wire's types).
//
// Which subject a suite runs is chosen with KREACTOR_SUBJECT (default
// "reactor", see SelectedSubject); the target with KREACTOR_TARGET (default
// "kfake", see package harness/targets).
//
// For the report's plots and provenance (package reports), every suite runs
// `BeforeSuite(harness.SuiteSetup)`, which records the run's provenance
// (provenance.go), and takes its target from targets.MustSelect and its
// subject from MustSelectSubject, which wrap them (Recorded,
// RecordedSubject) so each spec's clusters and consumers are recorded on the
// spec's timeline (timeline.go: requests per API key, loop steps, CPU, call
// durations, fault windows) with no code in the spec bodies.
package harness
