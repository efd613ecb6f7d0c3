package managers

// The member lifecycle both membership managers share. A KIP-848 member
// (ConsumerGroupHeartbeat, managers/group) and a KIP-932 member
// (ShareGroupHeartbeat, managers/share) keep the same state: an id and an
// epoch, a subscription, the heartbeat interval with at most one heartbeat
// whose answer applies, the heartbeat errors (HeartbeatErrors) and the
// max.poll.interval.ms poll timer (PollTimer); and they move between
// MemberStates by the same rules (Java's AbstractMembershipManager and
// AbstractHeartbeatRequestManager, which both of Java's consumers extend).
// What a heartbeat carries beyond that, and what becomes of the assignment,
// stays with each membership manager: it drives a Lifecycle and embeds its
// Member, the part its callers see.

import (
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/reactor"
)

// Lifecycle is one member's protocol-independent state and transitions.
// Its membership manager calls it from its own methods only (Poll, its
// request's completion, the calls of its Member); loop goroutine only.
// Create it with NewLifecycle.
type Lifecycle struct {
	group     string
	id        string
	groupNoun string      // "group" or "share group", in Poll's reasons
	beat      beatReasons // "heartbeat" or "share heartbeat" reasons

	state        MemberState
	epoch        int32
	subscription []string      // sorted, no repeats
	sendSubs     bool          // subscription not yet acknowledged by a heartbeat
	interval     time.Duration // the heartbeat interval the coordinator returned
	nextBeat     time.Time     // when the interval elapses (it runs from each send)
	inFlight     bool          // a heartbeat whose answer applies is in flight
	flight       uint64        // sequence of that heartbeat: an older answer is ignored
	flightState  MemberState   // the state that heartbeat was sent in
	errs         HeartbeatErrors
	poll         PollTimer // max.poll.interval.ms
	stale        bool      // the leave under way is the poll timer's: end in MemberStale
	rejoin       bool      // join again once the leave under way is answered
	joinOnPoll   bool      // subscribed while out of the group: join at the next Poll
}

// NewLifecycle returns the lifecycle of a member of group, unsubscribed,
// with a generated member id. api is the heartbeat's key
// (kmsg.ConsumerGroupHeartbeat or kmsg.ShareGroupHeartbeat: it classifies
// the errors and names the reasons); maxPollInterval is
// max.poll.interval.ms; backoff spaces the heartbeats that failed; coord is
// told when the coordinator must be rediscovered.
func NewLifecycle(group string, api kmsg.Key, maxPollInterval time.Duration, backoff Backoff, coord *Coordinator) *Lifecycle {
	l := &Lifecycle{
		group:     group,
		id:        NewMemberID(),
		groupNoun: "group",
		state:     MemberUnsubscribed,
		errs:      HeartbeatErrors{API: api, Coord: coord, Retry: Retry{Backoff: backoff}},
		poll:      PollTimer{Interval: maxPollInterval},
	}
	beatNoun := "heartbeat"
	if api == kmsg.ShareGroupHeartbeat {
		l.groupNoun, beatNoun = "share group", "share heartbeat"
	}
	l.beat = newBeatReasons(beatNoun)
	return l
}

// beatReasons are the reasons of the results a steady member gives at
// every poll, built once (not concatenated at each).
type beatReasons struct{ inFlight, backoff, interval, elapsed string }

func newBeatReasons(noun string) beatReasons {
	return beatReasons{noun + " in flight", noun + " backoff", noun + " interval", noun + " interval elapsed"}
}

// Member is the part of a Lifecycle a membership manager's callers see:
// the member's identity, state and errors, and the application's Poll.
// A membership manager embeds it (under an unexported name) so these
// methods are its own.
type Member struct{ l *Lifecycle }

// Member returns the member's calls.
func (l *Lifecycle) Member() Member { return Member{l} }

// UseMemberID replaces the generated member id with id
// (NewMemberIDFrom: a seeded run's). Call it before the manager is first
// polled; the coordinator may still assign another id in its answer.
func (m Member) UseMemberID(id string) { m.l.id = id }

// State returns the member's state.
func (m Member) State() MemberState { return m.l.state }

// MemberID returns the member id.
func (m Member) MemberID() string { return m.l.id }

// Epoch returns the member epoch (0 while joining, -1 after leaving).
func (m Member) Epoch() int32 { return m.l.epoch }

// Subscription returns the subscribed topics (sorted).
func (m Member) Subscription() []string { return m.l.subscription }

// LastError is the last heartbeat error, or nil; in MemberFatal it is the
// fatal error.
func (m Member) LastError() error { return m.l.errs.Retry.Err() }

// TakeErrors returns and clears the errors the member owes the application
// that do not stop it: a coordinator discovery failure the error table
// raises (GROUP_AUTHORIZATION_FAILED on FindCoordinator) and non-fatal
// heartbeat errors (TOPIC_AUTHORIZATION_FAILED). A fatal error is not
// here: it is LastError in MemberFatal.
func (m Member) TakeErrors() []error { return m.l.errs.TakeErrors() }

// HasErrors reports whether TakeErrors would return any.
func (m Member) HasErrors() bool { return m.l.errs.owed.Len() > 0 }

// NeedsCoordinator reports whether the member has work for the coordinator:
// it takes part in the group (joining, stable or leaving).
func (m Member) NeedsCoordinator() bool {
	s := m.l.state
	return s == MemberJoining || s == MemberStable || s == MemberLeaving
}

// Done reports whether nothing is left to do for close: left, fatal, stale
// (left already) or never subscribed.
func (m Member) Done() bool {
	s := m.l.state
	return s == MemberLeft || s == MemberFatal || s == MemberUnsubscribed || s == MemberStale
}

// OnPoll records an application Poll at now (Java's poll event): the
// max.poll.interval.ms timer restarts; a member subscribed while out of the
// group joins (Java's AbstractMembershipManager.onConsumerPoll: Subscribe
// alone sends nothing), and one that left because the timer expired joins
// again (from MemberStale at once; while its leave is still under way, once
// the leave is answered).
func (m Member) OnPoll(now time.Time) {
	l := m.l
	l.poll.Polled(now)
	if l.joinOnPoll {
		l.joinOnPoll = false
		if len(l.subscription) > 0 && (l.state == MemberUnsubscribed || l.state == MemberLeft || l.state == MemberStale) {
			l.join()
			return
		}
	}
	switch {
	case l.state == MemberStale:
		l.join()
	case l.state == MemberLeaving && l.stale:
		l.rejoin = true
	}
}

// join starts joining with epoch 0, sending the subscription.
func (l *Lifecycle) join() { l.state, l.epoch, l.sendSubs = MemberJoining, 0, true }

// Subscribe sets the subscription (sorted, without repeats) to be sent with
// the next heartbeat: a member out of the group joins at the next Poll, a
// stable one heartbeats now.
func (l *Lifecycle) Subscribe(topics []string) {
	topics = slices.Clone(topics)
	slices.Sort(topics)
	l.subscription = slices.Compact(topics)
	l.sendSubs = true
	switch l.state {
	case MemberUnsubscribed, MemberLeft, MemberStale:
		l.joinOnPoll = true
	case MemberStable:
		l.nextBeat = time.Time{} // tell the coordinator now
	}
}

// Unsubscribe clears the subscription (the manager then leaves).
func (l *Lifecycle) Unsubscribe() { l.subscription = nil }

// JoinAfterLeave makes a leaving member join again once its leave is
// answered (a new subscription arrived while it was leaving).
func (l *Lifecycle) JoinAfterLeave() {
	if l.state == MemberLeaving {
		l.rejoin = true
	}
}

// Leave starts leaving the group (epoch -1). A member that never joined,
// or left already because of max.poll.interval.ms, is left at once. The
// manager gives up its assignment.
func (l *Lifecycle) Leave() {
	l.stale, l.rejoin, l.joinOnPoll = false, false, false
	l.poll.Stop()
	switch l.state {
	case MemberStable:
		l.state = MemberLeaving
	case MemberJoining:
		if l.neverJoined() {
			l.state = MemberLeft
		} else {
			l.state = MemberLeaving
		}
	case MemberUnsubscribed, MemberStale:
		l.state = MemberLeft
	}
}

// neverJoined reports whether a joining member has no epoch yet and no
// heartbeat in flight: it has nothing to leave.
func (l *Lifecycle) neverJoined() bool { return l.epoch == 0 && !l.inFlight }

// RaiseCoordinatorFailure owes the application a coordinator discovery
// failure once per failed FindCoordinator (HeartbeatErrors).
func (l *Lifecycle) RaiseCoordinatorFailure(tx *reactor.Tx) { l.errs.RaiseCoordinatorFailure(tx) }

// Tick checks the poll timer at the start of Poll: polling (an application
// Poll waits) restarts it, and a joining or stable member starts it. When
// max.poll.interval.ms has passed without Poll activity the member leaves
// (Java's transitionToSendingLeaveGroup(true)): a leave heartbeat (epoch
// -1) goes at once and the member then stays MemberStale, sending nothing,
// until OnPoll; a member that never joined is MemberStale at once. Tick
// reports true then, and the manager gives up its assignment.
func (l *Lifecycle) Tick(now time.Time, polling bool) bool {
	if polling {
		l.poll.Polled(now)
	}
	if l.state != MemberJoining && l.state != MemberStable {
		return false
	}
	l.poll.Start(now)
	if !l.poll.Expired(now) {
		return false
	}
	l.poll.Stop()
	l.rejoin = false
	if l.state == MemberJoining && l.neverJoined() {
		l.state = MemberStale // nothing to leave
		return true
	}
	l.state, l.stale = MemberLeaving, true
	return true
}

// PollOut answers Poll for a member that is not joining or stable, and
// reports false for one that is. Out of the group it is Idle; a leaving
// member's leave goes (send) as soon as the coordinator is known: during a
// heartbeat backoff and while an older heartbeat is in flight too (that
// heartbeat's answer is then ignored), as Java's leave does.
func (l *Lifecycle) PollOut(coordinatorKnown bool, send func(reason string) reactor.Result) (reactor.Result, bool) {
	switch l.state {
	case MemberUnsubscribed:
		return reactor.Idle("not subscribed"), true
	case MemberLeft:
		return reactor.Idle("left the " + l.groupNoun), true
	case MemberFatal:
		return reactor.Idle("fatal: " + l.errs.Retry.Err().Error()), true
	case MemberStale:
		return reactor.Idle("left the " + l.groupNoun + ": no Poll within max.poll.interval.ms; joins again at the next Poll"), true
	case MemberLeaving:
		switch {
		case l.inFlight && l.flightState == MemberLeaving:
			return reactor.Await(reactor.InputResponse, "leave heartbeat in flight"), true
		case !coordinatorKnown:
			return reactor.Await(reactor.InputCoordinator, "leave pending, coordinator unknown"), true
		case l.stale:
			return send("leave " + l.groupNoun + ": no Poll within max.poll.interval.ms"), true
		}
		return send("leave " + l.groupNoun), true
	}
	return reactor.Result{}, false
}

// Bound makes the poll timer's expiry bound r (PollTimer.Bound): a member
// waiting for an answer or its interval is polled again when
// max.poll.interval.ms expires, and the leave goes then, a heartbeat in
// flight or not (Java checks the poll timer on every poll).
func (l *Lifecycle) Bound(r reactor.Result) reactor.Result { return l.poll.Bound(r) }

// StaleLeave reports whether the leave under way is the poll timer's
// (max.poll.interval.ms passed): the member ends in MemberStale.
func (l *Lifecycle) StaleLeave() bool { return l.stale }

// InFlight reports whether a heartbeat whose answer applies is in flight.
func (l *Lifecycle) InFlight() bool { return l.inFlight }

// NextBeat is when the heartbeat interval elapses (zero: at once).
func (l *Lifecycle) NextBeat() time.Time { return l.nextBeat }

// Blocked answers Poll for a joining or stable member that cannot send a
// heartbeat now: one is in flight, the coordinator is unknown, or the
// heartbeat backoff runs; it reports false when none of these holds.
func (l *Lifecycle) Blocked(now time.Time, coordinatorKnown bool) (reactor.Result, bool) {
	switch {
	case l.inFlight:
		return reactor.Await(reactor.InputResponse, l.beat.inFlight), true
	case !coordinatorKnown:
		return reactor.Await(reactor.InputCoordinator, "coordinator unknown"), true
	}
	if next, waiting := l.errs.Backoff(now); waiting {
		return reactor.RetryAt(next, l.beat.backoff), true
	}
	return reactor.Result{}, false
}

// Due is the reason a joining or stable member that is not Blocked sends a
// heartbeat now: joining, acknowledging an assignment (ack, the regular
// consumer's), a changed subscription, or the interval elapsed. It is ""
// before the interval elapses, with the RetryAt to wait for.
func (l *Lifecycle) Due(now time.Time, ack bool) (string, reactor.Result) {
	switch {
	case l.state == MemberJoining:
		return "join " + l.groupNoun, reactor.Result{}
	case ack:
		return "acknowledge assignment", reactor.Result{}
	case l.sendSubs:
		return "subscription changed", reactor.Result{}
	case now.Before(l.nextBeat):
		return "", reactor.RetryAt(l.nextBeat, l.beat.interval)
	}
	return l.beat.elapsed, reactor.Result{}
}

// Heartbeat returns what every heartbeat carries, the same in both
// protocols: the group, the member id, the member epoch to send (0 when
// joining, -1 when leaving, else the member's) and the subscribed topics
// when joining or changed (else nil).
func (l *Lifecycle) Heartbeat() (group, memberID string, epoch int32, topics []string) {
	switch l.state {
	case MemberLeaving:
		return l.group, l.id, -1, nil
	case MemberJoining:
		return l.group, l.id, 0, l.subscription
	}
	if l.sendSubs {
		topics = l.subscription
	}
	return l.group, l.id, l.epoch, topics
}

// Send puts a heartbeat in flight in the member's state and returns it as
// Ready for reason. The interval runs send to send (Java's
// HeartbeatRequestState.onSendAttempt). answered gets its answer unless a
// later heartbeat (the leave) superseded it: that answer describes an older
// state.
func (l *Lifecycle) Send(now time.Time, reason string, call *Call, answered func(tx *reactor.Tx, resp any, err error)) reactor.Result {
	l.inFlight, l.flightState = true, l.state
	l.flight++
	seq := l.flight
	l.nextBeat = now.Add(l.interval)
	return reactor.Ready(reason, &reactor.Request{
		Payload: call,
		OnComplete: func(tx *reactor.Tx, resp any, err error) {
			if seq != l.flight {
				return
			}
			answered(tx, resp, err)
		},
	})
}

// Answer is what a membership manager still does with a heartbeat's
// answer once Lifecycle.Answered applied it. The zero value is invalid.
type Answer uint8

const (
	// AnswerDone: nothing; the lifecycle applied it (a leave answered, an
	// answer to an older state, an error after which the member waits).
	AnswerDone Answer = 1 + iota
	// AnswerAccept: a success; call Accept, then apply the protocol's part.
	AnswerAccept
	// AnswerRejoin: fenced; the member joins again with epoch 0 and the
	// manager gives up its assignment.
	AnswerRejoin
	// AnswerFatal: the member is MemberFatal; the manager gives up its
	// assignment.
	AnswerFatal
)

// Answered applies the answer (err: the transport's or the response's
// error) to a heartbeat sent to node in sentState:
//   - to a leave: the leave is best effort, as in today's consumers: any
//     answer, or a transport error, ends membership (the coordinator
//     removes a silent member at its session timeout). A coordinator error
//     still marks the coordinator unknown, and nothing then asks to find it
//     again for membership (KAFKA-18569). The member is left, stale after
//     the poll timer's leave, or joining again when asked to;
//   - to an older state (the state moved on while it was in flight, e.g.
//     Leave was called): dropped, its error still spacing the next attempt;
//   - an error: HeartbeatErrors.Apply; the next heartbeat after a wait goes
//     once the backoff or the rediscovery allows, not a whole interval
//     later (Java's HeartbeatRequestState.onFailedAttempt resets its timer).
func (l *Lifecycle) Answered(now time.Time, node int32, sentState MemberState, err error) Answer {
	l.inFlight = false
	if l.state == MemberLeaving && sentState == MemberLeaving {
		l.errs.Leave(node, err)
		l.state, l.epoch = MemberLeft, -1
		if l.stale {
			l.state, l.stale = MemberStale, false
		}
		if l.rejoin && len(l.subscription) > 0 {
			l.rejoin = false
			l.join()
		}
		return AnswerDone
	}
	if l.state != sentState && !(sentState == MemberJoining && l.state == MemberStable) {
		if err != nil {
			l.errs.Retry.Fail(now, err)
		}
		return AnswerDone
	}
	if err == nil {
		return AnswerAccept
	}
	switch l.errs.Apply(now, node, err) {
	case HeartbeatRejoin:
		l.state, l.epoch = MemberJoining, 0
		return AnswerRejoin
	case HeartbeatStop:
		l.state = MemberFatal
		return AnswerFatal
	}
	l.nextBeat = time.Time{}
	return AnswerDone
}

// Accept starts applying a successful answer: the heartbeat backoff and
// fencing count start over, and a member id the coordinator assigned
// replaces ours. Adopt applies the rest.
func (l *Lifecycle) Accept(memberID *string) {
	l.errs.Succeeded()
	if memberID != nil && *memberID != "" {
		l.id = *memberID
	}
}

// Adopt applies a successful answer's epoch and heartbeat interval: a
// joining member is stable, and a subscription sent (sentSubs) is
// acknowledged. The interval runs from the heartbeat's send (Send), as
// Java's HeartbeatRequestState.onSendAttempt resets its timer
// (KAFKA-16528): a slow answer does not push the next heartbeat later. Only
// a new interval restarts the timer, from this answer (Java's
// updateHeartbeatIntervalMs: updateAndReset when the value changes).
func (l *Lifecycle) Adopt(now time.Time, epoch, intervalMillis int32, sentSubs bool) {
	l.epoch = epoch
	if iv := time.Duration(intervalMillis) * time.Millisecond; iv > 0 && iv != l.interval {
		l.interval = iv
		l.nextBeat = now.Add(l.interval)
	}
	if l.state == MemberJoining {
		l.state = MemberStable
	}
	if sentSubs {
		l.sendSubs = false
	}
}

// LocalTimer is the heartbeat timer as today's heartbeat managers report it
// (package baseline): running whenever a group id is configured and the
// member has not left, including while a heartbeat is in flight
// (KAFKA-21031).
func (l *Lifecycle) LocalTimer() (time.Time, bool) {
	if l.group == "" || l.state == MemberLeft || l.state == MemberFatal || l.state == MemberStale {
		return time.Time{}, false
	}
	return l.nextBeat, true
}
