package harness

import "time"

// Named timeouts. Every wait in a spec uses one of these, so a slow machine
// is a one-line change and failure messages can name the bound missed.
const (
	// SpecTimeout bounds one spec (Ginkgo SpecTimeout).
	SpecTimeout = 60 * time.Second
	// WaitTimeout bounds one Eventually or one PollUntil.
	WaitTimeout = 20 * time.Second
	// PollInterval is Eventually's polling interval.
	PollInterval = 10 * time.Millisecond
	// PollSlice is the timeout of one application Poll in a polling loop
	// (Java's poll(Duration.ofMillis(100))).
	PollSlice = 100 * time.Millisecond
	// QuietPoll is how long a spec polls to show that no further records
	// arrive (duplicates after the expected count).
	QuietPoll = 300 * time.Millisecond
	// CloseTimeout is the context deadline given to Close.
	CloseTimeout = 10 * time.Second
	// CloseBound is how long an orderly Close (one commit or none, one
	// leave heartbeat, local brokers) may take: a fifth of CloseTimeout,
	// "well inside" it.
	CloseBound = CloseTimeout / 5
	// FirstRecordBound is how long Subscribe -> first record may take:
	// FindCoordinator, join heartbeat, assignment, metadata, offsets,
	// first fetch, a few round trips and heartbeat intervals on local
	// brokers.
	FirstRecordBound = 5 * time.Second
	// DefaultHeartbeatInterval is the heartbeat interval clusters hand to
	// members unless a spec asks otherwise (Kafka's is 5 s; specs want a
	// heartbeat to fall due inside every fault window).
	DefaultHeartbeatInterval = 250 * time.Millisecond
	// DefaultShareLockDuration is the share record acquisition lock
	// clusters use unless a spec asks otherwise (Kafka's is 30 s).
	DefaultShareLockDuration = 2 * time.Second
)

// Words the report reads from every spec, whatever made it.
const (
	// KeyTimeline is the key a spec fails on when a step it needs could
	// not be carried out (an application call failed, a phase was never
	// reached): not an expectation about the subject's behaviour in the
	// Jira's shape.
	KeyTimeline = "timeline"
	// NotApplicableText is how the report shows a figure or an assertion
	// that needs a probe the subject lacks.
	NotApplicableText = "n/a for black-box subject"
)
