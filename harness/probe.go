package harness

import (
	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/reactor"
)

// Probe is what specs read of a subject beyond its application API: the
// execution's counters, decisions and application wakeups. Only our own
// consumers (reactor, baseline, null) have one; a black-box subject (the
// Java consumer, kgo) does not, and a spec or figure that needs it reports
// n/a for that subject (suite.RequireProbe, suite.NotApplicable) instead of
// passing.
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

// Innermost looks through the helpers' wrappers of c, a Consumer or a
// ShareConsumer (UnwrapConsumer, and its share consumer twin), and returns
// the consumer the subject built; anything else is returned as it is. The
// subjects' own probed consumers are not unwrapped: their probe is what
// callers look for.
func Innermost(c any) any {
	for {
		switch w := c.(type) {
		case UnwrapConsumer:
			c = w.Unwrap()
		case interface{ Unwrap() ShareConsumer }:
			c = w.Unwrap()
		default:
			return c
		}
	}
}

// ProbeOf returns c's probe (looking through the helpers' wrappers), or
// false for a black-box subject.
func ProbeOf(c Consumer) (ConsumerProbe, bool) {
	p, ok := Innermost(c).(ConsumerProbe)
	return p, ok
}

// ShareProbeOf returns c's probe (looking through the helpers' wrappers),
// or false for a black-box subject.
func ShareProbeOf(c ShareConsumer) (Probe, bool) {
	p, ok := Innermost(c).(Probe)
	return p, ok
}

// Diagnose is c's probe diagnosis for a failure message, or a line saying
// the subject has none. c is a Consumer or a ShareConsumer.
func Diagnose(c any) string {
	if p, ok := Innermost(c).(Probe); ok {
		return p.Diagnose()
	}
	return "(no diagnosis: " + NotApplicableText + ")"
}
