package managers

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	mrand "math/rand/v2"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/reactor"
)

// NewMemberID returns a client-generated member id, as KIP-848 (heartbeat
// v1) and KIP-932 require: 16 random bytes in URL-safe base64, the shape of
// Kafka's Uuid.toString.
func NewMemberID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// NewMemberIDFrom is NewMemberID with its 16 bytes drawn from src (two
// Uint64 calls), for seeded runs: the same source state gives the same id.
func NewMemberIDFrom(src mrand.Source) string {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], src.Uint64())
	binary.LittleEndian.PutUint64(b[8:], src.Uint64())
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// CompareTopicID orders topic ids bytewise (for deterministic requests).
func CompareTopicID(a, b [16]byte) int {
	for i := range a {
		if a[i] != b[i] {
			return int(a[i]) - int(b[i])
		}
	}
	return 0
}

// CompareTopicPartition orders by topic, then partition.
func CompareTopicPartition(a, b TopicPartition) int {
	if a.Topic != b.Topic {
		if a.Topic < b.Topic {
			return -1
		}
		return 1
	}
	return int(a.Partition - b.Partition)
}

// MemberState is a group member's lifecycle, the same for a KIP-848 and a
// KIP-932 member (their protocol rules stay in managers/group and
// managers/share). The zero value is invalid.
type MemberState uint8

const (
	// MemberUnsubscribed: not subscribed; no heartbeats (manual
	// assignment, or before Subscribe).
	MemberUnsubscribed MemberState = 1 + iota
	// MemberJoining: a heartbeat with epoch 0 is due or in flight.
	MemberJoining
	// MemberStable: the member has an epoch > 0 and heartbeats on its
	// interval.
	MemberStable
	// MemberLeaving: a heartbeat with epoch -1 is due or in flight.
	MemberLeaving
	// MemberLeft: the leave was answered (or not needed).
	MemberLeft
	// MemberFatal: the coordinator answered a non-retriable error.
	MemberFatal
	// MemberStale: the member left the group because the application did
	// not call Poll within max.poll.interval.ms (Java's MemberState.STALE);
	// no heartbeats, no assignment; the next Poll joins again with epoch 0.
	MemberStale
)

func (s MemberState) String() string {
	switch s {
	case MemberUnsubscribed:
		return "unsubscribed"
	case MemberJoining:
		return "joining"
	case MemberStable:
		return "stable"
	case MemberLeaving:
		return "leaving"
	case MemberLeft:
		return "left"
	case MemberFatal:
		return "fatal"
	case MemberStale:
		return "stale"
	}
	return fmt.Sprintf("invalid(%d)", uint8(s))
}

// HeartbeatAction is what a membership manager does to its own state after
// a heartbeat error; the rest (backoff, coordinator, errors owed) is done by
// HeartbeatErrors.Apply.
type HeartbeatAction uint8

const (
	// HeartbeatWait: keep the state; the next heartbeat waits for the
	// backoff or the rediscovered coordinator.
	HeartbeatWait HeartbeatAction = 1 + iota
	// HeartbeatRejoin: fenced: give up the assignment and join with epoch 0.
	HeartbeatRejoin
	// HeartbeatStop: fatal: give up the assignment and become MemberFatal;
	// the error is LastError.
	HeartbeatStop
)

// HeartbeatErrors is the heartbeat error handling both membership managers
// share (ConsumerGroupHeartbeat and ShareGroupHeartbeat answer alike): the
// retry backoff, the fencing count, the coordinator, and the errors owed to
// the application. Loop goroutine only.
type HeartbeatErrors struct {
	API   kmsg.Key // kmsg.ConsumerGroupHeartbeat or kmsg.ShareGroupHeartbeat
	Coord *Coordinator
	Retry Retry

	fences    int // fencing answers since the last successful heartbeat
	owed      Owed
	coordSeen uint64 // the coordinator failure already raised
}

// Apply classifies a heartbeat error sent to node (the error table, API at
// ScopeResponse) and does what its class asks:
//   - coordinator moved: mark it unknown; the heartbeat goes once it is
//     found again (discovery carries the backoff);
//   - fenced: rejoin at once the first time, after the growing backoff
//     when fenced again before a heartbeat succeeds (CONTRACT-4);
//   - fatal (including GROUP_AUTHORIZATION_FAILED): stop;
//   - authorization or failed, not fatal: owe the error to the application
//     and retry after the backoff;
//   - retriable: retry after the backoff.
func (h *HeartbeatErrors) Apply(now time.Time, node int32, err error) HeartbeatAction {
	row := Classify(h.API, ScopeResponse, err)
	switch {
	case row.Class == ClassCoordinator:
		h.Coord.MarkUnknown(node, err)
		h.Retry.Note(err)
		return HeartbeatWait
	case row.Class == ClassFenced:
		h.fences++
		if h.fences > 1 {
			h.Retry.Fail(now, err)
		} else {
			h.Retry.Note(err)
		}
		return HeartbeatRejoin
	case row.Fatal:
		h.Retry.Note(err)
		return HeartbeatStop
	case row.Class == ClassAuthorization, row.Class == ClassFailed:
		h.owed.Report(err)
	}
	h.Retry.Fail(now, err)
	return HeartbeatWait
}

// Leave applies the answer to a leave heartbeat (best effort: any answer
// ends membership): a coordinator-moving error still marks the coordinator
// unknown.
func (h *HeartbeatErrors) Leave(node int32, err error) {
	if Class(h.API, ScopeResponse, err) == ClassCoordinator {
		h.Coord.MarkUnknown(node, err)
	}
	h.Retry.Note(err)
}

// Succeeded records a successful heartbeat: the backoff, the fencing count
// and the coordinator's rediscovery backoff start over.
func (h *HeartbeatErrors) Succeeded() {
	h.Retry.Succeed()
	h.fences = 0
	h.Coord.Confirm()
}

// RaiseCoordinatorFailure owes the application a coordinator discovery
// failure once per failed FindCoordinator, in any member state (Java's
// AbstractHeartbeatRequestManager.maybePropagateCoordinatorFatalErrorEvent).
// It asks for a repoll so a Poll waiting in the application manager, polled
// earlier in the round, is answered in this step.
func (h *HeartbeatErrors) RaiseCoordinatorFailure(tx *reactor.Tx) {
	if err, seq := h.Coord.Failure(); err != nil && seq != h.coordSeen {
		h.coordSeen = seq
		h.owed.Report(err)
		tx.Repoll()
	}
}

// Backoff reports whether now is inside the heartbeat backoff, and its end.
func (h *HeartbeatErrors) Backoff(now time.Time) (time.Time, bool) { return h.Retry.Waiting(now) }

// TakeErrors returns and clears the errors owed to the application that do
// not stop membership.
func (h *HeartbeatErrors) TakeErrors() []error { return h.owed.Take() }

// Fences is the number of fencing answers since the last successful
// heartbeat.
func (h *HeartbeatErrors) Fences() int { return h.fences }
