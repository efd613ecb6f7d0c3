// Package harness is what the kreactor specs stand on: targets (the broker a
// consumer runs against: kfake now, real Kafka later), subjects (the consumer
// implementation under test: the reactor consumer now, the baseline model
// later), probes over both (request counts and rates from the broker-side
// recorder, loop counters and decisions from the subject), label and figure
// helpers that follow the conformance report's conventions (package
// reports), delivery checkers, and the named timeouts and bounds specs use.
//
// Dependency direction (DESIGN.md): reactor <- managers <- consumer <-
// harness <- specs. fakebroker is used only here: specs see its types through
// the aliases in target.go.
//
// Which target and subject a suite runs is chosen with the environment
// variables KREACTOR_TARGET (default "kfake") and KREACTOR_SUBJECT (default
// "reactor"); see SelectedTarget and SelectedSubject.
//
// For the report's plots and provenance (package reports), every suite runs
// `BeforeSuite(harness.SuiteSetup)`, which records the run's provenance
// (provenance.go), and takes its target and subject from MustSelect, which
// wraps them so each spec's clusters and consumers are recorded on the spec's
// timeline (timeline.go: requests per API key, loop steps, CPU, call
// durations, fault windows) with no code in the spec bodies.
package harness
