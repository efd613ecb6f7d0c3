package harness

import (
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/fakebroker/vocab"
)

// FaultKind names one fault of the vocabulary every target offers (kfake
// through fakebroker; real Kafka through the recording proxy): vocab.Kind,
// the same kinds scenario files and the control API name.
type FaultKind = vocab.Kind

// The fault kinds (see vocab.Kind for each).
const (
	FaultCoordinatorUnavailable = vocab.CoordinatorUnavailable
	FaultError                  = vocab.Error
	FaultHold                   = vocab.Hold
	FaultDelay                  = vocab.Delay
	FaultBrokersDown            = vocab.BrokersDown
	FaultBlackHole              = vocab.BlackHole
	FaultRefuse                 = vocab.Refuse
)

// ParseFaultKind returns the kind named s ("hold", ...), or false.
func ParseFaultKind(s string) (FaultKind, bool) { return vocab.ParseKind(s) }

// FaultSpec describes one fault (vocab.Spec). Which fields matter depends
// on Kind.
type FaultSpec = vocab.Spec

// Observed is one request body seen by Cluster.Observe.
type Observed struct {
	At  time.Time
	Req kmsg.Request
}
