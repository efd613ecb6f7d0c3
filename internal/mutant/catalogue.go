package mutant

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kreactor/kreactor/catalogue"
)

// Mutant is one deliberate bug of the reactor path.
type Mutant struct {
	// Name identifies the mutant in the kill matrix.
	Name string
	// Shape is the failure shape the bug has (catalogue.Shapes): a mutant
	// of a seed failure shape must be killed by a regression spec or
	// scenario file covering an item of that shape.
	Shape catalogue.Shape
	// Points are the mutation points it switches on (usually one, named
	// like the mutant; several make a higher-order mutant).
	Points []string
	// Where is the file holding the (first) mutation point.
	Where string
	// Description says what the bug does, in the words of the issue or of
	// the Jira whose shape it has.
	Description string
	// Source says where the bug comes from: "seed" for the twelve the
	// project started with, "added" for later ones.
	Source string
}

// Mutants is the catalogue, in kill-matrix row order.
var Mutants = []Mutant{
	{Name: "effects-before-publication", Shape: catalogue.ShapePublicationRace, Points: []string{"effects-before-publication"}, Where: "reactor/loop.go", Source: "seed",
		Description: "the loop runs a step's effects (commit releases, Poll answers) before it publishes the decision that includes them (invariant 4)"},
	{Name: "waitfor-check-before-take", Shape: catalogue.ShapePublicationRace, Points: []string{"waitfor-check-before-take"}, Where: "reactor/engine.go", Source: "added",
		Description: "WaitFor evaluates its condition on the current publication and takes the channel afterwards: a publication between the two is missed (invariant 5's lost wakeup)"},
	{Name: "effects-held-a-step", Shape: catalogue.ShapePublicationRace, Points: []string{"effects-held-a-step"}, Where: "reactor/loop.go", Source: "added",
		Description: "one step in 64 keeps its effects until the loop's next step: a call whose release was published stays blocked until a timer or an unrelated answer comes (an intermittent lost wakeup: invariant 5 broken one time in 64)"},
	{Name: "effects-at-once", Shape: catalogue.ShapePublicationRace, Points: []string{"effects-at-once"}, Where: "reactor/core.go", Source: "added",
		Description: "publication after effects: the core runs each effect as soon as it is queued, while observations are still being applied (today's futures)"},
	{Name: "retry-at-now-coordinator-unknown", Shape: catalogue.ShapeBusyLoop, Points: []string{"retry-at-now-coordinator-unknown"}, Where: "managers/group/membership.go", Source: "seed",
		Description: "membership answers RetryAt(now) instead of Await(coordinator) while the coordinator is unknown (KAFKA-20253's zero wait)"},
	{Name: "past-deadline-uncounted", Shape: catalogue.ShapeBusyLoop, Points: []string{"retry-at-now-coordinator-unknown", "past-deadline-uncounted"}, Where: "reactor/stats.go", Source: "seed",
		Description: "the loop silently drops past deadlines: with membership answering RetryAt(now) while the coordinator is unknown, the engine no longer counts the violation (Stats.PastDeadline stays 0)"},
	{Name: "unsubscribed-heartbeat-due", Shape: catalogue.ShapeBusyLoop, Points: []string{"unsubscribed-heartbeat-due"}, Where: "managers/group/membership.go", Source: "seed",
		Description: "an unsubscribed member (group id, manual assignment) reports its heartbeat timer, which never started, instead of Idle: a zero wait (KAFKA-20426)"},
	{Name: "coordinator-unknown-10hz-wake", Shape: catalogue.ShapeBusyLoop, Points: []string{"coordinator-unknown-10hz-wake"}, Where: "managers/group/membership.go", Source: "seed",
		Description: "membership awaits the coordinator but asks to be polled again every 100 ms for nothing: a useless 10 Hz wake while the coordinator is unknown"},
	{Name: "fetch-in-flight-1ms-wake", Shape: catalogue.ShapeAmbiguousEmptyResult, Points: []string{"fetch-in-flight-1ms-wake"}, Where: "managers/group/fetch.go", Source: "seed",
		Description: "a Fetch in flight awaits its response with a 1 ms deadline: the loop wakes about a thousand times a second for nothing (the mutant that woke 2,591 times in 3 s)"},
	{Name: "poll-returns-at-once", Shape: catalogue.ShapeAmbiguousEmptyResult, Points: []string{"poll-returns-at-once"}, Where: "consumer/application.go", Source: "seed",
		Description: "Poll is answered at once, empty, when nothing is fetchable: the application polls again and again (KAFKA-20854's ping-pong on the reactor)"},
	{Name: "backoff-never-doubles", Shape: catalogue.ShapeBusyLoop, Points: []string{"backoff-never-doubles"}, Where: "internal/client/config.go", Source: "seed",
		Description: "every retry waits retry.backoff.ms: the backoff never grows toward retry.backoff.max.ms"},
	{Name: "transport-never-sends", Shape: catalogue.ShapeEndToEnd, Points: []string{"transport-never-sends"}, Where: "internal/client/transport.go", Source: "seed",
		Description: "the transport accepts every request and never sends or completes it (the null subject as a bug of the reactor path)"},
	{Name: "heartbeat-in-flight-zero-wait", Shape: catalogue.ShapeBusyLoop, Points: []string{"heartbeat-in-flight-zero-wait"}, Where: "managers/group/membership.go", Source: "added",
		Description: "a heartbeat in flight past its interval reports the expired interval instead of awaiting the response (KAFKA-21031)"},
	{Name: "auto-commit-timer-stale", Shape: catalogue.ShapeBusyLoop, Points: []string{"auto-commit-timer-stale"}, Where: "managers/group/commit.go", Source: "added",
		Description: "an auto-commit due while the coordinator is unknown reports its expired timer, reset only when a commit is sent (KAFKA-20970)"},
	{Name: "zero-backoff-accepted", Shape: catalogue.ShapeBusyLoop, Points: []string{"zero-backoff-accepted"}, Where: "consumer/config/validate.go", Source: "added",
		Description: "the reactor accepts retry.backoff.ms=0: a failing Fetch is retried with no wait (KAFKA-21049)"},
	{Name: "close-skips-leave", Shape: catalogue.ShapeLifecycle, Points: []string{"close-skips-leave"}, Where: "internal/client/close.go", Source: "added",
		Description: "close skips the leave heartbeat and reports the member gone: the group keeps it until its session times out"},
	{Name: "close-keeps-discovery", Shape: catalogue.ShapeLifecycle, Points: []string{"close-keeps-discovery"}, Where: "internal/client/group.go", Source: "added",
		Description: "coordinator discovery keeps running while closing whether or not anything needs the coordinator, and close waits for it (KAFKA-18569: FindCoordinator after the leave, close takes its whole timeout)"},
	{Name: "close-drops-pending-commits", Shape: catalogue.ShapeLifecycle, Points: []string{"close-drops-pending-commits"}, Where: "internal/client/close.go", Source: "added",
		Description: "at the close deadline, pending commits are dropped instead of failed: their callbacks never run (KAFKA-19357)"},
	{Name: "reconcile-at-once", Shape: catalogue.ShapeEndToEnd, Points: []string{"reconcile-at-once"}, Where: "consumer/listener.go", Source: "added",
		Description: "a new assignment takes effect at once: no auto-commit before revocation, revoked partitions' buffered records still returned, no rebalance listener call (two members deliver the same records)"},
	{Name: "static-leave-dynamic", Shape: catalogue.ShapeLifecycle, Points: []string{"static-leave-dynamic"}, Where: "managers/group/static.go", Source: "added",
		Description: "a static member (group.instance.id) leaves with member epoch -1 instead of -2: the coordinator hands its partitions to the others at once and the member joining again with its instance id gets others"},
	{Name: "fetch-stale-answer-applied", Shape: catalogue.ShapePublicationRace, Points: []string{"fetch-stale-answer-applied"}, Where: "managers/group/fetch.go", Source: "added",
		Description: "the fetch manager applies a Fetch answer for a partition reassigned or repositioned since the request was built: the staleness guard on generation and position is gone (invariant 6, P3)"},
	{Name: "close-leave-before-commit", Shape: catalogue.ShapeLifecycle, Points: []string{"close-leave-before-commit"}, Where: "internal/client/close.go", Source: "added",
		Description: "close starts the leave at once, failing the final commit and the pending ones instead of letting them finish first (invariant 7: final commit precedes the leave)"},
	{Name: "metadata-error-not-surfaced", Shape: catalogue.ShapePublicationRace, Points: []string{"metadata-error-not-surfaced"}, Where: "consumer/application.go", Source: "added",
		Description: "a metadata error is checked only when a Poll starts: one that arrives while Poll waits does not release it (KAFKA-20397's lost wakeup)"},
}

// Lookup returns the mutant named name.
func Lookup(name string) (Mutant, bool) {
	i := slices.IndexFunc(Mutants, func(m Mutant) bool { return m.Name == name })
	if i < 0 {
		return Mutant{}, false
	}
	return Mutants[i], true
}

// Points lists every mutation point of the catalogue, sorted.
func Points() []string {
	var out []string
	for _, m := range Mutants {
		for _, p := range m.Points {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return out
}

func knownPoint(p string) bool { return slices.Contains(Points(), p) }

// EnvValue is the $KREACTOR_MUTANT value that switches m on.
func (m Mutant) EnvValue() string { return strings.Join(m.Points, "+") }

// Validate checks the catalogue: unique names, a known shape, at least one
// point, a description. Errors name the mutant.
func Validate() error {
	seen := map[string]bool{}
	for _, m := range Mutants {
		switch {
		case m.Name == "" || seen[m.Name]:
			return fmt.Errorf("mutant %q: empty or duplicate name", m.Name)
		case !slices.Contains(catalogue.Shapes, m.Shape):
			return fmt.Errorf("mutant %q: unknown shape %q", m.Name, m.Shape)
		case len(m.Points) == 0 || m.Description == "" || m.Where == "":
			return fmt.Errorf("mutant %q: needs points, a description and where", m.Name)
		}
		seen[m.Name] = true
	}
	return nil
}
