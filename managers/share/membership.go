package share

// Share group heartbeat and membership (KIP-932).
//
// Kafka API: ShareGroupHeartbeat (key 76) v1: join with member epoch 0 and
// the subscribed topic names, heartbeat at the interval the coordinator
// returns, adopt the assignment it sends (no owned-partition acknowledgement
// in share groups), leave with member epoch -1.
// Answers: KAFKA-20253's shape for share groups (coordinator unknown is an
// Await(coordinator)), KAFKA-21031's (heartbeat in flight is an
// Await(response)). Java's contract (CONTRACT-*): the leave heartbeat goes even while another
// heartbeat is in flight and during a heartbeat backoff, and
// max.poll.interval.ms is enforced as the KIP-932 Java client does
// (kafka-clients 4.4.0: ShareHeartbeatRequestManager extends
// AbstractHeartbeatRequestManager, whose poll timer every SharePollEvent
// resets): without Poll activity for that long the member leaves the share
// group (epoch -1), stops heartbeating (MemberStale) and joins again at the
// next Poll.

import (
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// member is the member as callers of Membership see it (its identity,
// state and errors, OnPoll), under an unexported name: embedded, its
// methods are Membership's.
type member = managers.Member

// Membership owns the share member's id, epoch, subscription and
// assignment: the lifecycle it shares with the regular consumer's member
// is a managers.Lifecycle, the assignment it adopts is here. Loop
// goroutine only.
type Membership struct {
	member
	life *managers.Lifecycle

	target        map[[16]byte][]int32 // last assignment received, by topic id
	assigned      []managers.TopicPartition
	assignVersion uint64
}

// NewMembership returns the share membership manager of group;
// maxPollInterval is max.poll.interval.ms (the poll timer).
func NewMembership(group string, maxPollInterval time.Duration, backoff managers.Backoff, coord *managers.Coordinator) *Membership {
	life := managers.NewLifecycle(group, kmsg.ShareGroupHeartbeat, maxPollInterval, backoff, coord)
	return &Membership{member: life.Member(), life: life}
}

// Name is "share-membership".
func (m *Membership) Name() string { return "share-membership" }

// Assigned returns the assignment (sorted) and its version.
func (m *Membership) Assigned() ([]managers.TopicPartition, uint64) {
	return m.assigned, m.assignVersion
}

// Joined reports whether the member has an epoch and may share-fetch.
func (m *Membership) Joined() bool { return m.State() == managers.MemberStable }

// Subscribe sets the subscription and starts joining (at the next Poll, as
// the regular member's). A member leaving stays left.
func (m *Membership) Subscribe(topics []string) { m.life.Subscribe(topics) }

// Leave starts leaving; a member that never joined, or left already because
// of max.poll.interval.ms, is left at once. The assignment is dropped.
func (m *Membership) Leave() {
	m.life.Leave()
	m.setAssigned(nil)
}

// giveUp drops the assignment after the member was fenced or let
// max.poll.interval.ms pass.
func (m *Membership) giveUp() {
	m.setAssigned(nil)
	m.target = nil
}

// Poll answers what membership can do now.
func (m *Membership) Poll(tx *reactor.Tx, v View) reactor.Result {
	m.life.RaiseCoordinatorFailure(tx)
	if m.life.Tick(tx.Now, v.Polling) {
		m.giveUp()
	}
	if r, out := m.life.PollOut(v.CoordinatorKnown, func(reason string) reactor.Result { return m.send(tx, v, reason) }); out {
		return r
	}
	if !v.CoordinatorKnown && !m.life.InFlight() {
		// The poll timer is checked when the coordinator is found (an
		// input): without one there is no leave to send.
		return reactor.Await(reactor.InputCoordinator, "coordinator unknown")
	}
	return m.life.Bound(m.pollMember(tx, v))
}

// pollMember is Poll for a joining or stable member.
func (m *Membership) pollMember(tx *reactor.Tx, v View) reactor.Result {
	if r, blocked := m.life.Blocked(tx.Now, v.CoordinatorKnown); blocked {
		return r
	}
	if m.target != nil {
		m.resolve(tx, v.Meta)
	}
	reason, wait := m.life.Due(tx.Now, false)
	if reason == "" {
		return wait
	}
	return m.send(tx, v, reason)
}

func (m *Membership) send(tx *reactor.Tx, v View, reason string) reactor.Result {
	req := kmsg.NewPtrShareGroupHeartbeatRequest()
	req.GroupID, req.MemberID, req.MemberEpoch, req.SubscribedTopicNames = m.life.Heartbeat()
	sentState, sentSubs, node := m.State(), req.SubscribedTopicNames != nil, v.Coordinator.Node
	call := &managers.Call{Node: node, Addr: v.Coordinator.Addr, Req: req}
	return m.life.Send(tx.Now, reason, call, func(tx *reactor.Tx, resp any, err error) {
		m.onResponse(tx, node, sentState, sentSubs, resp, err)
	})
}

func (m *Membership) onResponse(tx *reactor.Tx, node int32, sentState managers.MemberState, sentSubs bool, resp any, err error) {
	r, err := managers.Reply(kmsg.ShareGroupHeartbeat, node, resp, err, func(r *kmsg.ShareGroupHeartbeatResponse) int16 { return r.ErrorCode })
	switch m.life.Answered(tx.Now, node, sentState, err) {
	case managers.AnswerRejoin:
		m.giveUp()
		return
	case managers.AnswerFatal:
		m.setAssigned(nil)
		return
	case managers.AnswerDone:
		return
	}
	m.life.Accept(r.MemberID)
	m.life.Adopt(tx.Now, r.MemberEpoch, r.HeartbeatIntervalMillis, sentSubs)
	if r.Assignment != nil {
		target := map[[16]byte][]int32{}
		for _, t := range r.Assignment.TopicPartitions {
			target[t.TopicID] = slices.Clone(t.Partitions)
		}
		m.target = target
		m.resolve(tx, nil)
	}
}

// resolve adopts the received assignment once every topic id has a name.
func (m *Membership) resolve(tx *reactor.Tx, meta *managers.Metadata) {
	if meta == nil {
		return // resolved at the next poll, which has the view
	}
	tps, ok := managers.NamePartitions(tx, meta, m.target)
	if !ok {
		return
	}
	m.target = nil
	m.setAssigned(tps)
}

func (m *Membership) setAssigned(tps []managers.TopicPartition) {
	slices.SortFunc(tps, managers.CompareTopicPartition)
	if slices.Equal(tps, m.assigned) {
		return
	}
	m.assigned = tps
	m.assignVersion++
}

// LocalTimer is the heartbeat timer as today's share heartbeat manager
// reports it (package baseline): not while unsubscribed.
func (m *Membership) LocalTimer() (time.Time, bool) {
	if m.State() == managers.MemberUnsubscribed {
		return time.Time{}, false
	}
	return m.life.LocalTimer()
}
