// Package harness is the core the kreactor specs stand on: the interfaces
// and value types every target, subject and helper package shares, and
// nothing else.
//
//   - Targets (the broker a subject runs against): Target, TargetConfig,
//     Cluster, Fault, GroupInfo, the Recorder of the requests the brokers
//     saw (Request, RequestFilter, Window), the fault vocabulary (FaultKind,
//     FaultSpec, Observed) and the optional cluster abilities (LogTrimmer,
//     TopicCreator). Implementations: harness/targets/kfake and
//     harness/targets/kafka, chosen by name in harness/targets.
//   - Subjects (the consumer implementation under test): Subject,
//     ShareSubject, Consumer and ShareConsumer, the black-box application
//     API every client offers, and their optional abilities
//     (RebalanceReporter, Versioned). Implementations: harness/subjects/ours
//     (reactor, baseline, null), harness/subjects/java,
//     harness/subjects/kgo, chosen by name in harness/subjects.
//   - Probes: what only our consumers show (the decision trace, loop
//     counters, application wakeups), found by a type assertion through
//     the helpers' wrappers (ProbeOf, ShareProbeOf, Diagnose).
//   - The named timeouts and bounds specs and scenario files use.
//
// Helpers live in packages that import this one, as in the Kubernetes e2e
// framework: harness/suite (everything Ginkgo: the suite bootstrap, labels,
// figures, checks, fixtures, provenance, timelines, the leak check),
// harness/measure (CPU, heap, loop budgets, retry schedules),
// harness/consume (polling loops, delivery checks, call tracking). This
// package imports none of them and no Ginkgo (TestCoreImports, and the
// coreimports analyzer of harness/arch), so a command that uses a target or
// a subject links no test framework.
//
// Dependency direction (docs/design.md): reactor <- managers <- consumer <-
// harness <- harness/targets, harness/subjects, harness/measure,
// harness/consume <- harness/suite <- specs; wire (request records and frame
// parsing) is a leaf.
package harness
