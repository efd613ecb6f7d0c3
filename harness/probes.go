package harness

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/reactor"
)

// Probe is what specs read of a subject beyond its application API: the
// execution's counters, decisions and application wakeups. Only our own
// consumers (reactor, baseline) have one; a black-box subject (the Java
// consumer, kgo) does not, and a spec or figure that needs it reports n/a
// for that subject (RequireProbe, NotApplicable) instead of passing.
type Probe interface {
	// Stats are the loop's counters (steps, wakes, contract violations).
	Stats() reactor.Stats
	// AppWakeups counts every release of an application wait on the
	// engine (reactor.Stats.AppWakeups, the same count): once per call
	// when every wake carries a reason, many per call when the
	// application side spins or ping-pongs.
	AppWakeups() uint64
	// CommitReturns reports how many commit calls returned with a
	// completion, and how many returned before the decision containing
	// their completion was published (P4: early returns).
	CommitReturns() (returns, early uint64)
	// Decision is the latest published timing decision.
	Decision() *reactor.Decision
	// Trace returns the retained recent decisions, oldest first.
	Trace() []*reactor.Decision
	// Diagnose renders the counters, the latest decision and the few
	// before it, for failure messages.
	Diagnose() string
}

// ConsumerProbe is a regular consumer's Probe with its published snapshot.
type ConsumerProbe interface {
	Probe
	// Snapshot is the last published application-visible snapshot.
	Snapshot() *consumer.Snapshot
}

// NotApplicableText is how the report shows a figure or an assertion that
// needs a probe the subject lacks.
const NotApplicableText = "n/a for black-box subject"

// unwrap looks through Tracked and the timeline's wrappers (UnwrapConsumer).
func unwrap(c Consumer) Consumer {
	for {
		switch t := c.(type) {
		case *Tracked:
			c = t.Consumer
		case UnwrapConsumer:
			c = t.Unwrap()
		default:
			return c
		}
	}
}

// ProbeOf returns c's probe (looking through Tracked), or false for a
// black-box subject.
func ProbeOf(c Consumer) (ConsumerProbe, bool) {
	p, ok := unwrap(c).(ConsumerProbe)
	return p, ok
}

// unwrapShare looks through the timeline's share consumer wrapper.
func unwrapShare(c ShareConsumer) ShareConsumer {
	for {
		w, ok := c.(interface{ Unwrap() ShareConsumer })
		if !ok {
			return c
		}
		c = w.Unwrap()
	}
}

// unwrapSubject looks through the timeline's subject wrapper
// (RecordedSubject).
func unwrapSubject(s Subject) Subject {
	for {
		w, ok := s.(interface{ Unwrap() Subject })
		if !ok {
			return s
		}
		s = w.Unwrap()
	}
}

// ShareProbeOf returns c's probe (looking through the timeline's wrapper),
// or false for a black-box subject.
func ShareProbeOf(c ShareConsumer) (Probe, bool) {
	p, ok := unwrapShare(c).(Probe)
	return p, ok
}

// RequireProbe returns c's probe. For a subject without one it records in
// the running spec's report that what (the figures or assertions that need
// the probe) is n/a for the subject, and returns false: the caller skips
// only those, and still checks what any client shows.
func RequireProbe(c Consumer, what string) (ConsumerProbe, bool) {
	p, ok := ProbeOf(c)
	if !ok {
		NotApplicable(what, "needs the loop's counters and decisions")
	}
	return p, ok
}

// RequireShareProbe is RequireProbe for a share consumer.
func RequireShareProbe(c ShareConsumer, what string) (Probe, bool) {
	p, ok := ShareProbeOf(c)
	if !ok {
		NotApplicable(what, "needs the loop's counters and decisions")
	}
	return p, ok
}

// SkipWithoutProbe returns c's probe, or skips the running spec, saying
// that it is n/a for the black-box subject, when all it checks needs the
// probe. The report shows the spec as skipped with that reason, never as
// passed.
func SkipWithoutProbe(c Consumer, what string) ConsumerProbe {
	p, ok := RequireProbe(c, what)
	if !ok {
		ginkgo.Skip(NotApplicableText + ": " + what + " needs the loop's counters and decisions")
	}
	return p
}

// SkipWithoutShareProbe is SkipWithoutProbe for a share consumer.
func SkipWithoutShareProbe(c ShareConsumer, what string) Probe {
	p, ok := RequireShareProbe(c, what)
	if !ok {
		ginkgo.Skip(NotApplicableText + ": " + what + " needs the loop's counters and decisions")
	}
	return p
}

// NotApplicable records in the running spec's report that name (a figure
// or an assertion) is not measured on this subject, and why.
func NotApplicable(name, why string) {
	ginkgo.AddReportEntry(name, NotApplicableText+": "+why, ginkgo.Offset(1), ginkgo.ReportEntryVisibilityFailureOrVerbose)
}

// Diagnose is c's probe diagnosis for a failure message, or a line saying
// the subject has none. c is a Consumer or a ShareConsumer.
func Diagnose(c any) string {
	switch cc := c.(type) {
	case Consumer:
		c = unwrap(cc)
	case ShareConsumer:
		c = unwrapShare(cc)
	}
	if p, ok := c.(Probe); ok {
		return p.Diagnose()
	}
	return "(no diagnosis: " + NotApplicableText + ")"
}

// NoView is the view of the synthetic managers engine specs run on a
// subject's engine.
type NoView struct{}

// Engine is a subject's execution engine, as the engine specs drive it
// over synthetic managers: reactor.Loop or the baseline's loop.
type Engine interface {
	Start()
	Stop()
	Submit(ctx context.Context, name string, apply func(*reactor.Tx)) error
	Current() *reactor.Publication
	Stats() reactor.Stats
	Trace() []*reactor.Decision
}

// EngineSubject is implemented by subjects whose engine the specs can build
// over synthetic managers (ours). For other subjects the engine specs are
// n/a.
type EngineSubject interface {
	NewEngine(cfg reactor.Config[NoView]) (Engine, error)
}

// EngineOf returns subject's engine builder (looking through
// RecordedSubject), or skips the running spec as n/a for a subject without
// one.
func EngineOf(subject Subject) EngineSubject {
	es, ok := unwrapSubject(subject).(EngineSubject)
	if !ok {
		ginkgo.Skip(fmt.Sprintf("%s: subject %s has no engine the specs can build", NotApplicableText, subject.Name()))
	}
	return es
}

// probedConsumer is one of our regular consumers with its probe (its
// Diagnostics).
type probedConsumer struct {
	Consumer
	consumer.Diagnostics
}

// probedShareConsumer is one of our share consumers with its probe.
type probedShareConsumer struct {
	ShareConsumer
	consumer.ShareDiagnostics
}

// Underlying returns the consumer itself, for callers that look for an
// ability beyond the application API (a scenario's seek). It is not Unwrap:
// the probe stays visible to ProbeOf.
func (p *probedConsumer) Underlying() any { return p.Consumer }

// Underlying returns the share consumer itself.
func (p *probedShareConsumer) Underlying() any { return p.ShareConsumer }
