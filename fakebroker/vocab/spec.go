package vocab

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Kind names one fault both targets install (kfake through fakebroker, real
// Kafka through the recording proxy). The zero value is invalid. Its names
// are those of Defs.
type Kind uint8

const (
	// CoordinatorUnavailable: FindCoordinator for Group answers
	// COORDINATOR_NOT_AVAILABLE; the group's heartbeats, commits and offset
	// fetches answer NOT_COORDINATOR.
	CoordinatorUnavailable Kind = 1 + iota
	// Error: requests with Key (for Topic, if set; for which When holds,
	// if set) are answered with Err instead of being applied.
	Error
	// Hold: requests with Key get no answer until healed.
	Hold
	// Delay: requests with Key are answered after Delay.
	Delay
	// BrokersDown: every broker (of Nodes, if set) drops the connection of
	// every request (the brokers are unreachable; they keep accepting
	// connections) until healed.
	BrokersDown
	// BlackHole: every broker (of Nodes, if set) accepts connections and
	// reads requests but never answers any, until healed (a connection
	// black hole); held requests are answered after Heal.
	BlackHole
	// Refuse: every broker (of Nodes, if set) refuses new connections and
	// closes its open ones until healed; leadership and coordination do
	// not move (a broker that is down or restarting before the controller
	// notices; with one broker, a stopped cluster).
	Refuse
)

var kindNames = map[Kind]string{
	CoordinatorUnavailable: "coordinator-unavailable",
	Error:                  "error",
	Hold:                   "hold",
	Delay:                  "delay",
	BrokersDown:            "brokers-down",
	BlackHole:              "black-hole",
	Refuse:                 "refuse",
}

func (k Kind) String() string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return fmt.Sprintf("invalid(%d)", uint8(k))
}

// ParseKind returns the Kind named s ("hold", ...), or false. The kinds
// restart and stop-broker of Defs are not Kinds: they are installed by
// stopping brokers, not as a Spec.
func ParseKind(s string) (Kind, bool) {
	for k, n := range kindNames {
		if n == s {
			return k, true
		}
	}
	return 0, false
}

// KindNames lists the Kinds' names, in Kind order, for error messages.
func KindNames() []string {
	out := make([]string, 0, len(kindNames))
	for _, k := range slices.Sorted(maps.Keys(kindNames)) {
		out = append(out, k.String())
	}
	return out
}

// Spec describes one fault. Which fields matter depends on Kind.
type Spec struct {
	Kind  Kind
	Key   kmsg.Key    // Error, Hold, Delay
	Group string      // CoordinatorUnavailable
	Topic string      // Error: only entities of this topic ("" all)
	Err   *kerr.Error // Error
	Delay time.Duration
	// When, if set, selects requests by their body (Error, Hold, Delay);
	// it runs on the broker's request path, is asked once per request of
	// Key (on the Nodes) and must not block.
	When func(kmsg.Request) bool
	// Nodes, if set, limits the fault to requests to (connections of)
	// these brokers; every kind but CoordinatorUnavailable.
	Nodes []int32
}

// Validate reports a Spec that cannot be installed, naming the field.
func (s Spec) Validate() error {
	if s.When != nil && s.Kind != Error && s.Kind != Hold && s.Kind != Delay {
		return fmt.Errorf("fault %s: When selects requests of error, hold and delay faults only", s.Kind)
	}
	if len(s.Nodes) > 0 && s.Kind == CoordinatorUnavailable {
		return fmt.Errorf("fault %s: Nodes does not apply (the group's coordinator is wherever it is)", s.Kind)
	}
	if s.Topic != "" && s.Kind != Error {
		return fmt.Errorf("fault %s: Topic selects entities of error faults only", s.Kind)
	}
	if s.Topic != "" && !CarriesTopics(s.Key) {
		return fmt.Errorf("fault %s: %s requests carry no topic, so topic %q would never match", s.Kind, s.Key.Name(), s.Topic)
	}
	switch s.Kind {
	case CoordinatorUnavailable:
		if s.Group == "" {
			return fmt.Errorf("fault %s: group is required", s.Kind)
		}
	case Error:
		if s.Err == nil {
			return fmt.Errorf("fault %s: error code is required", s.Kind)
		}
		fallthrough
	case Hold, Delay:
		if kmsg.RequestForKey(int16(s.Key)) == nil {
			return fmt.Errorf("fault %s: unknown API key %d", s.Kind, s.Key)
		}
		if s.Kind == Delay && s.Delay <= 0 {
			return fmt.Errorf("fault %s: delay must be > 0, got %s", s.Kind, s.Delay)
		}
	case BrokersDown, BlackHole, Refuse:
	default:
		return fmt.Errorf("fault kind %s: unknown (known: %v)", s.Kind, KindNames())
	}
	return nil
}
