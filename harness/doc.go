// Package harness is what the kreactor specs stand on: targets (the broker a
// consumer runs against: kfake in process, or real Apache Kafka in Docker
// behind the recording proxy), subjects (the consumer implementation under
// test), label and figure helpers that follow the conformance report's
// conventions (package reports), delivery checkers, and the named timeouts
// and bounds specs use.
//
// A subject's Consumer and ShareConsumer are the black-box application API
// (subscribe, assign, poll, commit, wakeup, pause/resume, close; records and
// errors), so any client can be a subject. What only our consumers show (the
// decision trace, loop counters, application wakeups, commit returns) is an
// optional Probe, found by a type assertion (ProbeOf, RequireProbe); a spec
// or figure that needs a probe the subject lacks records "n/a for black-box
// subject" in its report entry (NotApplicable) or skips with that reason
// (SkipWithoutProbe), never passing silently. Our subjects are Reactor and
// Baseline (subject_ours.go); their engines can also be built over synthetic
// managers (EngineSubject).
//
// Dependency direction (DESIGN.md): reactor <- managers <- consumer <-
// harness <- specs. fakebroker is used only here: specs see its types through
// the aliases in target.go.
//
// Which target and subject a suite runs is chosen with the environment
// variables KREACTOR_TARGET (default "kfake") and KREACTOR_SUBJECT (default
// "reactor"); see SelectedTarget and SelectedSubject.
package harness
