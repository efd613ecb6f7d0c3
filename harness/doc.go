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
package harness
