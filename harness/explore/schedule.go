package explore

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Schedule is one simulation run as plain data: the workload, each member's
// client actions on a timeline and the faults. Every time is an offset from
// the run's start (virtual time inside a bubble). A Schedule is a value:
// Gen draws it from a seed, Run executes it, Scenario writes it out, and
// JSON round-trips it.
type Schedule struct {
	Brokers int             `json:"brokers"` // cluster size, 1..3
	Topics  []Topic         `json:"topics"`  // at least one
	Share   bool            `json:"share"`   // the members form a share group (KIP-932) instead of a regular one (KIP-848)
	Produce ProduceWorkload `json:"produce"`
	Members []Member        `json:"members"` // 1..3, in one group
	Faults  []Fault         `json:"faults"`
	// Length is when the timeline ends: members still open are closed
	// then with EndCloseTimeout.
	Length time.Duration `json:"length"`
}

// Topic is a topic of the workload.
type Topic struct {
	Name       string `json:"name"`
	Partitions int32  `json:"partitions"` // 1..4
}

// ProduceWorkload is the producer: Initial records to the first topic before
// any member starts, then Batch records to every topic every Every until
// Length (Batch 0: no background producer).
type ProduceWorkload struct {
	Initial int           `json:"initial"` // records, 0..300
	Batch   int           `json:"batch"`   // records per tick, 0..20
	Every   time.Duration `json:"every"`   // 50 ms..500 ms
}

// Member is one consumer: when it starts, its settings, and its actions.
// Between actions it polls in a loop with its current poll timeout (the
// application's main loop), unless stalled or closed.
type Member struct {
	Name            string        `json:"name"`
	Start           time.Duration `json:"start"` // when it subscribes to every topic
	AutoCommit      bool          `json:"auto_commit"`
	MaxPollInterval time.Duration `json:"max_poll_interval"` // max.poll.interval.ms, 1 s..5 s (regular only)
	PollTimeout     time.Duration `json:"poll_timeout"`      // the main loop's initial poll timeout
	Actions         []Action      `json:"actions"`           // by At (Gen sorts them)
}

// ActionKind is a client action. The zero value is invalid.
type ActionKind uint8

const (
	ActPoll        ActionKind = 1 + iota // set the main loop's poll timeout to Timeout
	ActCommitSync                        // CommitSync with Timeout
	ActCommitAsync                       // CommitAsync (regular) / CommitAsync (share)
	ActPause                             // pause every assigned partition (regular)
	ActResume                            // resume every assigned partition (regular)
	ActWakeup                            // Wakeup from another goroutine, while the main loop polls
	ActSubscribe                         // subscribe to Topics (indexes into Schedule.Topics)
	ActStall                             // stop polling for Timeout (past max.poll.interval.ms when longer)
	ActClose                             // Close with Timeout as the deadline; the member ends
	ActAckRelease                        // share: the next batch is released instead of accepted
)

var actionNames = map[ActionKind]string{
	ActPoll: "poll", ActCommitSync: "commit-sync", ActCommitAsync: "commit-async", ActPause: "pause",
	ActResume: "resume", ActWakeup: "wakeup", ActSubscribe: "subscribe", ActStall: "stall", ActClose: "close",
	ActAckRelease: "ack-release",
}

func (k ActionKind) String() string { return kindName(actionNames, k, "action") }

// MarshalText writes the action's name.
func (k ActionKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads an action's name; an unknown name is an error naming it.
func (k *ActionKind) UnmarshalText(b []byte) error { return parseKind(actionNames, k, b, "action") }

// Action is one client action of a member.
type Action struct {
	At      time.Duration `json:"at"`
	Kind    ActionKind    `json:"kind"`
	Timeout time.Duration `json:"timeout,omitempty"` // poll, commit-sync, stall, close
	Topics  []int         `json:"topics,omitempty"`  // subscribe
}

// FaultKind is a fault of the vocabulary (fakebroker's helpers; the kinds
// harness.FaultSpec names plus node-level ones). The zero value is invalid.
type FaultKind uint8

const (
	FaultError           FaultKind = 1 + iota // requests of Key answered with Code (Count requests, -1 until healed)
	FaultDelay                                // requests of Key answered after Delay
	FaultHold                                 // requests of Key get no answer until healed (a black hole for one API)
	FaultDrop                                 // node Node closes the connection of every request
	FaultStop                                 // node Node is down (stops listening); heal restarts it
	FaultCoordinatorDown                      // the group's coordinator looks like it is failing over
	FaultCoordinatorMove                      // the group's coordinator node stops (coordination moves); heal restarts it
	FaultBrokersDown                          // every node closes every connection
	FaultBlackHole                            // node Node reads requests and answers none
	FaultRefuse                               // node Node refuses connections (its open ones close); leadership stays
)

var faultNames = map[FaultKind]string{
	FaultError: "error", FaultDelay: "delay", FaultHold: "hold", FaultDrop: "drop", FaultStop: "stop",
	FaultCoordinatorDown: "coordinator-unavailable", FaultCoordinatorMove: "coordinator-move", FaultBrokersDown: "brokers-down",
	FaultBlackHole: "black-hole", FaultRefuse: "refuse",
}

func (k FaultKind) String() string { return kindName(faultNames, k, "fault") }

// MarshalText writes the fault's name.
func (k FaultKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a fault's name; an unknown name is an error naming it.
func (k *FaultKind) UnmarshalText(b []byte) error { return parseKind(faultNames, k, b, "fault") }

// kindName is k's name in names, or "invalid-<what>(<k>)" for a kind
// names lacks.
func kindName[K ~uint8](names map[K]string, k K, what string) string {
	if n, ok := names[k]; ok {
		return n
	}
	return fmt.Sprintf("invalid-%s(%d)", what, uint8(k))
}

// parseKind sets *k to the kind names calls b; an unknown name is an error
// naming it and what it is.
func parseKind[K ~uint8](names map[K]string, k *K, b []byte, what string) error {
	for kind, n := range names {
		if n == string(b) {
			*k = kind
			return nil
		}
	}
	return fmt.Errorf("explore: unknown %s %q", what, b)
}

// Fault is one fault on the timeline: installed At, healed At+For.
type Fault struct {
	At    time.Duration `json:"at"`
	For   time.Duration `json:"for"`
	Kind  FaultKind     `json:"kind"`
	Key   int16         `json:"key,omitempty"`   // API key (error, delay, hold)
	Code  int16         `json:"code,omitempty"`  // Kafka error code (error)
	Count int           `json:"count,omitempty"` // error / delay: requests affected, -1 until healed
	Delay time.Duration `json:"delay,omitempty"` // delay
	Node  int32         `json:"node,omitempty"`  // drop, stop, black-hole, refuse
}

// Group is the group every member joins.
const Group = "explore"

// EndCloseTimeout is the Close deadline of members still open at Length.
const EndCloseTimeout = 5 * time.Second

// Size is the schedule's size for shrinking figures: members, actions and
// faults.
func (s Schedule) Size() int {
	n := len(s.Members) + len(s.Faults)
	for _, m := range s.Members {
		n += len(m.Actions)
	}
	return n
}

// JSON renders s as indented JSON (the replay form).
func (s Schedule) JSON() []byte {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic(fmt.Sprintf("explore: marshal schedule: %v", err)) // plain data: cannot fail
	}
	return b
}

// ParseSchedule reads a schedule written by JSON.
func ParseSchedule(b []byte) (Schedule, error) {
	var s Schedule
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("explore: schedule: %w", err)
	}
	return s, s.Validate()
}

// Validate reports a schedule Run cannot execute, naming the bad value.
func (s Schedule) Validate() error {
	switch {
	case s.Brokers < 1 || s.Brokers > 5:
		return fmt.Errorf("explore: brokers = %d: must be 1..5", s.Brokers)
	case len(s.Topics) == 0:
		return fmt.Errorf("explore: no topics")
	case len(s.Members) == 0:
		return fmt.Errorf("explore: no members")
	case s.Length <= 0:
		return fmt.Errorf("explore: length = %s: must be > 0", s.Length)
	case s.Produce.Batch > 0 && s.Produce.Every <= 0:
		return fmt.Errorf("explore: produce.every = %s: must be > 0 with a batch", s.Produce.Every)
	}
	for _, t := range s.Topics {
		if t.Partitions < 1 {
			return fmt.Errorf("explore: topic %q partitions = %d: must be >= 1", t.Name, t.Partitions)
		}
	}
	for _, m := range s.Members {
		for _, a := range m.Actions {
			if _, ok := actionNames[a.Kind]; !ok {
				return fmt.Errorf("explore: member %s: action kind %d unknown", m.Name, a.Kind)
			}
			for _, i := range a.Topics {
				if i < 0 || i >= len(s.Topics) {
					return fmt.Errorf("explore: member %s: subscribe topic index %d: only %d topics", m.Name, i, len(s.Topics))
				}
			}
		}
	}
	for _, f := range s.Faults {
		if _, ok := faultNames[f.Kind]; !ok {
			return fmt.Errorf("explore: fault kind %d unknown", f.Kind)
		}
		if (f.Kind == FaultDrop || f.Kind == FaultStop || f.Kind == FaultBlackHole || f.Kind == FaultRefuse) && (f.Node < 0 || int(f.Node) >= s.Brokers) {
			return fmt.Errorf("explore: fault %s node %d: only %d brokers", f.Kind, f.Node, s.Brokers)
		}
	}
	return nil
}

// String is a one-line summary.
func (s Schedule) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "brokers=%d share=%v length=%s produce=%d+%d/%s members=%d faults=%d", s.Brokers, s.Share, s.Length,
		s.Produce.Initial, s.Produce.Batch, s.Produce.Every, len(s.Members), len(s.Faults))
	return b.String()
}
