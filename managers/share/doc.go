// Package share holds the request managers of the share consumer (KIP-932):
// share group heartbeat and membership, and share fetch with share sessions
// and acknowledgements (piggy-backed on ShareFetch, or explicit
// ShareAcknowledge for commits and close). One manager, Consume, does the
// share fetch side, in a file per API and job as managers/group: consume.go
// (the manager and its poll), fetch.go (ShareFetch), acknowledge.go
// (ShareAcknowledge), session.go (share sessions), buffer.go (the record
// buffer), acks.go (acknowledgement bookkeeping), commit.go and close.go;
// membership.go is ShareGroupHeartbeat. It never imports managers/group
// (P5): both build on managers and reactor only, and run on the same
// reactor.Loop.
package share
