// Package wire is what a broker saw on the wire, shared by both targets and
// the harness: Kafka frame parsing (the 4-byte size prefix, request header
// v1/v2, response header v0/v1), the request record (Request), and the
// Recorder that keeps records and answers counts per API key, client id,
// node and time window.
//
// Its users:
//   - fakebroker taps kfake's listeners and feeds the bytes kfake reads to a
//     RequestStream, which decodes each request header without holding the
//     body;
//   - containers/proxy reads whole frames (ReadFrame), parses requests and
//     their bodies (ParseRequestFrame), matches responses
//     (ResponseCorrelationID, RequestFrame.ParseResponse) and builds answers;
//   - both track KIP-227 fetch sessions from each Fetch and the session
//     fields of its answer (FetchSessions): the proxy to fault the
//     partitions an incremental Fetch does not name, fakebroker to know a
//     Fetch that leaves nothing to read;
//   - harness's client-side response delay (consume.ResponseDelay) learns
//     each outgoing request's key with a RequestStream and matches responses
//     by correlation id.
//
// Protocol knowledge comes from kmsg where kmsg has it (which keys and
// versions exist, which versions are flexible, header tags, message bodies);
// this package holds only the framing and header layout the Kafka protocol
// guide defines. Every malformed input is an error wrapping ErrMalformed
// that names the bad value; nothing here panics on input.
package wire
