package java

import (
	"errors"
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kreactor/kreactor/consumer"
)

// ErrJavaMissing is wrapped by every constructor's error when no java binary
// is found (JAVA_HOME/bin/java or PATH), or when the driver or a release must
// be built and mvn is not on PATH.
var ErrJavaMissing = errors.New("java subject: java (JDK 17+) or mvn (Maven 3.6.3+) not found; install them (Debian: apt-get install openjdk-17-jdk-headless maven)")

// ErrUnsupported is matched (errors.Is) by a *JavaError the driver raised
// because the running kafka-clients release lacks what a command needs, e.g.
// AcknowledgeType.RENEW before it was added.
var ErrUnsupported = errors.New("java subject: not supported by this kafka-clients release")

// ErrBadCommand is matched by a *JavaError the driver raised for a command it
// could not run as sent (unknown command, bad argument, no consumer yet). It
// means a bug on the Go side, never a Kafka behaviour.
var ErrBadCommand = errors.New("java subject: driver rejected the command")

// ErrMisuse is matched by a *JavaError kafka-clients threw because the
// caller broke the API's contract, not because of anything the broker or
// the client's state did: an IllegalStateException over the share
// consumer's acknowledgement mode (KafkaShareConsumer.acknowledge in
// implicit mode: "Implicit acknowledgement of delivery is being used";
// poll in explicit mode with records of the last poll unacknowledged: "All
// records must be acknowledged in explicit acknowledgement mode"), or over
// calling the consumer from a second thread ("KafkaConsumer is not safe
// for multi-threaded access"). Like ErrBadCommand it means a bug on the Go
// side; a verdict on the client must not rest on it.
var ErrMisuse = errors.New("java subject: the harness broke the kafka-clients API contract")

// misuseMessages are the lower-cased message fragments of the
// IllegalStateExceptions kafka-clients throws for a contract broken by
// its caller (ErrMisuse).
var misuseMessages = []string{
	"implicit acknowledgement of delivery is being used",
	"must be acknowledged in explicit acknowledgement mode",
	"not safe for multi-threaded access",
}

// ErrNoReply is wrapped by a *DriverError when the driver did not answer a
// call by its deadline; the driver was killed.
var ErrNoReply = errors.New("java subject: driver did not answer in time")

// Java exception classes the adapters map to the harness's errors.
const (
	classWakeup       = "org.apache.kafka.common.errors.WakeupException"
	classIllegalState = "java.lang.IllegalStateException"
	classBadCommand   = "dev.kreactor.driver.BadCommand"
	classUnsupported  = "dev.kreactor.driver.Unsupported"
)

// JavaError is an exception thrown by a kafka-clients call (or by the driver
// around it), as the driver reported it: the exception's class, its message
// and its causes, outermost first.
//
// errors.Is matches consumer.ErrWakeup for WakeupException,
// consumer.ErrClosed for IllegalStateException on a closed consumer,
// ErrMisuse for an exception over a contract the caller broke,
// ErrUnsupported and ErrBadCommand for the driver's own two classes.
type JavaError struct {
	Command string      `json:"-"`       // the driver command, e.g. "poll"
	Class   string      `json:"class"`   // e.g. org.apache.kafka.common.errors.WakeupException
	Message string      `json:"message"` // may be empty
	Causes  []JavaError `json:"causes"`  // getCause() chain below this one (at most 8)
}

func (e *JavaError) Error() string {
	var b strings.Builder
	b.WriteString("java")
	if e.Command != "" {
		b.WriteString(" ")
		b.WriteString(e.Command)
	}
	b.WriteString(": ")
	b.WriteString(e.Class)
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	for _, c := range e.Causes {
		fmt.Fprintf(&b, " (caused by %s: %s)", c.Class, c.Message)
	}
	return b.String()
}

// Is reports the harness errors this exception stands for (see JavaError),
// and a Kafka protocol error (a *kerr.Error) whose exception class
// (KafkaExceptionClass) is this exception or one of its causes (Java's
// TopicAuthorizationException is kerr.TopicAuthorizationFailed), or that a
// CommitFailedException names in its message.
func (e *JavaError) Is(target error) bool {
	if ke, ok := target.(*kerr.Error); ok {
		// CommitFailedException carries the broker's error in its message
		// only ("OffsetCommit failed with unknown member ID").
		named := e.HasClass("CommitFailedException") &&
			strings.Contains(strings.ToLower(e.Message), strings.ToLower(strings.ReplaceAll(ke.Message, "_", " ")))
		return named || e.HasClass(KafkaExceptionClass(ke))
	}
	switch target {
	case consumer.ErrWakeup:
		return e.Class == classWakeup
	case consumer.ErrClosed:
		return e.Class == classIllegalState && strings.Contains(strings.ToLower(e.Message), "closed")
	case ErrUnsupported:
		return e.Class == classUnsupported
	case ErrBadCommand:
		return e.Class == classBadCommand
	case ErrMisuse:
		return e.misuse()
	}
	return false
}

// misuse reports whether this is an exception over a contract the caller
// broke (ErrMisuse).
func (e *JavaError) misuse() bool {
	if e.Class != classIllegalState && !strings.HasSuffix(e.Class, ".ConcurrentModificationException") {
		return false
	}
	msg := strings.ToLower(e.Message)
	for _, m := range misuseMessages {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// CommitFailure reports whether this is Java's verdict on a failed commit:
// CommitFailedException, or RetriableCommitFailedException (the callback of
// a commitAsync that will not be retried), the black-box counterpart of the
// reactor's *group.CommitError (harness.IsCommitFailure).
func (e *JavaError) CommitFailure() bool {
	return e.HasClass("CommitFailedException") || e.HasClass("RetriableCommitFailedException")
}

// kafkaExceptionNames are the exception classes whose names do not follow
// from the error's name (org.apache.kafka.common.protocol.Errors).
var kafkaExceptionNames = map[string]string{
	"NOT_LEADER_FOR_PARTITION":         "NotLeaderOrFollowerException", // kerr's name for NOT_LEADER_OR_FOLLOWER
	"UNKNOWN_SERVER_ERROR":             "UnknownServerException",
	"CORRUPT_MESSAGE":                  "CorruptRecordException",
	"REQUEST_TIMED_OUT":                "TimeoutException",
	"NETWORK_EXCEPTION":                "NetworkException",
	"KAFKA_STORAGE_ERROR":              "KafkaStorageException",
	"UNSUPPORTED_VERSION":              "UnsupportedVersionException",
	"INVALID_REQUEST":                  "InvalidRequestException",
	"POLICY_VIOLATION":                 "PolicyViolationException",
	"SASL_AUTHENTICATION_FAILED":       "SaslAuthenticationException",
	"RECORD_LIST_TOO_LARGE":            "RecordBatchTooLargeException",
	"NOT_ENOUGH_REPLICAS_AFTER_APPEND": "NotEnoughReplicasAfterAppendException",
	"OFFSET_METADATA_TOO_LARGE":        "OffsetMetadataTooLarge", // kafka-clients' class has no Exception suffix
}

// KafkaExceptionClass is the simple name of the Java exception kafka-clients
// throws for a Kafka protocol error: the error's name in CamelCase plus
// "Exception", "..._AUTHORIZATION_FAILED" as "...AuthorizationException"
// (GROUP_AUTHORIZATION_FAILED: GroupAuthorizationException), and the few
// irregular names of Kafka's Errors enum.
func KafkaExceptionClass(ke *kerr.Error) string {
	if n, ok := kafkaExceptionNames[ke.Message]; ok {
		return n
	}
	name := strings.TrimSuffix(ke.Message, "_FAILED")
	if !strings.HasSuffix(name, "AUTHORIZATION") {
		name = ke.Message
	}
	var b strings.Builder
	for _, w := range strings.Split(name, "_") {
		if w == "" {
			continue
		}
		b.WriteString(w[:1])
		b.WriteString(strings.ToLower(w[1:]))
	}
	b.WriteString("Exception")
	return b.String()
}

// HasClass reports whether this exception or one of its causes has class
// (a fully qualified name, or the simple name).
func (e *JavaError) HasClass(class string) bool {
	match := func(c string) bool { return c == class || strings.HasSuffix(c, "."+class) }
	if match(e.Class) {
		return true
	}
	for _, c := range e.Causes {
		if match(c.Class) {
			return true
		}
	}
	return false
}

// DriverError says the driver process failed: it exited (Exit is its status),
// could not be started, broke the protocol, or stopped answering (Err wraps
// ErrNoReply; the driver was killed). Stderr is the tail of what it wrote.
type DriverError struct {
	Op     string // the call in progress, e.g. "poll", or "start"
	PID    int    // 0 if it never started
	Exit   string // e.g. "exit status 1", "signal: killed"; "" while running
	Err    error  // what went wrong
	Stderr string // last bytes of the driver's stderr
}

func (e *DriverError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "java driver (pid %d) failed during %s: %v", e.PID, e.Op, e.Err)
	if e.Exit != "" {
		fmt.Fprintf(&b, "; %s", e.Exit)
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		fmt.Fprintf(&b, "\n--- driver stderr (tail) ---\n%s\n---", s)
	} else {
		b.WriteString("; stderr empty")
	}
	return b.String()
}

func (e *DriverError) Unwrap() error { return e.Err }
