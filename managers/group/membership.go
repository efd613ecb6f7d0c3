package group

// Heartbeat and membership (KIP-848).
//
// Kafka API: ConsumerGroupHeartbeat (key 68) v0-v1: join with member epoch 0
// and an empty owned-partitions list, heartbeat at the interval the
// coordinator returns (HeartbeatIntervalMs), acknowledge a reconciled
// assignment by sending the owned partitions, leave with member epoch -1.
// Answers: KAFKA-20426 (an unsubscribed member is Idle, never "heartbeat due
// at 0"), KAFKA-21031 (a heartbeat in flight after its timer expired is an
// Await(response), not a zero wait), KAFKA-20253 (coordinator unknown is an
// Await(coordinator)). Java's contract (CONTRACT-*): the leave heartbeat goes even while another
// heartbeat is in flight and during a heartbeat backoff (Java's
// shouldSendLeaveHeartbeatNow and pollOnClose), and max.poll.interval.ms is
// enforced: without Poll activity for that long the member leaves the group
// (epoch -1), stops heartbeating (MemberStale) and joins again at the next
// Poll (Java's AbstractHeartbeatRequestManager.poll and resetPollTimer).

import (
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/internal/mutant"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// member is the member as callers of Membership see it (its identity,
// state and errors, OnPoll), under an unexported name: embedded, its
// methods are Membership's.
type member = managers.Member

// Membership owns the member id, member epoch, subscription and reconciled
// assignment of one KIP-848 member: the lifecycle it shares with the share
// consumer's member is a managers.Lifecycle, what is KIP-848's (the
// rebalance timeout, static membership, the owned partitions and their
// reconciliation) is here. Loop goroutine only.
type Membership struct {
	member
	life             *managers.Lifecycle
	instanceID       string // group.instance.id, "" for a dynamic member (static.go)
	rebalanceTimeout time.Duration

	owned        map[[16]byte][]int32 // reconciled assignment by topic id
	ownedTPs     []managers.TopicPartition
	ownedVersion uint64
	target       map[[16]byte][]int32      // received, not yet reconciled (topic names unknown)
	sendOwned    bool                      // acknowledge the owned partitions in the next heartbeat
	hooks        *RebalanceHooks           // nil: reconciliation completes at once (rebalance.go)
	rec          *reconciliation           // the reconciliation under way, if any
	lost         []managers.TopicPartition // owned partitions given up (fenced, expired): onPartitionsLost owed
}

// NewMembership returns the membership manager of group. maxPollInterval
// is max.poll.interval.ms: the rebalance timeout sent when joining
// (RebalanceTimeoutMs, as Java sends it) and the poll timer. coord is told
// when the coordinator must be rediscovered.
func NewMembership(group string, maxPollInterval time.Duration, backoff managers.Backoff, coord *managers.Coordinator) *Membership {
	life := managers.NewLifecycle(group, kmsg.ConsumerGroupHeartbeat, maxPollInterval, backoff, coord)
	return &Membership{
		member:           life.Member(),
		life:             life,
		rebalanceTimeout: maxPollInterval,
		owned:            map[[16]byte][]int32{},
	}
}

// Name is "membership".
func (m *Membership) Name() string { return "membership" }

// Owned returns the reconciled assignment (sorted) and its version.
func (m *Membership) Owned() ([]managers.TopicPartition, uint64) { return m.ownedTPs, m.ownedVersion }

// InGroup reports whether the member takes part in the group (joining,
// stable or leaving).
func (m *Membership) InGroup() bool { return m.NeedsCoordinator() }

// Subscribe sets the subscription and starts joining (or updates the
// subscription of a joined member). An empty list unsubscribes: the member
// leaves the group. Subscribing while leaving joins again once the leave
// is answered.
func (m *Membership) Subscribe(topics []string) {
	if len(topics) == 0 {
		m.life.Unsubscribe()
		m.Leave()
		return
	}
	m.life.Subscribe(topics)
	m.life.JoinAfterLeave()
}

// Leave starts leaving the group (epoch -1, or -2 for a static member). A
// member that never joined, or left already because of
// max.poll.interval.ms, is left at once.
func (m *Membership) Leave() {
	m.rec = nil
	m.life.Leave()
	m.setOwned(map[[16]byte][]int32{}, nil)
}

// giveUp drops the assignment after the member was fenced or let
// max.poll.interval.ms pass: the reconciliation under way ends
// (onPartitionsLost owed) and nothing is left to acknowledge.
func (m *Membership) giveUp() {
	m.abandon()
	m.setOwned(map[[16]byte][]int32{}, nil)
	m.target, m.sendOwned = nil, false
}

// Poll answers what membership can do now.
func (m *Membership) Poll(tx *reactor.Tx, v View) reactor.Result {
	m.life.RaiseCoordinatorFailure(tx)
	m.releaseLost(tx)
	if m.life.Tick(tx.Now, v.Polling) {
		m.giveUp()
	}
	if m.State() == managers.MemberUnsubscribed && mutant.On("unsubscribed-heartbeat-due") {
		return reactor.RetryAt(m.life.NextBeat(), "heartbeat interval")
	}
	if r, out := m.life.PollOut(v.CoordinatorKnown, func(reason string) reactor.Result { return m.send(tx, v, reason) }); out {
		return r
	}
	if !v.CoordinatorKnown && !m.life.InFlight() {
		// The poll timer is checked when the coordinator is found (an
		// input): without one there is no leave to send (Java's
		// heartbeat manager skips the check too).
		switch {
		case mutant.On("retry-at-now-coordinator-unknown"):
			return reactor.RetryAt(tx.Now, "coordinator unknown")
		case mutant.On("coordinator-unknown-10hz-wake"):
			return reactor.Await(reactor.InputCoordinator, "coordinator unknown").Until(tx.Now.Add(100 * time.Millisecond))
		}
		return reactor.Await(reactor.InputCoordinator, "coordinator unknown")
	}
	return m.life.Bound(m.pollMember(tx, v))
}

// pollMember is Poll for a joining or stable member.
func (m *Membership) pollMember(tx *reactor.Tx, v View) reactor.Result {
	if next := m.life.NextBeat(); m.life.InFlight() && mutant.On("heartbeat-in-flight-zero-wait") && !next.IsZero() && !tx.Now.Before(next) {
		return reactor.RetryAt(next, "heartbeat interval")
	}
	if r, blocked := m.life.Blocked(tx.Now, v.CoordinatorKnown); blocked {
		return r
	}
	if m.target != nil && m.rec == nil {
		m.reconcile(tx, v.Meta)
	}
	reason, wait := m.life.Due(tx.Now, m.sendOwned)
	switch {
	case reason != "":
		return m.send(tx, v, reason)
	case m.rec != nil:
		return reactor.Combine(wait, m.reconcileWait())
	}
	return wait
}

func (m *Membership) send(tx *reactor.Tx, v View, reason string) reactor.Result {
	req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	req.Group, req.MemberID, req.MemberEpoch, req.SubscribedTopicNames = m.life.Heartbeat()
	req.RebalanceTimeoutMillis = -1
	req.InstanceID = m.instanceIDField()
	switch m.State() {
	case managers.MemberLeaving:
		req.MemberEpoch = m.leavingEpoch()
	case managers.MemberJoining:
		req.RebalanceTimeoutMillis = int32(m.rebalanceTimeout.Milliseconds())
		req.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{} // must be empty, not null, on join
	default:
		if m.sendOwned {
			req.Topics = m.ownedTopics()
		}
	}
	sentEpoch, sentState, sentOwned, sentSubs := req.MemberEpoch, m.State(), req.Topics != nil, req.SubscribedTopicNames != nil
	node := v.Coordinator.Node
	call := &managers.Call{Node: node, Addr: v.Coordinator.Addr, Req: req}
	return m.life.Send(tx.Now, reason, call, func(tx *reactor.Tx, resp any, err error) {
		m.onResponse(tx, node, sentEpoch, sentState, sentOwned, sentSubs, resp, err)
	})
}

func (m *Membership) ownedTopics() []kmsg.ConsumerGroupHeartbeatRequestTopic {
	out := []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	for id, ps := range m.owned {
		t := kmsg.NewConsumerGroupHeartbeatRequestTopic()
		t.TopicID = id
		t.Partitions = slices.Clone(ps)
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b kmsg.ConsumerGroupHeartbeatRequestTopic) int {
		return managers.CompareTopicID(a.TopicID, b.TopicID)
	})
	return out
}

func (m *Membership) onResponse(tx *reactor.Tx, node, sentEpoch int32, sentState managers.MemberState, sentOwned, sentSubs bool, resp any, err error) {
	r, err := managers.Reply(kmsg.ConsumerGroupHeartbeat, node, resp, err, func(r *kmsg.ConsumerGroupHeartbeatResponse) int16 { return r.ErrorCode })
	switch m.life.Answered(tx.Now, node, sentState, err) {
	case managers.AnswerRejoin:
		m.giveUp()
		return
	case managers.AnswerFatal:
		m.abandon()
		m.setOwned(map[[16]byte][]int32{}, nil)
		return
	case managers.AnswerDone:
		return
	}
	m.life.Accept(r.MemberID)
	if r.MemberEpoch < sentEpoch && sentEpoch > 0 {
		return // never let an older epoch overwrite a newer one (P3)
	}
	m.life.Adopt(tx.Now, r.MemberEpoch, r.HeartbeatIntervalMillis, sentSubs)
	if sentOwned {
		m.sendOwned = false
	}
	if r.Assignment != nil {
		target := map[[16]byte][]int32{}
		for _, t := range r.Assignment.Topics {
			ps := slices.Clone(t.Partitions)
			slices.Sort(ps)
			target[t.TopicID] = ps
		}
		// The coordinator may repeat the assignment it already sent: that
		// is not a change to reconcile or acknowledge again.
		if m.newTarget(target) {
			m.target = target
		}
	}
}

func (m *Membership) setOwned(owned map[[16]byte][]int32, tps []managers.TopicPartition) {
	slices.SortFunc(tps, managers.CompareTopicPartition)
	if len(tps) == 0 && len(m.ownedTPs) == 0 {
		m.owned = owned
		return
	}
	m.owned, m.ownedTPs = owned, tps
	m.ownedVersion++
}

// LocalTimer is the heartbeat timer as today's heartbeat manager reports it
// (package baseline): running whenever a group id is configured and the
// member has not left, including while unsubscribed (its interval starts at
// 0: the KAFKA-20426 shape) and while a heartbeat is in flight (KAFKA-21031).
func (m *Membership) LocalTimer() (time.Time, bool) { return m.life.LocalTimer() }

func sameAssignment(a, b map[[16]byte][]int32) bool {
	if len(a) != len(b) {
		return false
	}
	for id, ps := range a {
		if !slices.Equal(ps, b[id]) {
			return false
		}
	}
	return true
}
