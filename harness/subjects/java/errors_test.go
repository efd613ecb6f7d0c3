package java

import (
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

// TestKafkaExceptionClass: the exception classes kafka-clients 4.4.0 throws
// for the protocol errors the specs inject (org.apache.kafka.common.errors),
// and JavaError matching the kerr value through its class or a cause.
func TestKafkaExceptionClass(t *testing.T) {
	for ke, want := range map[*kerr.Error]string{
		kerr.GroupAuthorizationFailed:  "GroupAuthorizationException",
		kerr.TopicAuthorizationFailed:  "TopicAuthorizationException",
		kerr.NotCoordinator:            "NotCoordinatorException",
		kerr.CoordinatorNotAvailable:   "CoordinatorNotAvailableException",
		kerr.UnknownMemberID:           "UnknownMemberIdException",
		kerr.FencedMemberEpoch:         "FencedMemberEpochException",
		kerr.NotLeaderForPartition:     "NotLeaderOrFollowerException",
		kerr.UnknownServerError:        "UnknownServerException",
		kerr.RequestTimedOut:           "TimeoutException",
		kerr.CoordinatorLoadInProgress: "CoordinatorLoadInProgressException",
	} {
		if got := KafkaExceptionClass(ke); got != want {
			t.Errorf("KafkaExceptionClass(%s) = %s, want %s", ke.Message, got, want)
		}
	}
	e := &JavaError{Class: "org.apache.kafka.clients.consumer.RetriableCommitFailedException",
		Causes: []JavaError{{Class: "org.apache.kafka.common.errors.NotCoordinatorException"}}}
	if !errors.Is(e, kerr.NotCoordinator) || errors.Is(e, kerr.CoordinatorNotAvailable) {
		t.Errorf("errors.Is by cause: NotCoordinator %v, CoordinatorNotAvailable %v", errors.Is(e, kerr.NotCoordinator), errors.Is(e, kerr.CoordinatorNotAvailable))
	}
	cf := &JavaError{Class: "org.apache.kafka.clients.consumer.CommitFailedException", Message: "OffsetCommit failed with unknown member ID. The coordinator is not aware of this member."}
	if !errors.Is(cf, kerr.UnknownMemberID) || errors.Is(cf, kerr.StaleMemberEpoch) {
		t.Error("CommitFailedException naming UNKNOWN_MEMBER_ID in its message: want errors.Is UnknownMemberID only")
	}
	if !e.CommitFailure() || (&JavaError{Class: "org.apache.kafka.common.errors.TimeoutException"}).CommitFailure() {
		t.Error("CommitFailure: want true for RetriableCommitFailedException only")
	}
}
