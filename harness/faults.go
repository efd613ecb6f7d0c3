package harness

import (
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// FaultKind names one fault of the vocabulary every target offers (kfake
// through fakebroker; real Kafka through the recording proxy). The zero
// value is invalid.
type FaultKind uint8

const (
	// FaultCoordinatorUnavailable: FindCoordinator for Group answers
	// COORDINATOR_NOT_AVAILABLE; the group's heartbeats, commits and offset
	// fetches answer NOT_COORDINATOR.
	FaultCoordinatorUnavailable FaultKind = 1 + iota
	// FaultError: requests with Key (for Topic, if set; for which When
	// holds, if set) are answered with Err instead of being applied.
	FaultError
	// FaultHold: requests with Key get no answer until healed.
	FaultHold
	// FaultDelay: requests with Key are answered after Delay.
	FaultDelay
	// FaultBrokersDown: every broker (of Nodes, if set) drops the
	// connection of every request (the brokers are unreachable; they keep
	// accepting connections) until healed.
	FaultBrokersDown
	// FaultBlackHole: every broker (of Nodes, if set) accepts connections
	// and reads requests but never answers any, until healed (a
	// connection black hole); held requests are answered after Heal.
	FaultBlackHole
	// FaultRefuse: every broker (of Nodes, if set) refuses new
	// connections and closes its open ones until healed; leadership and
	// coordination do not move (a broker that is down or restarting
	// before the controller notices; with one broker, a stopped cluster).
	FaultRefuse
)

var faultKindNames = map[FaultKind]string{
	FaultCoordinatorUnavailable: "coordinator-unavailable",
	FaultError:                  "error",
	FaultHold:                   "hold",
	FaultDelay:                  "delay",
	FaultBrokersDown:            "brokers-down",
	FaultBlackHole:              "black-hole",
	FaultRefuse:                 "refuse",
}

func (k FaultKind) String() string {
	if n, ok := faultKindNames[k]; ok {
		return n
	}
	return fmt.Sprintf("invalid(%d)", uint8(k))
}

// ParseFaultKind returns the kind named s ("hold", ...), or false.
func ParseFaultKind(s string) (FaultKind, bool) {
	for k, n := range faultKindNames {
		if n == s {
			return k, true
		}
	}
	return 0, false
}

// FaultKindNames lists the fault kinds' names, for error messages.
func FaultKindNames() []string {
	out := make([]string, 0, len(faultKindNames))
	for k := FaultCoordinatorUnavailable; k <= FaultRefuse; k++ {
		out = append(out, k.String())
	}
	return out
}

// FaultSpec describes one fault. Which fields matter depends on Kind.
type FaultSpec struct {
	Kind  FaultKind
	Key   kmsg.Key    // FaultError, FaultHold, FaultDelay
	Group string      // FaultCoordinatorUnavailable
	Topic string      // FaultError: only entities of this topic ("" all)
	Err   *kerr.Error // FaultError
	Delay time.Duration
	// When, if set, selects requests by their body (FaultError, FaultHold,
	// FaultDelay); it runs on the broker's request path, is asked once per
	// request of Key (on the Nodes) and must not block.
	When func(kmsg.Request) bool
	// Nodes, if set, limits the fault to requests to (connections of)
	// these brokers; every kind but FaultCoordinatorUnavailable.
	Nodes []int32
}

// Validate reports a FaultSpec that cannot be installed, naming the field.
func (s FaultSpec) Validate() error {
	if s.When != nil && s.Kind != FaultError && s.Kind != FaultHold && s.Kind != FaultDelay {
		return fmt.Errorf("fault %s: When selects requests of error, hold and delay faults only", s.Kind)
	}
	if len(s.Nodes) > 0 && s.Kind == FaultCoordinatorUnavailable {
		return fmt.Errorf("fault %s: Nodes does not apply (the group's coordinator is wherever it is)", s.Kind)
	}
	switch s.Kind {
	case FaultCoordinatorUnavailable:
		if s.Group == "" {
			return fmt.Errorf("fault %s: group is required", s.Kind)
		}
	case FaultError:
		if s.Err == nil {
			return fmt.Errorf("fault %s: error code is required", s.Kind)
		}
		fallthrough
	case FaultHold, FaultDelay:
		if kmsg.RequestForKey(int16(s.Key)) == nil {
			return fmt.Errorf("fault %s: unknown API key %d", s.Kind, s.Key)
		}
		if s.Kind == FaultDelay && s.Delay <= 0 {
			return fmt.Errorf("fault %s: delay must be > 0, got %s", s.Kind, s.Delay)
		}
	case FaultBrokersDown, FaultBlackHole, FaultRefuse:
	default:
		return fmt.Errorf("fault kind %s: unknown (known: %v)", s.Kind, FaultKindNames())
	}
	return nil
}

// Observed is one request body seen by Cluster.Observe.
type Observed struct {
	At  time.Time
	Req kmsg.Request
}
