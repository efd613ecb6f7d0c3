package suite

import (
	"fmt"

	"github.com/onsi/ginkgo/v2"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/subjects"
	"github.com/kreactor/kreactor/harness/subjects/ours"
	"github.com/kreactor/kreactor/reactor"
	"github.com/kreactor/kreactor/reports"
)

// RequireProbe returns c's probe (harness.ProbeOf). For a subject without
// one it records in the running spec's report that what (the figures or
// assertions that need the probe) is n/a for the subject, and returns
// false: the caller skips only those, and still checks what any client
// shows.
func RequireProbe(c harness.Consumer, what string) (harness.ConsumerProbe, bool) {
	p, ok := harness.ProbeOf(c)
	if !ok {
		NotApplicable(what, "needs the loop's counters and decisions")
	}
	return p, ok
}

// RequireShareProbe is RequireProbe for a share consumer.
func RequireShareProbe(c harness.ShareConsumer, what string) (harness.Probe, bool) {
	p, ok := harness.ShareProbeOf(c)
	if !ok {
		NotApplicable(what, "needs the loop's counters and decisions")
	}
	return p, ok
}

// SkipWithoutProbe returns c's probe, or skips the running spec, saying
// that it is n/a for the black-box subject, when all it checks needs the
// probe. The report shows the spec as skipped with that reason, never as
// passed.
func SkipWithoutProbe(c harness.Consumer, what string) harness.ConsumerProbe {
	p, ok := RequireProbe(c, what)
	if !ok {
		ginkgo.Skip(harness.NotApplicableText + ": " + what + " needs the loop's counters and decisions")
	}
	return p
}

// SkipWithoutShareProbe is SkipWithoutProbe for a share consumer.
func SkipWithoutShareProbe(c harness.ShareConsumer, what string) harness.Probe {
	p, ok := RequireShareProbe(c, what)
	if !ok {
		ginkgo.Skip(harness.NotApplicableText + ": " + what + " needs the loop's counters and decisions")
	}
	return p
}

// NotApplicable records in the running spec's report that name (a figure
// or an assertion) is not measured on this subject, and why.
func NotApplicable(name, why string) {
	ginkgo.AddReportEntry(name, harness.NotApplicableText+": "+why, ginkgo.Offset(1), ginkgo.ReportEntryVisibilityFailureOrVerbose)
}

// EngineOf returns subject's engine builder (looking through
// RecordedSubject), or skips the running spec as n/a for a subject without
// one. The reactor's engines are validated against the protocol's model
// when the spec ends, as its consumers are.
func EngineOf(subject harness.Subject) ours.EngineSubject {
	es, ok := unwrapSubject(subject).(ours.EngineSubject)
	if !ok {
		ginkgo.Skip(fmt.Sprintf("%s: subject %s has no engine the specs can build", harness.NotApplicableText, subject.Name()))
	}
	return validatedEngines{es}
}

// validatedEngines validates the trace of every reactor engine it builds.
type validatedEngines struct{ ours.EngineSubject }

func (v validatedEngines) NewEngine(cfg reactor.Config[ours.NoView]) (ours.Engine, error) {
	e, err := v.EngineSubject.NewEngine(cfg)
	if err == nil {
		validateAtSpecEnd(e)
	}
	return e, err
}

// validateAtSpecEnd registers, when a spec is running and v is something
// the reactor subject built (ours.TraceOf), a cleanup that validates its
// trace once the spec's own cleanups ran (they are registered later, so they
// run first: the consumer is closed by then) and fails the spec on a
// violation. Outside a spec (package tests, explore) it does nothing: those
// callers validate themselves.
func validateAtSpecEnd(v any) {
	t, ok := ours.TraceOf(v)
	if !ok || ginkgo.CurrentSpecReport().LeafNodeText == "" {
		return
	}
	ginkgo.DeferCleanup(func() {
		if err := ours.ValidateTrace(t, ginkgo.CurrentSpecReport().FullText()); err != nil {
			ginkgo.Fail(fmt.Sprintf("trace validation (model/reactor.pml's rules) on the reactor's recorded trace: %v", err))
		}
	})
}

// noteHarnessError records on the running spec that err, a failure of the
// harness rather than of the subject (subjects.IsHarnessError: the java
// driver crashed, hung or rejected a command, or Java threw because the
// harness broke the API's contract), happened: the report's check fails on
// it for every subject, the real clients included
// (reports.EntryHarnessError). Other errors, and calls outside a running
// spec, record nothing. It returns err.
func noteHarnessError(err error) error {
	if err == nil || !inSpec() || !subjects.IsHarnessError(err) {
		return err
	}
	ginkgo.AddReportEntry(reports.EntryHarnessError, []string{err.Error()}, ginkgo.ReportEntryVisibilityNever)
	return err
}
