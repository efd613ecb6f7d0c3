// Package harness is what the kreactor specs stand on: the Target, Cluster,
// Fault and Recorder interfaces every target implements (the kfake and
// kafka targets live in harness/targets/kfake and harness/targets/kafka;
// harness/targets chooses one by name), subjects (the consumer implementation under
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
// Dependency direction (docs/design.md): reactor <- managers <- consumer <-
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
