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
//
// Errors follow the error table (Classify, kmsg.FindCoordinator): retriable
// ones retry after the growing backoff; the others (authorization, invalid
// request) also retry after the backoff and are kept as Failure until the
// next answer, so the membership manager raises them from Poll and the
// commit manager fails the commits waiting for a coordinator (Java's
// CoordinatorRequestManager fatal error).
type Coordinator struct {
	key     string
	keyType int8

	node     int32 // -1 when unknown
	addr     string
	inFlight bool
	retry    Retry // FindCoordinator failures and their backoff
	found    int   // successful discoveries, for figures
	needed   bool  // as of the last poll

	failure    error  // the last answer's non-retriable error; nil after any other answer
	failureSeq uint64 // increments with each new failure

	// Rediscovery after the coordinator moved: moves counts MarkUnknown
	// calls since a request to the coordinator last succeeded (Confirm);
	// the n-th rediscovery may go Backoff.Delay(n) after the last
	// FindCoordinator answer (answeredAt).
	moves       int
	answeredAt  time.Time
	rediscovery time.Time
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

// Failure is the last FindCoordinator answer's error when the error table
// says it reaches the application (GROUP_AUTHORIZATION_FAILED,
// INVALID_REQUEST, ...), with a sequence number that changes with each new
// failure; nil once a later answer (success or retriable error) arrives.
func (c *Coordinator) Failure() (error, uint64) { return c.failure, c.failureSeq }

// MarkUnknown forgets the coordinator after a request to node failed with
// a coordinator-moving error (ClassCoordinator: NOT_COORDINATOR,
// COORDINATOR_NOT_AVAILABLE, a lost connection); an answer from a node that
// is no longer the coordinator changes nothing. The first rediscovery
// waits one backoff step after the last FindCoordinator answer (as Java's
// CoordinatorRequestManager); each further move before Confirm waits the
// next, growing step.
func (c *Coordinator) MarkUnknown(node int32, err error) {
	if c.node < 0 || c.node != node {
		return
	}
	c.node, c.addr = -1, ""
	c.retry.Note(err)
	c.moves++
	c.rediscovery = c.answeredAt.Add(c.retry.Backoff.Delay(c.moves))
}

// Confirm says a request to the coordinator succeeded: the coordinator is
// where discovery said, so the rediscovery backoff starts over.
func (c *Coordinator) Confirm() { c.moves = 0 }

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
	case tx.Now.Before(c.rediscovery):
		return reactor.RetryAt(c.rediscovery, "coordinator rediscovery backoff")
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
	c.answeredAt = tx.Now
	if err == nil {
		err = c.applyResponse(resp)
	}
	c.failure = nil
	if err == nil {
		c.retry.Succeed()
		c.found++
		return
	}
	c.retry.Fail(tx.Now, err)
	switch Class(kmsg.FindCoordinator, ScopeResponse, err) {
	case ClassAuthorization, ClassFailed, ClassFatal:
		c.failure = fmt.Errorf("FindCoordinator for %q: %w", c.key, err)
		c.failureSeq++
	}
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

// LocalTimer is the discovery backoff timer as today's coordinator manager
// reports it (package baseline): while the coordinator is unknown and
// wanted, the end of the backoff, even with a FindCoordinator in flight.
func (c *Coordinator) LocalTimer() (time.Time, bool) {
	if c.node >= 0 || !c.needed {
		return time.Time{}, false
	}
	next := c.retry.Next()
	if c.rediscovery.After(next) {
		next = c.rediscovery
	}
	return next, true
}
