package managers

import (
	"crypto/rand"
	"encoding/base64"
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
