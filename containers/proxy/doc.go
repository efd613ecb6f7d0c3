// Package proxy is a Kafka-protocol-aware TCP proxy that fronts a whole
// cluster for kreactor's real-Kafka target: it records every request clients
// send (wire.Recorder, the recorder fakebroker uses too, so harness.Recorder is
// satisfied), injects the harness fault vocabulary (coordinator-unavailable,
// error, hold, delay, brokers-down, plus per-node connection drops and
// request observation), and rewrites broker addresses in responses so clients
// only ever talk to the proxy.
//
// One Proxy opens one listener on 127.0.0.1 (random port) per upstream broker
// node. At Start it asks the upstream cluster for its brokers (a Metadata
// request through franz-go's kgo) and creates a listener per node; a node that
// appears later in a response (Metadata, FindCoordinator, DescribeCluster,
// KIP-951 endpoints in Fetch / Produce / ShareFetch / ShareAcknowledge) gets
// a listener on demand. Each accepted client connection gets its own upstream
// connection to that node.
//
// Per client connection three goroutines run: a reader (parses and records
// each request frame, runs observers), a forwarder (applies faults in request
// order, forwards to the broker or answers locally) and a responder (relays
// responses in request order, matched by correlation id, rewriting those that
// carry addresses or a fault's errors). Requests are handled in order per
// connection, like a broker: a held or delayed request makes later requests
// on the same connection wait behind it (they are still recorded on arrival).
//
// Only loopback addresses are ever dialed: upstream addresses must be
// loopback IPs or "localhost"; a broker advertising any other host gets a
// listener, but connections to it are refused (closed) by the proxy.
//
// # Faults
//
// The harness vocabulary (harness.FaultSpec) maps one to one:
// coordinator-unavailable is CoordinatorUnavailable, error is AnswerError,
// hold is Hold, delay is Delay, brokers-down is BrokersDown; Observe is
// Observe. DropConnections drops one node; Inject installs a spec of the
// vocabulary with the matching method. Every method returns a *Fault
// (Heal, Hits, Wait) that satisfies harness.Fault. Faults act in the order
// drop, hold, delay, error. Hold and Delay act on the request before it is
// forwarded (the broker sees it only after the release or the delay, as with
// kfake's controls). Error answers are built with kmsg per API (errAPIs):
// answered by the proxy when every entity of the request is selected, else
// forwarded with the selected entities of the answer overwritten.
//
// # Limitations
//
//   - A Topic / Group filtered error on a request that also names other
//     topics / groups is forwarded: the broker applies the whole request
//     (an OffsetCommit's other partitions are committed, and so are the
//     faulted ones) and only the answer is rewritten. Metadata and Fetch
//     faults are always applied to the broker's answer.
//   - Topic filters on topic-id APIs (Fetch v13+, ShareFetch,
//     ShareAcknowledge, OffsetCommit / OffsetFetch v10+) match only ids the
//     proxy saw in a Metadata answer.
//   - Requests kmsg cannot parse (unknown key, version newer than kmsg's)
//     are relayed untouched and only drop / hold / delay apply; ApiVersions
//     answers are capped at kmsg's versions so clients do not pick those for
//     APIs the proxy knows.
//   - SASL v0 (unframed tokens after SaslHandshake v0) and TLS are not
//     supported: the proxy speaks plaintext Kafka framing only.
//   - Produce and other APIs without a top-level ErrorCode cannot be
//     answered with an error (AnswerError rejects them).
//
// Start a proxy with Start and always Close it (Close is idempotent): it
// closes listeners and every connection (held requests are never answered;
// their connections are closed), heals every fault and returns once every
// goroutine the proxy started has exited.
package proxy
