package managers

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
)

// NewMemberID returns a client-generated member id, as KIP-848 (heartbeat
// v1) and KIP-932 require: 16 random bytes in URL-safe base64, the shape of
// Kafka's Uuid.toString.
func NewMemberID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
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
	}
	return fmt.Sprintf("invalid(%d)", uint8(s))
}

// HeartbeatOutcome is what a heartbeat answer means for membership.
type HeartbeatOutcome uint8

const (
	HeartbeatOK          HeartbeatOutcome = 1 + iota // apply the answer
	HeartbeatCoordinator                             // rediscover the coordinator, retry after a backoff
	HeartbeatFenced                                  // give up the assignment, rejoin with epoch 0
	HeartbeatRetriable                               // retry after a backoff
	HeartbeatFatal                                   // stop: the error goes to the application
)

// ClassifyHeartbeat maps a heartbeat's transport or Kafka error to its
// outcome (ConsumerGroupHeartbeat and ShareGroupHeartbeat answer the same
// codes).
func ClassifyHeartbeat(err error) HeartbeatOutcome {
	switch {
	case err == nil:
		return HeartbeatOK
	case IsCoordinatorError(err):
		return HeartbeatCoordinator
	case errors.Is(err, kerr.UnknownMemberID), errors.Is(err, kerr.FencedMemberEpoch):
		return HeartbeatFenced
	case kerr.IsRetriable(err):
		return HeartbeatRetriable
	}
	return HeartbeatFatal
}
