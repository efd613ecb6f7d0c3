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
		kerr.OffsetMetadataTooLarge:    "OffsetMetadataTooLarge", // no Exception suffix: the scenario fault-selectors-join-retry on java showed it
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

// TestMisuse: the IllegalStateExceptions kafka-clients 4.4.0 throws for a
// contract its caller broke (the messages are ShareConsumerImpl's and
// AsyncKafkaConsumer's) match ErrMisuse; a closed consumer and a Kafka
// error do not.
func TestMisuse(t *testing.T) {
	for _, c := range []struct {
		e    *JavaError
		want bool
	}{
		{&JavaError{Class: classIllegalState, Message: "Implicit acknowledgement of delivery is being used."}, true},
		{&JavaError{Class: classIllegalState, Message: "All records must be acknowledged in explicit acknowledgement mode."}, true},
		{&JavaError{Class: "java.util.ConcurrentModificationException", Message: "KafkaConsumer is not safe for multi-threaded access. currentThread(name: a, id: 1)"}, true},
		{&JavaError{Class: classIllegalState, Message: "This consumer has already been closed."}, false},
		{&JavaError{Class: "org.apache.kafka.common.errors.InvalidRecordStateException", Message: "Implicit acknowledgement of delivery is being used."}, false},
	} {
		if got := errors.Is(c.e, ErrMisuse); got != c.want {
			t.Errorf("errors.Is(%v, ErrMisuse) = %v, want %v", c.e, got, c.want)
		}
	}
}
