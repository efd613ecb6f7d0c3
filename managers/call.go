package managers

import "github.com/twmb/franz-go/pkg/kmsg"

// AnyNode in Call.Node means "any live broker": the transport picks one of
// Call.Addrs (bootstrap or known brokers).
const AnyNode int32 = -1

// Call is the payload of every reactor.Request the managers produce: one
// Kafka request for one broker.
type Call struct {
	// Node is the broker id, or AnyNode.
	Node int32
	// Addr is the broker's host:port; for AnyNode, Addrs lists candidates.
	Addr  string
	Addrs []string
	// Req is the Kafka request (built with kmsg.NewPtr...).
	Req kmsg.Request
	// Decode, if set, runs on the transport's goroutine with the response
	// before its completion is queued; what it returns replaces the
	// response handed to the request's OnComplete. For work that reads no
	// manager state (decoding record batches), kept off the state owner.
	// A transport may leave it unrun: OnComplete then gets the response.
	Decode func(kmsg.Response) any
}

// Broker is a broker's id and address as learned from Metadata or
// FindCoordinator.
type Broker struct {
	Node int32
	Addr string // host:port
}
