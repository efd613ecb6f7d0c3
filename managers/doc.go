// Package managers holds the request managers both consumers share:
// coordinator discovery (FindCoordinator) and topic metadata (Metadata),
// with the exponential backoff they retry by. Each manager owns its state,
// is driven only from the reactor loop goroutine, gets time as tx.Now and
// never blocks on I/O: it returns requests in a reactor.Result and applies
// their completions in OnComplete.
//
// It also holds what the two consumers' own managers (managers/group,
// managers/share) have in common: the View each poll round builds, the
// error table that classifies every error an API can answer (ErrorTable,
// Classify), Reply for a completion's error, the member lifecycle both
// membership managers drive (Lifecycle, its Member, HeartbeatErrors,
// PollTimer), and the values they exchange (TopicPartition, Position,
// Record).
package managers
