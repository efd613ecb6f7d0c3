package managers

// Coordinator discovery.
//
// Kafka API: FindCoordinator (key 10) v4+ (batched CoordinatorKeys; KIP-699),
// key type 0 (group, KIP-848 consumer) or 2 (share, KIP-932).
// Answers: KAFKA-20253 (FindCoordinator in flight past its backoff must be an
// Await, not a zero wait), KAFKA-18569 (discovery stops once nothing needs the
// coordinator), KAFKA-19357 (closing code asks Needed, never stops discovery
// behind a pending commit's back).

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/reactor"
)

// Coordinator key types (FindCoordinator KeyType).
const (
	KeyTypeGroup int8 = 0
	KeyTypeShare int8 = 2
)

// Coordinator finds and remembers the coordinator for one key. It is a
// request manager: Poll runs on the loop goroutine only.
type Coordinator struct {
	key     string
	keyType int8

	node     int32 // -1 when unknown
	addr     string
	inFlight bool
	retry    Retry // FindCoordinator failures and their backoff
	found    int   // successful discoveries, for figures
	needed   bool  // as of the last poll
}

// NewCoordinator returns a coordinator manager for key (the group id) of
// keyType, retrying with backoff.
func NewCoordinator(key string, keyType int8, backoff Backoff) *Coordinator {
	return &Coordinator{key: key, keyType: keyType, retry: Retry{Backoff: backoff}, node: -1}
}

// Name is "coordinator".
func (c *Coordinator) Name() string { return "coordinator" }

// Known returns the coordinator's node and address when known.
func (c *Coordinator) Known() (Broker, bool) {
	if c.node < 0 {
		return Broker{}, false
	}
	return Broker{Node: c.node, Addr: c.addr}, true
}

// LastError is the error of the last failed discovery, or nil.
func (c *Coordinator) LastError() error { return c.retry.Err() }

// MarkUnknown forgets the coordinator after a request to it failed with
// NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE or a connection error. The next
// discovery is not delayed unless earlier attempts failed.
func (c *Coordinator) MarkUnknown(err error) {
	if c.node >= 0 {
		c.node, c.addr = -1, ""
		c.retry.Note(err)
	}
}

// Poll answers whether a FindCoordinator can be sent. needed says whether
// any outstanding work needs the coordinator (membership, commits, close-time
// work); without it discovery is idle (KAFKA-18569). addrs are the brokers a
// FindCoordinator may go to.
func (c *Coordinator) Poll(tx *reactor.Tx, needed bool, addrs []string) reactor.Result {
	c.needed = needed
	switch {
	case c.node >= 0:
		return reactor.Idle("coordinator known")
	case !needed:
		return reactor.Idle("coordinator not needed")
	case c.inFlight:
		return reactor.Await(reactor.InputResponse, "FindCoordinator in flight")
	case tx.Now.Before(c.retry.Next()):
		return reactor.RetryAt(c.retry.Next(), "FindCoordinator backoff")
	case len(addrs) == 0:
		return reactor.Await(reactor.InputMetadata, "no broker address known")
	}
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.CoordinatorType = c.keyType
	req.CoordinatorKeys = []string{c.key}
	req.CoordinatorKey = c.key
	c.inFlight = true
	return reactor.Ready("coordinator unknown", &reactor.Request{
		Payload:    &Call{Node: AnyNode, Addrs: addrs, Req: req},
		OnComplete: c.onResponse,
	})
}

func (c *Coordinator) onResponse(tx *reactor.Tx, resp any, err error) {
	c.inFlight = false
	if err == nil {
		err = c.applyResponse(resp)
	}
	if err != nil {
		c.retry.Fail(tx.Now, err)
		return
	}
	c.retry.Succeed()
	c.found++
}

func (c *Coordinator) applyResponse(resp any) error {
	r, err := As[*kmsg.FindCoordinatorResponse](kmsg.FindCoordinator, AnyNode, resp)
	if err != nil {
		return err
	}
	node, host, port, code := r.NodeID, r.Host, r.Port, r.ErrorCode
	if len(r.Coordinators) > 0 { // v4+
		k := r.Coordinators[0]
		node, host, port, code = k.NodeID, k.Host, k.Port, k.ErrorCode
	}
	if err := kerr.ErrorForCode(code); err != nil {
		return err
	}
	if node < 0 || host == "" || port <= 0 {
		return &ResponseError{Key: kmsg.FindCoordinator, Node: AnyNode, Detail: fmt.Sprintf("coordinator node %d at %q:%d", node, host, port)}
	}
	c.node, c.addr = node, net.JoinHostPort(host, strconv.Itoa(int(port)))
	return nil
}

// Discoveries is the number of successful discoveries so far.
func (c *Coordinator) Discoveries() int { return c.found }

// IsCoordinatorError reports whether err means "ask FindCoordinator again":
// NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, or a transport error.
func IsCoordinatorError(err error) bool {
	if err == nil {
		return false
	}
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return ke == kerr.NotCoordinator || ke == kerr.CoordinatorNotAvailable
	}
	return true // connection-level errors: the coordinator may have moved
}

// LocalTimer is the discovery backoff timer as today's coordinator manager
// reports it (package baseline): while the coordinator is unknown and
// wanted, the end of the backoff, even with a FindCoordinator in flight.
func (c *Coordinator) LocalTimer() (time.Time, bool) {
	if c.node >= 0 || !c.needed {
		return time.Time{}, false
	}
	return c.retry.Next(), true
}
