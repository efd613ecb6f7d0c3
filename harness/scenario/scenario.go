package scenario

import (
	"fmt"
	"time"

	"github.com/kreactor/kreactor/reports"
)

// Scenario is one parsed scenario file. It is plain data: a generator (issue
// 14's simulation runs) may build one, Format prints it as a file, and Parse
// of that file gives the same Scenario back.
type Scenario struct {
	File  string `yaml:"-"` // path as given
	Title string `yaml:"-"` // the opening "# ..." line, without "#"
	// ID is the spec id (label "id:"): lower-case words and digits joined
	// by '-' or '.' (reports.CheckSpecID), unique across files.
	ID string `yaml:"id"`
	// Covers are catalogue items (labels "covers:").
	Covers []string `yaml:"covers"`
	// Cluster is what the run needs from the target.
	Cluster ClusterSpec `yaml:"cluster,omitempty"`
	// Consumers in declaration order; the first is the default of every
	// step and expectation that names none. A file with one consumer
	// writes it as `consumer:` (named DefaultConsumer).
	Consumers []*ConsumerSpec `yaml:"-"`
	Steps     []*Step         `yaml:"steps"`
	Expect    []*Expectation  `yaml:"expect"`
	// Signals are the expectation keys that express the covered Jira's
	// symptom: the negative control (the baseline) must fail on one of
	// them. Required, with Liveness, for a file covering a
	// regression.
	Signals []string `yaml:"signals,omitempty"`
	// Liveness are the expectation keys that express progress (records
	// delivered, a commit completing, an error surfaced): the null control
	// (a consumer that never sends) must fail on one of them.
	Liveness []string `yaml:"liveness,omitempty"`
	// Evidence is the file's evidence: map, figure key -> minimum (see
	// Floors, which adds the floors the expectations imply).
	Evidence []reports.Floor `yaml:"-"`

	signalsLine, livenessLine, idLine, coversLine int // where the keys are, for errors
	evidenceLines                                 []int
}

// DefaultConsumer is the name of the consumer a file declares with
// `consumer:`.
const DefaultConsumer = "main"

// ClusterSpec is what the scenario needs from the target.
type ClusterSpec struct {
	// Brokers is 1..MaxBrokers; 0 (absent) means 3.
	Brokers int `yaml:"brokers,omitempty"`
	// Topics maps each topic to its partition count (1..MaxPartitions).
	Topics map[string]int32 `yaml:"topics,omitempty"`
	// HeartbeatInterval is group.consumer.heartbeat.interval.ms (and the
	// share groups'); 0 means harness.DefaultHeartbeatInterval.
	HeartbeatInterval Duration `yaml:"heartbeat_interval,omitempty"`
	// SessionTimeout is group.consumer.session.timeout.ms; 0 the target's.
	SessionTimeout Duration `yaml:"session_timeout,omitempty"`
	// ShareLockDuration is group.share.record.lock.duration.ms; 0 means
	// harness.DefaultShareLockDuration.
	ShareLockDuration Duration `yaml:"share_lock_duration,omitempty"`

	brokersLine int
}

// DefaultBrokers is the broker count of a file that names none.
const DefaultBrokers = 3

// brokers is the broker count the run asks for.
func (c ClusterSpec) brokers() int {
	if c.Brokers == 0 {
		return DefaultBrokers
	}
	return c.Brokers
}

// Duration is a Go duration written as "250ms" or "3s" in files.
type Duration time.Duration

// D is d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) String() string { return time.Duration(d).String() }

// MarshalYAML writes d as "250ms".
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// Error is a problem in a scenario file, with its position: every message a
// file gets at load reads file:line: "key": what is wrong.
type Error struct {
	File string
	Line int
	Key  string // the offending key or value, if any
	Msg  string
	Err  error // the underlying error (stat, open, read), if any
}

func (e *Error) Error() string {
	at := fmt.Sprintf("%s:%d", e.File, e.Line)
	if e.Line <= 0 { // about the file as a whole (it cannot be read): no line
		at = e.File
	}
	if e.Key != "" {
		return fmt.Sprintf("%s: %q: %s", at, e.Key, e.Msg)
	}
	return fmt.Sprintf("%s: %s", at, e.Msg)
}

// Unwrap returns the error behind Msg (a stat or open error), if any.
func (e *Error) Unwrap() error { return e.Err }

// ConsumerByName returns the consumer named name.
func (sc *Scenario) ConsumerByName(name string) (*ConsumerSpec, bool) {
	for _, c := range sc.Consumers {
		if c.Name == name {
			return c, true
		}
	}
	return nil, false
}

// defaultConsumer is the first consumer declared.
func (sc *Scenario) defaultConsumer() *ConsumerSpec { return sc.Consumers[0] }

// consumerOf resolves a step's or expectation's consumer name ("" is the
// first consumer).
func (sc *Scenario) consumerOf(name string) *ConsumerSpec {
	if name == "" {
		return sc.defaultConsumer()
	}
	c, _ := sc.ConsumerByName(name)
	return c
}
