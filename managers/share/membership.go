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

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

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

// Membership owns the share member's id, epoch, subscription and assignment.
// Loop goroutine only.
type Membership struct {
	group    string
	memberID string
	coord    *managers.Coordinator

	state        MemberState
	epoch        int32
	subscription []string
	sendSubs     bool
	interval     time.Duration
	nextBeat     time.Time
	inFlight     bool        // a heartbeat whose answer applies is in flight
	flight       uint64      // sequence of that heartbeat: an older answer is ignored
	flightState  MemberState // the state that heartbeat was sent in
	errs         managers.HeartbeatErrors
	poll         managers.PollTimer // max.poll.interval.ms
	stale        bool               // the leave under way is the poll timer's: end in MemberStale
	rejoin       bool               // a Poll came while that leave was under way: join again after it
	joinOnPoll   bool               // subscribed while out of the group: join at the next Poll

	target        map[[16]byte][]int32 // last assignment received, by topic id
	assigned      []managers.TopicPartition
	assignVersion uint64
}

// NewMembership returns the share membership manager of group;
// maxPollInterval is max.poll.interval.ms (the poll timer).
func NewMembership(group string, maxPollInterval time.Duration, backoff managers.Backoff, coord *managers.Coordinator) *Membership {
	return &Membership{group: group, memberID: managers.NewMemberID(), coord: coord, state: MemberUnsubscribed,
		errs: managers.HeartbeatErrors{API: kmsg.ShareGroupHeartbeat, Coord: coord, Retry: managers.Retry{Backoff: backoff}},
		poll: managers.PollTimer{Interval: maxPollInterval}}
}

// UseMemberID replaces the member id NewMembership generated with id
// (managers.NewMemberIDFrom: a seeded run's). Call it before the manager
// is first polled.
func (m *Membership) UseMemberID(id string) { m.memberID = id }

// Name is "share-membership".
func (m *Membership) Name() string { return "share-membership" }

// State, MemberID, Epoch and LastError describe the member.
func (m *Membership) State() MemberState { return m.state }
func (m *Membership) MemberID() string   { return m.memberID }
func (m *Membership) Epoch() int32       { return m.epoch }
func (m *Membership) LastError() error   { return m.errs.Retry.Err() }

// TakeErrors returns and clears the errors membership owes the application
// that do not stop it (a coordinator discovery failure, a non-fatal
// heartbeat error such as TOPIC_AUTHORIZATION_FAILED); a fatal error is
// LastError in MemberFatal.
func (m *Membership) TakeErrors() []error { return m.errs.TakeErrors() }

// Assigned returns the assignment (sorted) and its version.
func (m *Membership) Assigned() ([]managers.TopicPartition, uint64) {
	return m.assigned, m.assignVersion
}

// Subscription returns the subscribed topics.
func (m *Membership) Subscription() []string { return m.subscription }

// Joined reports whether the member has an epoch and may share-fetch.
func (m *Membership) Joined() bool { return m.state == MemberStable }

// NeedsCoordinator reports whether membership has work for the coordinator.
func (m *Membership) NeedsCoordinator() bool {
	return m.state == MemberJoining || m.state == MemberStable || m.state == MemberLeaving
}

// Done reports whether membership needs nothing more for close: left,
// fatal, stale (left already) or never subscribed.
func (m *Membership) Done() bool {
	return m.state == MemberLeft || m.state == MemberFatal || m.state == MemberUnsubscribed || m.state == MemberStale
}

// Subscribe sets the subscription and starts joining.
func (m *Membership) Subscribe(topics []string) {
	topics = slices.Clone(topics)
	slices.Sort(topics)
	m.subscription = slices.Compact(topics)
	m.sendSubs = true
	switch m.state {
	case MemberUnsubscribed, MemberLeft, MemberStale:
		m.joinOnPoll = true // the join goes at the next Poll, as the regular member's
	case MemberStable:
		m.nextBeat = time.Time{}
	}
}

// OnPoll records an application Poll at now (Java's SharePollEvent): the
// max.poll.interval.ms timer restarts, and a member that left because it
// expired joins again (from MemberStale at once; while its leave is still
// under way, once the leave is answered).
func (m *Membership) OnPoll(now time.Time) {
	m.poll.Polled(now)
	if m.joinOnPoll {
		// Java's ShareMembershipManager joins on the first poll after
		// subscribe (AbstractMembershipManager.onConsumerPoll).
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

// expire leaves the share group because max.poll.interval.ms passed
// without Poll activity: the assignment is given up and a leave heartbeat
// (epoch -1) goes at once; the member then stays MemberStale until OnPoll.
func (m *Membership) expire() {
	m.poll.Stop()
	m.rejoin = false
	m.setAssigned(nil)
	m.target = nil
	if m.state == MemberJoining && !m.inFlight {
		m.state = MemberStale // never joined: nothing to leave
		return
	}
	m.state, m.stale = MemberLeaving, true
}

// Leave starts leaving; a member that never joined, or left already because
// of max.poll.interval.ms, is left at once. The assignment is dropped.
func (m *Membership) Leave() {
	m.stale, m.rejoin, m.joinOnPoll = false, false, false
	m.poll.Stop()
	switch m.state {
	case MemberStable:
		m.state = MemberLeaving
	case MemberJoining:
		if m.inFlight {
			m.state = MemberLeaving
		} else {
			m.state = MemberLeft
		}
	case MemberUnsubscribed, MemberStale:
		m.state = MemberLeft
	}
	m.setAssigned(nil)
}

// Poll answers what membership can do now.
func (m *Membership) Poll(tx *reactor.Tx, v View) reactor.Result {
	m.errs.RaiseCoordinatorFailure(tx)
	if v.Polling {
		m.poll.Polled(tx.Now) // the application is in Poll: the interval restarts
	}
	if m.state == MemberJoining || m.state == MemberStable {
		m.poll.Start(tx.Now)
		if m.poll.Expired(tx.Now) {
			m.expire()
		}
	}
	switch m.state {
	case MemberUnsubscribed:
		return reactor.Idle("not subscribed")
	case MemberLeft:
		return reactor.Idle("left the share group")
	case MemberFatal:
		return reactor.Idle("fatal: " + m.LastError().Error())
	case MemberStale:
		return reactor.Idle("left the share group: no Poll within max.poll.interval.ms; joins again at the next Poll")
	case MemberLeaving:
		// The leave goes as soon as the coordinator is known: during a
		// backoff and while an older heartbeat is in flight too (its
		// answer is then ignored).
		switch {
		case m.inFlight && m.flightState == MemberLeaving:
			return reactor.Await(reactor.InputResponse, "leave heartbeat in flight")
		case !v.CoordinatorKnown:
			return reactor.Await(reactor.InputCoordinator, "leave pending, coordinator unknown")
		case m.stale:
			return m.send(tx, v, "leave share group: no Poll within max.poll.interval.ms")
		}
		return m.send(tx, v, "leave share group")
	}
	if !v.CoordinatorKnown && !m.inFlight {
		// The poll timer is checked when the coordinator is found (an
		// input): without one there is no leave to send (Java's
		// heartbeat manager skips the check too).
		return reactor.Await(reactor.InputCoordinator, "coordinator unknown")
	}
	// A member waiting for an answer or its interval is polled again when
	// max.poll.interval.ms expires: the leave goes then, a heartbeat in
	// flight or not (Java checks the poll timer on every poll).
	return m.poll.Bound(m.pollMember(tx, v))
}

// pollMember is Poll for a joining or stable member.
func (m *Membership) pollMember(tx *reactor.Tx, v View) reactor.Result {
	switch {
	case m.inFlight:
		return reactor.Await(reactor.InputResponse, "share heartbeat in flight")
	case !v.CoordinatorKnown:
		return reactor.Await(reactor.InputCoordinator, "coordinator unknown")
	}
	if next, waiting := m.errs.Backoff(tx.Now); waiting {
		return reactor.RetryAt(next, "share heartbeat backoff")
	}
	if m.target != nil {
		m.resolve(tx, v.Meta)
	}
	switch {
	case m.state == MemberJoining:
		return m.send(tx, v, "join share group")
	case m.sendSubs:
		return m.send(tx, v, "subscription changed")
	case tx.Now.Before(m.nextBeat):
		return reactor.RetryAt(m.nextBeat, "share heartbeat interval")
	}
	return m.send(tx, v, "share heartbeat interval elapsed")
}

func (m *Membership) send(tx *reactor.Tx, v View, reason string) reactor.Result {
	req := kmsg.NewPtrShareGroupHeartbeatRequest()
	req.GroupID = m.group
	req.MemberID = m.memberID
	req.MemberEpoch = m.epoch
	switch m.state {
	case MemberLeaving:
		req.MemberEpoch = -1
	case MemberJoining:
		req.MemberEpoch = 0
		req.SubscribedTopicNames = m.subscription
	default:
		if m.sendSubs {
			req.SubscribedTopicNames = m.subscription
		}
	}
	sentState, sentSubs, node := m.state, req.SubscribedTopicNames != nil, v.Coordinator.Node
	m.inFlight, m.flightState = true, m.state
	m.flight++
	seq := m.flight
	m.nextBeat = tx.Now.Add(m.interval) // the interval runs send to send (HeartbeatRequestState.onSendAttempt)
	return reactor.Ready(reason, &reactor.Request{
		Payload: &managers.Call{Node: node, Addr: v.Coordinator.Addr, Req: req},
		OnComplete: func(tx *reactor.Tx, resp any, err error) {
			if seq != m.flight {
				return // superseded by a later heartbeat (the leave)
			}
			m.onResponse(tx, node, sentState, sentSubs, resp, err)
		},
	})
}

func (m *Membership) onResponse(tx *reactor.Tx, node int32, sentState MemberState, sentSubs bool, resp any, err error) {
	m.inFlight = false
	var r *kmsg.ShareGroupHeartbeatResponse
	if err == nil {
		r, err = managers.As[*kmsg.ShareGroupHeartbeatResponse](kmsg.ShareGroupHeartbeat, node, resp)
	}
	if err == nil {
		err = kerr.ErrorForCode(r.ErrorCode)
	}
	if m.state == MemberLeaving && sentState == MemberLeaving {
		// Best effort, as in today's share consumer: any answer ends it.
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
		if err != nil {
			m.errs.Retry.Fail(tx.Now, err)
		}
		return // the state moved on while this was in flight (P3)
	}
	if err != nil {
		switch m.errs.Apply(tx.Now, node, err) {
		case managers.HeartbeatWait:
			// The next heartbeat goes once the backoff or the
			// rediscovery allows, not a whole interval later (Java's
			// HeartbeatRequestState.onFailedAttempt resets its timer).
			m.nextBeat = time.Time{}
		case managers.HeartbeatRejoin:
			m.state, m.epoch = MemberJoining, 0
			m.setAssigned(nil)
			m.target = nil
		case managers.HeartbeatStop:
			m.state = MemberFatal
			m.setAssigned(nil)
		}
		return
	}
	m.errs.Succeeded()
	if r.MemberID != nil && *r.MemberID != "" {
		m.memberID = *r.MemberID
	}
	m.epoch = r.MemberEpoch
	// Send to send, as the regular member's (Java's
	// ShareHeartbeatRequestManager shares HeartbeatRequestState): only a
	// new interval restarts the timer from the answer.
	if iv := time.Duration(r.HeartbeatIntervalMillis) * time.Millisecond; iv > 0 && iv != m.interval {
		m.interval = iv
		m.nextBeat = tx.Now.Add(m.interval)
	}
	if m.state == MemberJoining {
		m.state = MemberStable
	}
	if sentSubs {
		m.sendSubs = false
	}
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
	var tps []managers.TopicPartition
	for id, ps := range m.target {
		name, ok := meta.TopicName(id)
		if !ok {
			meta.RequestRefresh(tx)
			return
		}
		for _, p := range ps {
			tps = append(tps, managers.TopicPartition{Topic: name, Partition: p})
		}
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
// reports it (package baseline).
func (m *Membership) LocalTimer() (time.Time, bool) {
	if m.group == "" || m.state == MemberLeft || m.state == MemberFatal || m.state == MemberUnsubscribed || m.state == MemberStale {
		return time.Time{}, false
	}
	return m.nextBeat, true
}
