// Package share holds the request managers of the share consumer (KIP-932):
// share group heartbeat and membership, and share fetch with share sessions
// and acknowledgements (piggy-backed on ShareFetch, or explicit
// ShareAcknowledge for commits and close). It never imports managers/group
// (P5): both build on managers and reactor only, and run on the same
// reactor.Loop.
package share
