// Package suite holds everything of the harness that speaks Ginkgo: the one
// bootstrap every spec suite calls (Run, Selected), the labels and figures
// the conformance report reads (Spec, Figure, Note, BoundedFigure, Alone,
// Signals, Liveness, Evidence, Checks, AttachCPU), fixtures that tie
// clusters and consumers to a spec's cleanup (StartCluster, NewConsumer,
// NewShareConsumer, ConsumerConfig, UniqueName), probe skips
// (RequireProbe, SkipWithoutProbe, NotApplicable, EngineOf), the run's
// provenance (Setup, RecordProvenance), each spec's timeline (Recorded,
// RecordedSubject: requests per API key, loop steps, CPU, call durations and
// fault windows, attached as one reports.EntrySeries entry), and the leak
// check after the suite (LeakedGoroutines).
//
// A suite is:
//
//	func TestE2E(t *testing.T) { suite.Run(t, "kreactor end-to-end scenarios") }
//
//	var target, subject = suite.Selected()
//
// with the target and the subject chosen by KREACTOR_TARGET and
// KREACTOR_SUBJECT (packages harness/targets and harness/subjects). Inside a
// spec the recording wrappers also note the java driver's harness errors on
// the report and validate the reactor's traces against the protocol's model
// when the spec ends. Nothing outside the specs imports this package: the
// core (package harness) and the CLI link no Ginkgo.
package suite
