package reactor

import "time"

// Request is one unit of network work a manager hands to the Transport. The
// reactor treats Payload as opaque; the transport knows its type (for the
// Kafka consumer, a kmsg request and the node to send it to).
//
// Invariant 6 (docs/design.md): every request records the state version that
// produced it. The loop fills Manager, Version and Sent when it dispatches
// the request; OnComplete runs later on the loop goroutine with a Tx whose
// RequestVersion is this Version, so the manager can refuse a stale answer.
type Request struct {
	// Payload is what the transport sends. Set by the manager.
	Payload any
	// OnComplete applies the response (or the transport error) on the loop
	// goroutine. It is called exactly once unless the loop has stopped, in
	// which case the completion is dropped. Set by the manager; required.
	OnComplete func(tx *Tx, resp any, err error)

	// Manager is the name of the manager that returned the request. Set by
	// the loop.
	Manager string
	// Version is the state version at which the request was produced. Set
	// by the loop.
	Version uint64
	// Sent is when the loop handed the request to the transport. Set by the
	// loop.
	Sent time.Time
}

// Transport sends requests. Send must not block: it starts the I/O and
// returns. It must call done exactly once, from any goroutine, with the
// response or an error (a request timeout is an error). done may block while
// the loop's inbox is full (back-pressure) and returns immediately once the
// loop has stopped.
type Transport interface {
	Send(req *Request, done func(resp any, err error))
}

// TransportFunc adapts a function to Transport.
type TransportFunc func(req *Request, done func(resp any, err error))

// Send calls f.
func (f TransportFunc) Send(req *Request, done func(resp any, err error)) { f(req, done) }
