package consumer

import "github.com/kreactor/kreactor/internal/client"

// Diagnostics is a Consumer's read-only view of its own execution, for
// diagnosis and for the conformance suite's probes (KIP-1371 P6,
// "diagnosable"; in the role of Java's metrics()). Consumer.Diagnostics
// returns one; its methods read the current value when called and are safe
// from any goroutine:
//
//   - Stats() reactor.Stats: loop steps, inbox and timer wakes, spurious
//     wakeups, Ready results without a request, and the other counters;
//   - Decision() *reactor.Decision: the latest published timing decision,
//     with each manager's result and reason;
//   - Trace() []*reactor.Decision: a copy of the retained recent decisions,
//     oldest first (at most 256);
//   - AppWakeups() uint64: how many times an application call woke from a
//     blocking wait;
//   - CommitReturns() (returns, early uint64): commit calls that returned
//     with a completion, and those released before the decision containing
//     the completion was published (P4: the reactor keeps it at zero);
//   - Snapshot() *Snapshot: the latest published application-visible state;
//   - Diagnose() string: the counters and the last few decisions rendered,
//     one line per manager saying what it awaits or when it retries.
type Diagnostics = client.Diagnostics[*Snapshot]

// ShareDiagnostics is Diagnostics for a ShareConsumer: the same methods,
// with Snapshot() *ShareSnapshot.
type ShareDiagnostics = client.Diagnostics[*ShareSnapshot]

// Snapshot is the application-visible state a Consumer publishes with every
// decision (docs/design.md "snapshot"): Assignment (owned partitions, sorted),
// MemberState and MemberEpoch, Buffered (records buffered for the
// application), PendingCommits (queued or in flight), InFlight (requests
// sent and not yet completed), Closing (Close started) and Closed (the loop
// stopped).
type Snapshot = client.Snapshot

// ShareSnapshot is the application-visible state a ShareConsumer publishes:
// Assignment, MemberState, MemberEpoch, Buffered, Unacknowledged (records
// delivered and not yet acknowledged), PendingCommits, InFlight, Closing
// and Closed.
type ShareSnapshot = client.ShareSnapshot
