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

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/internal/mutant"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// MemberState is the member's lifecycle (shared with the other consumer's
// membership: only the protocol differs).
type MemberState = managers.MemberState

// Member states, for callers of this package.
const (
	MemberUnsubscribed = managers.MemberUnsubscribed
	MemberJoining      = managers.MemberJoining
	MemberStable       = managers.MemberStable
	MemberLeaving      = managers.MemberLeaving
	MemberLeft         = managers.MemberLeft
	MemberFatal        = managers.MemberFatal
	MemberStale        = managers.MemberStale
)

// Membership owns the member id, member epoch, subscription and reconciled
// assignment of one KIP-848 member. Loop goroutine only.
type Membership struct {
	group            string
	memberID         string
	instanceID       string // group.instance.id, "" for a dynamic member (static.go)
	rebalanceTimeout time.Duration
	coord            *managers.Coordinator

	state        MemberState
	epoch        int32
	subscription []string
	sendSubs     bool // subscription not yet acknowledged by a heartbeat
	interval     time.Duration
	nextBeat     time.Time
	inFlight     bool        // a heartbeat whose answer applies is in flight
	flight       uint64      // sequence of that heartbeat: an older answer is ignored
	flightState  MemberState // the state that heartbeat was sent in
	errs         managers.HeartbeatErrors
	poll         managers.PollTimer // max.poll.interval.ms
	stale        bool               // the leave under way is the poll timer's: end in MemberStale

	owned        map[[16]byte][]int32 // reconciled assignment by topic id
	ownedTPs     []managers.TopicPartition
	ownedVersion uint64
	target       map[[16]byte][]int32      // received, not yet reconciled (topic names unknown)
	rejoin       bool                      // Subscribe arrived while leaving: join again after the leave
	joinOnPoll   bool                      // subscribed while out of the group: join at the next Poll
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
	return &Membership{
		group:            group,
		memberID:         managers.NewMemberID(),
		rebalanceTimeout: maxPollInterval,
		poll:             managers.PollTimer{Interval: maxPollInterval},
		errs:             managers.HeartbeatErrors{API: kmsg.ConsumerGroupHeartbeat, Coord: coord, Retry: managers.Retry{Backoff: backoff}},
		coord:            coord,
		state:            MemberUnsubscribed,
		owned:            map[[16]byte][]int32{},
	}
}

// UseMemberID replaces the member id NewMembership generated with id
// (managers.NewMemberIDFrom: a seeded run's). Call it before the manager
// is first polled; the coordinator may still assign another id in its
// answer, as with a generated one.
func (m *Membership) UseMemberID(id string) { m.memberID = id }

// Name is "membership".
func (m *Membership) Name() string { return "membership" }

// State returns the membership state.
func (m *Membership) State() MemberState { return m.state }

// MemberID and Epoch return the member's identity.
func (m *Membership) MemberID() string { return m.memberID }

// Epoch returns the member epoch (0 while joining, -1 after leaving).
func (m *Membership) Epoch() int32 { return m.epoch }

// Owned returns the reconciled assignment (sorted) and its version.
func (m *Membership) Owned() ([]managers.TopicPartition, uint64) { return m.ownedTPs, m.ownedVersion }

// LastError is the last heartbeat error, or nil; in MemberFatal it is the
// fatal error.
func (m *Membership) LastError() error { return m.errs.Retry.Err() }

// TakeErrors returns and clears the errors membership owes the application
// that do not stop it: a coordinator discovery failure the error table
// raises (GROUP_AUTHORIZATION_FAILED on FindCoordinator) and non-fatal
// heartbeat errors (TOPIC_AUTHORIZATION_FAILED). A fatal error is not
// here: it is LastError in MemberFatal.
func (m *Membership) TakeErrors() []error { return m.errs.TakeErrors() }

// InGroup reports whether the member takes part in the group (joining,
// stable or leaving).
func (m *Membership) InGroup() bool {
	return m.state == MemberJoining || m.state == MemberStable || m.state == MemberLeaving
}

// NeedsCoordinator reports whether membership has work for the coordinator.
func (m *Membership) NeedsCoordinator() bool { return m.InGroup() }

// Subscribe sets the subscription and starts joining (or updates the
// subscription of a joined member). An empty list unsubscribes: the member
// leaves the group.
func (m *Membership) Subscribe(topics []string) {
	topics = slices.Clone(topics)
	slices.Sort(topics)
	topics = slices.Compact(topics)
	if len(topics) == 0 {
		m.subscription = nil
		m.rejoin = false
		m.Leave()
		return
	}
	m.subscription = topics
	m.sendSubs = true
	switch m.state {
	case MemberUnsubscribed, MemberLeft, MemberStale:
		m.joinOnPoll = true // Java's subscribe only records it: the join goes at the next Poll
	case MemberStable:
		m.nextBeat = time.Time{} // tell the coordinator now
	case MemberLeaving:
		m.rejoin = true // join again once the leave is answered
	}
}

// Leave starts leaving the group (epoch -1). A member that never joined, or
// left already because of max.poll.interval.ms, is left at once.
func (m *Membership) Leave() {
	m.rec = nil
	m.rejoin, m.joinOnPoll = false, false
	m.stale = false
	m.poll.Stop()
	switch m.state {
	case MemberStable:
		m.state = MemberLeaving
	case MemberJoining:
		if m.epoch == 0 && !m.inFlight {
			m.state = MemberLeft // never joined
		} else {
			m.state = MemberLeaving
		}
	case MemberUnsubscribed, MemberStale:
		m.state = MemberLeft
	}
	m.setOwned(map[[16]byte][]int32{}, nil)
}

// OnPoll records an application Poll at now (Java's poll event): the
// max.poll.interval.ms timer restarts, and a member that left because it
// expired joins again (from MemberStale at once; while its leave is still
// under way, once the leave is answered).
func (m *Membership) OnPoll(now time.Time) {
	m.poll.Polled(now)
	if m.joinOnPoll {
		// The join happens inside Poll (Java's
		// AbstractMembershipManager.onConsumerPoll after
		// onSubscriptionUpdated): Subscribe alone sends nothing.
		m.joinOnPoll = false
		if len(m.subscription) > 0 && (m.state == MemberUnsubscribed || m.state == MemberLeft || m.state == MemberStale) {
			m.state, m.epoch, m.sendSubs = MemberJoining, 0, true
			return
		}
	}
	switch {
	case m.state == MemberStale:
		m.state, m.epoch, m.sendSubs = MemberJoining, 0, true
	case m.state == MemberLeaving && m.stale:
		m.rejoin = true
	}
}

// expire leaves the group because max.poll.interval.ms passed without Poll
// activity (Java's transitionToSendingLeaveGroup(true)): the assignment is
// given up and a leave heartbeat (epoch -1) goes at once; the member then
// stays MemberStale, sending nothing, until OnPoll.
func (m *Membership) expire() {
	m.poll.Stop()
	m.rejoin = false
	m.abandon()
	m.setOwned(map[[16]byte][]int32{}, nil)
	m.target, m.sendOwned = nil, false
	if m.state == MemberJoining && m.epoch == 0 && !m.inFlight {
		m.state = MemberStale // never joined: nothing to leave
		return
	}
	m.state, m.stale = MemberLeaving, true
}

// Done reports whether nothing is left to do for close: left, fatal, stale
// (left already) or never subscribed.
func (m *Membership) Done() bool {
	return m.state == MemberLeft || m.state == MemberFatal || m.state == MemberUnsubscribed || m.state == MemberStale
}

// Poll answers what membership can do now.
func (m *Membership) Poll(tx *reactor.Tx, v View) reactor.Result {
	m.errs.RaiseCoordinatorFailure(tx)
	m.releaseLost(tx)
	if v.Polling {
		m.poll.Polled(tx.Now) // an application Poll is waiting: the interval restarts
	}
	if m.state == MemberJoining || m.state == MemberStable {
		m.poll.Start(tx.Now)
		if m.poll.Expired(tx.Now) {
			m.expire()
		}
	}
	switch m.state {
	case MemberUnsubscribed:
		if mutant.On("unsubscribed-heartbeat-due") {
			return reactor.RetryAt(m.nextBeat, "heartbeat interval")
		}
		return reactor.Idle("not subscribed")
	case MemberLeft:
		return reactor.Idle("left the group")
	case MemberFatal:
		return reactor.Idle("fatal: " + m.LastError().Error())
	case MemberStale:
		return reactor.Idle("left the group: no Poll within max.poll.interval.ms; joins again at the next Poll")
	case MemberLeaving:
		return m.pollLeaving(tx, v)
	}
	if !v.CoordinatorKnown && !m.inFlight {
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
	// A member waiting for an answer or its interval is polled again when
	// max.poll.interval.ms expires: the leave goes then, a heartbeat in
	// flight or not (Java checks the poll timer on every poll).
	return m.poll.Bound(m.pollMember(tx, v))
}

// pollLeaving sends the leave heartbeat as soon as the coordinator is
// known: during a heartbeat backoff and while an older heartbeat is in
// flight too (that heartbeat's answer is then ignored), as Java's leave
// does.
func (m *Membership) pollLeaving(tx *reactor.Tx, v View) reactor.Result {
	switch {
	case m.inFlight && m.flightState == MemberLeaving:
		return reactor.Await(reactor.InputResponse, "leave heartbeat in flight")
	case !v.CoordinatorKnown:
		return reactor.Await(reactor.InputCoordinator, "leave pending, coordinator unknown")
	}
	if m.stale {
		return m.send(tx, v, "leave group: no Poll within max.poll.interval.ms")
	}
	return m.send(tx, v, "leave group")
}

// pollMember is Poll for a joining or stable member.
func (m *Membership) pollMember(tx *reactor.Tx, v View) reactor.Result {
	switch {
	case m.inFlight && mutant.On("heartbeat-in-flight-zero-wait") && !m.nextBeat.IsZero() && !tx.Now.Before(m.nextBeat):
		return reactor.RetryAt(m.nextBeat, "heartbeat interval")
	case m.inFlight:
		return reactor.Await(reactor.InputResponse, "heartbeat in flight")
	case !v.CoordinatorKnown:
		return reactor.Await(reactor.InputCoordinator, "coordinator unknown")
	}
	if next, waiting := m.errs.Backoff(tx.Now); waiting {
		return reactor.RetryAt(next, "heartbeat backoff")
	}
	if m.target != nil && m.rec == nil {
		m.reconcile(tx, v.Meta)
	}
	if m.state == MemberJoining {
		return m.send(tx, v, "join group")
	}
	if m.sendOwned {
		return m.send(tx, v, "acknowledge assignment")
	}
	if m.sendSubs {
		return m.send(tx, v, "subscription changed")
	}
	if tx.Now.Before(m.nextBeat) {
		if m.rec != nil {
			return reactor.Combine(reactor.RetryAt(m.nextBeat, "heartbeat interval"), m.reconcileWait())
		}
		return reactor.RetryAt(m.nextBeat, "heartbeat interval")
	}
	return m.send(tx, v, "heartbeat interval elapsed")
}

func (m *Membership) send(tx *reactor.Tx, v View, reason string) reactor.Result {
	req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	req.Group = m.group
	req.MemberID = m.memberID
	req.RebalanceTimeoutMillis = -1
	req.MemberEpoch = m.epoch
	req.InstanceID = m.instanceIDField()
	switch m.state {
	case MemberLeaving:
		req.MemberEpoch = m.leavingEpoch()
	case MemberJoining:
		req.MemberEpoch = 0
		req.RebalanceTimeoutMillis = int32(m.rebalanceTimeout.Milliseconds())
		req.SubscribedTopicNames = m.subscription
		req.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{} // must be empty, not null, on join
	default:
		if m.sendSubs {
			req.SubscribedTopicNames = m.subscription
		}
		if m.sendOwned {
			req.Topics = m.ownedTopics()
		}
	}
	sentEpoch, sentState, sentOwned, sentSubs := req.MemberEpoch, m.state, req.Topics != nil, req.SubscribedTopicNames != nil
	m.inFlight, m.flightState = true, m.state
	m.flight++
	seq := m.flight
	m.nextBeat = tx.Now.Add(m.interval) // the interval runs send to send (HeartbeatRequestState.onSendAttempt)
	return reactor.Ready(reason, &reactor.Request{
		Payload: &managers.Call{Node: v.Coordinator.Node, Addr: v.Coordinator.Addr, Req: req},
		OnComplete: func(tx *reactor.Tx, resp any, err error) {
			if seq != m.flight {
				return // a later heartbeat (the leave) superseded this one: its answer describes an older state
			}
			m.onResponse(tx, v.Coordinator.Node, sentEpoch, sentState, sentOwned, sentSubs, resp, err)
		},
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

func (m *Membership) onResponse(tx *reactor.Tx, node, sentEpoch int32, sentState MemberState, sentOwned, sentSubs bool, resp any, err error) {
	m.inFlight = false
	var r *kmsg.ConsumerGroupHeartbeatResponse
	if err == nil {
		r, err = managers.As[*kmsg.ConsumerGroupHeartbeatResponse](kmsg.ConsumerGroupHeartbeat, node, resp)
	}
	if err == nil {
		err = kerr.ErrorForCode(r.ErrorCode)
	}
	if m.state == MemberLeaving && sentState == MemberLeaving {
		// The leave is best effort, as in today's consumer: any answer,
		// or a transport error, ends membership (the coordinator removes
		// a silent member at its session timeout). A coordinator error
		// still marks the coordinator unknown, and nothing then asks to
		// find it again for membership (KAFKA-18569).
		m.errs.Leave(node, err)
		m.state, m.epoch = MemberLeft, -1
		if m.stale {
			m.state, m.stale = MemberStale, false
		}
		if m.rejoin && len(m.subscription) > 0 {
			m.rejoin = false
			m.state, m.epoch, m.sendSubs = MemberJoining, 0, true
		}
		return
	}
	if m.state != sentState && !(sentState == MemberJoining && m.state == MemberStable) {
		// The state moved on while this heartbeat was in flight (e.g.
		// Leave was called): its answer describes an older state.
		if err != nil {
			m.errs.Retry.Fail(tx.Now, err)
		}
		return
	}
	if err != nil {
		switch m.errs.Apply(tx.Now, node, err) {
		case managers.HeartbeatWait:
			// The next heartbeat goes once the backoff or the
			// rediscovery allows, not a whole interval later (Java's
			// HeartbeatRequestState.onFailedAttempt resets its timer).
			m.nextBeat = time.Time{}
		case managers.HeartbeatRejoin:
			m.abandon()
			m.state, m.epoch = MemberJoining, 0
			m.setOwned(map[[16]byte][]int32{}, nil)
			m.target = nil
			m.sendOwned = false
		case managers.HeartbeatStop:
			m.abandon()
			m.state = MemberFatal
			m.setOwned(map[[16]byte][]int32{}, nil)
		}
		return
	}
	m.errs.Succeeded()
	if r.MemberID != nil && *r.MemberID != "" {
		m.memberID = *r.MemberID
	}
	if r.MemberEpoch < sentEpoch && sentEpoch > 0 {
		return // never let an older epoch overwrite a newer one (P3)
	}
	m.epoch = r.MemberEpoch
	// The interval runs from the heartbeat's send (set in send), as Java's
	// HeartbeatRequestState.onSendAttempt resets its timer (KAFKA-16528):
	// a slow answer does not push the next heartbeat later. Only a new
	// interval restarts the timer, from this answer (Java's
	// updateHeartbeatIntervalMs: updateAndReset when the value changes).
	if iv := time.Duration(r.HeartbeatIntervalMillis) * time.Millisecond; iv > 0 && iv != m.interval {
		m.interval = iv
		m.nextBeat = tx.Now.Add(m.interval)
	}
	if m.state == MemberJoining {
		m.state = MemberStable
	}
	if sentOwned {
		m.sendOwned = false
	}
	if sentSubs {
		m.sendSubs = false
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

// Subscription returns the subscribed topics (sorted).
func (m *Membership) Subscription() []string { return m.subscription }

// LocalTimer is the heartbeat timer as today's heartbeat manager reports it
// (package baseline): running whenever a group id is configured and the
// member has not left, including while unsubscribed (its interval starts at
// 0: the KAFKA-20426 shape) and while a heartbeat is in flight (KAFKA-21031).
func (m *Membership) LocalTimer() (time.Time, bool) {
	if m.group == "" || m.state == MemberLeft || m.state == MemberFatal || m.state == MemberStale {
		return time.Time{}, false
	}
	return m.nextBeat, true
}

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
