// Package brokerconn is the reference consumer's connection to one Kafka
// broker: it dials, negotiates versions with ApiVersions (KIP-35, with the
// KIP-511 fallback), and pipelines requests on the socket, matching each
// response to its request by correlation id.
//
// It exists so that a request costs the consumer's loop no goroutine
// hand-off of its own: Do queues the request for the connection's writer,
// and the connection's reader calls done with the answer, so the path from
// the loop to the socket and back wakes two goroutines (the writer, then the
// loop from the reader). Through kgo's synchronous Broker.Request it woke
// four or more (a request goroutine, kgo's writer and reader, the request
// goroutine again, then the loop); docs/bench.md has the measurements.
//
// Its rules follow Java's NetworkClient where they are visible to a broker
// or a spec:
//   - requests are written in the order Do queued them and answered in that
//     order (Kafka answers a connection's requests in order);
//   - a request unanswered by its deadline (request.timeout.ms) fails with
//     an error wrapping context.DeadlineExceeded, and the connection is
//     closed, failing every other request on it (NetworkClient's
//     handleTimedOutRequests disconnects the node); an answer already
//     received is taken first;
//   - a request still queued at its deadline, because the connection is
//     not ready or a throttle holds the writes, fails the same way and the
//     connection stays (ConsumerNetworkClient expires unsent requests);
//   - a throttle a response announces (KIP-219: ThrottleMillis when the
//     broker throttles after the response) delays the next write on the
//     connection until it ends;
//   - a connection attempt (the dial and ApiVersions) reports its outcome
//     once (Options.OnReady), for the caller's reconnect backoff;
//   - a broker that does not support the request's key, or no version of it
//     that kmsg knows, fails the request with *UnsupportedError and nothing
//     is written.
//
// The consumer keeps one connection per broker and lane (Lane), as kgo
// does, so that a Fetch long-poll does not hold a heartbeat behind it.
// There is no SASL or TLS: consumer.Config has no such settings; a Dial
// that returns a *tls.Conn gives TLS.
package brokerconn
