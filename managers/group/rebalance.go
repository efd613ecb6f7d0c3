package group

// Reconciliation of a new target assignment, in Java's order
// (AbstractMembershipManager.maybeReconcile and revokeAndAssign,
// ConsumerMembershipManager.signalReconciliationStarted,
// CommitRequestManager.maybeAutoCommitSyncBeforeRevocation, apache/kafka
// 4.x): the auto-commit of every consumed position (deadline: the rebalance
// timeout, max.poll.interval.ms), then onPartitionsRevoked for the revoked
// partitions (only if there are any), then the new assignment takes effect
// and onPartitionsAssigned runs for the added partitions (always, even
// empty), and only then is the assignment acknowledged. A failed commit does
// not stop the reconciliation (Java logs it and proceeds). The revoked
// partitions stop fetching and their buffered records are dropped when the
// reconciliation starts, before the commit: Java marks them pending
// revocation only after the commit, which leaves a window in which a record
// returned to the application moves its position past what was committed;
// here no record of a partition being revoked is returned once its
// revocation began.
//
// Without RebalanceHooks (the baseline) reconciliation completes at once,
// as today's reference did: no commit, no callback.

import (
	"slices"
	"time"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// ListenerMethod names a rebalance listener method (Java's
// ConsumerRebalanceListenerMethodName).
type ListenerMethod uint8

// The listener methods, in Java's terms.
const (
	OnPartitionsRevoked ListenerMethod = 1 + iota
	OnPartitionsAssigned
	OnPartitionsLost
)

func (m ListenerMethod) String() string {
	switch m {
	case OnPartitionsRevoked:
		return "onPartitionsRevoked"
	case OnPartitionsAssigned:
		return "onPartitionsAssigned"
	case OnPartitionsLost:
		return "onPartitionsLost"
	}
	return "invalid"
}

// RebalanceHooks connect reconciliation to the managers and the application
// (engine goroutine). Every field may be nil.
type RebalanceHooks struct {
	// Revoking is called once when a reconciliation that revokes tps
	// starts: the fetch manager stops fetching them and drops their
	// buffered records (Fetch.Revoke).
	Revoking func(tps []managers.TopicPartition)
	// Commit queues the auto-commit before revocation (every consumed
	// position, by deadline) and calls done once it completes, with its
	// error; it reports false when there is nothing to commit (auto-commit
	// off, nothing consumed), and done is then never called.
	Commit func(tx *reactor.Tx, deadline time.Time, done func(tx *reactor.Tx, err error)) bool
	// Listener runs method with tps on the application goroutine inside
	// Poll and calls done on the engine once it returned; it reports false
	// when no listener is registered, and done is then never called.
	Listener func(tx *reactor.Tx, method ListenerMethod, tps []managers.TopicPartition, done func(tx *reactor.Tx)) bool
}

// reconcilePhase is where a reconciliation waits.
type reconcilePhase uint8

const (
	phaseCommit   reconcilePhase = 1 + iota // the auto-commit before revocation
	phaseRevoked                            // onPartitionsRevoked
	phaseAssigned                           // onPartitionsAssigned
)

// reconciliation is one target assignment being adopted.
type reconciliation struct {
	target   map[[16]byte][]int32
	tps      []managers.TopicPartition // target, named, sorted
	revoked  []managers.TopicPartition // owned - target
	added    []managers.TopicPartition // target - owned
	phase    reconcilePhase
	commitBy time.Time // the commit before revocation's deadline
}

// UseRebalanceHooks makes reconciliation go through h (commit before
// revocation, listener callbacks). Call it before the manager is first
// polled.
func (m *Membership) UseRebalanceHooks(h RebalanceHooks) { m.hooks = &h }

// Reconciling reports whether a reconciliation waits for a commit or a
// listener callback.
func (m *Membership) Reconciling() bool { return m.rec != nil }

// reconcile adopts the target assignment once every topic id in it has a
// name in metadata; until then the target waits (the fetch path cannot use
// a partition it cannot name). With hooks it starts a reconciliation that
// completes in later rounds.
func (m *Membership) reconcile(tx *reactor.Tx, meta *managers.Metadata) {
	tps, ok := managers.NamePartitions(tx, meta, m.target)
	if !ok {
		return
	}
	target := m.target
	m.target = nil
	if m.hooks == nil {
		m.setOwned(target, tps)
		m.sendOwned = true
		return
	}
	r := &reconciliation{target: target, tps: tps, phase: phaseCommit}
	r.revoked = minus(m.ownedTPs, tps)
	r.added = minus(tps, m.ownedTPs)
	m.rec = r
	if len(r.revoked) > 0 && m.hooks.Revoking != nil {
		m.hooks.Revoking(r.revoked)
	}
	deadline := tx.Now.Add(m.rebalanceTimeout)
	r.commitBy = deadline
	if m.hooks.Commit != nil && m.hooks.Commit(tx, deadline, func(tx *reactor.Tx, _ error) { m.advance(tx, r, phaseCommit) }) {
		return
	}
	m.advance(tx, r, phaseCommit)
}

// advance moves r past phase done (its commit or callback completed), if r
// is still the reconciliation under way and waits there (an aborted one is
// ignored, as Java's maybeAbortReconciliation).
func (m *Membership) advance(tx *reactor.Tx, r *reconciliation, done reconcilePhase) {
	if m.rec != r || r.phase != done {
		return
	}
	switch done {
	case phaseCommit:
		r.phase = phaseRevoked
		if len(r.revoked) > 0 && m.listener(tx, OnPartitionsRevoked, r.revoked, func(tx *reactor.Tx) { m.advance(tx, r, phaseRevoked) }) {
			return
		}
		fallthrough
	case phaseRevoked:
		r.phase = phaseAssigned
		m.setOwned(r.target, r.tps)
		if m.listener(tx, OnPartitionsAssigned, r.added, func(tx *reactor.Tx) { m.advance(tx, r, phaseAssigned) }) {
			return
		}
		fallthrough
	case phaseAssigned:
		m.rec = nil
		m.sendOwned = true
	}
}

func (m *Membership) listener(tx *reactor.Tx, method ListenerMethod, tps []managers.TopicPartition, done func(*reactor.Tx)) bool {
	return m.hooks != nil && m.hooks.Listener != nil && m.hooks.Listener(tx, method, slices.Clone(tps), done)
}

// abandon ends a reconciliation under way (the member was fenced, became
// fatal or let max.poll.interval.ms pass) and owes onPartitionsLost for the
// partitions it owned (Java's transitionToFenced and transitionToStale:
// invokeOnPartitionsLostCallback).
func (m *Membership) abandon() {
	m.rec = nil
	if m.hooks != nil && len(m.ownedTPs) > 0 {
		m.lost = append(m.lost, m.ownedTPs...)
	}
}

// releaseLost hands the partitions given up to onPartitionsLost, without
// waiting for it: the member has already given them up.
func (m *Membership) releaseLost(tx *reactor.Tx) {
	if len(m.lost) == 0 {
		return
	}
	lost := m.lost
	m.lost = nil
	slices.SortFunc(lost, managers.CompareTopicPartition)
	m.listener(tx, OnPartitionsLost, slices.Compact(lost), func(*reactor.Tx) {})
}

// reconcileWait is Poll's answer while a reconciliation waits: heartbeats
// go on at their interval (Java heartbeats while RECONCILING), and the
// commit's answer (by its deadline) or the listener's return is an input.
func (m *Membership) reconcileWait() reactor.Result {
	if m.rec.phase == phaseCommit {
		return reactor.Await(reactor.InputResponse, "reconciling: auto-commit before revocation").Until(m.rec.commitBy)
	}
	return reactor.Await(reactor.InputApplication, "reconciling: "+m.rec.phaseMethod().String()+" running")
}

func (r *reconciliation) phaseMethod() ListenerMethod {
	if r.phase == phaseRevoked {
		return OnPartitionsRevoked
	}
	return OnPartitionsAssigned
}

// newTarget reports whether target, received in a heartbeat answer, is a
// change to reconcile: not the assignment owned, nor the one being
// reconciled (the coordinator repeats it until acknowledged), unless
// another target is already waiting.
func (m *Membership) newTarget(target map[[16]byte][]int32) bool {
	if m.target != nil {
		return true
	}
	if m.rec != nil {
		return !sameAssignment(target, m.rec.target)
	}
	return !sameAssignment(target, m.owned)
}

// minus returns the partitions of a not in b (both sorted).
func minus(a, b []managers.TopicPartition) []managers.TopicPartition {
	var out []managers.TopicPartition
	for _, tp := range a {
		if _, found := slices.BinarySearchFunc(b, tp, managers.CompareTopicPartition); !found {
			out = append(out, tp)
		}
	}
	return out
}
