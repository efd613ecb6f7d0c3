// Package managers holds the request managers both consumers share:
// coordinator discovery (FindCoordinator) and topic metadata (Metadata),
// with the exponential backoff they retry by. Each manager owns its state,
// is driven only from the reactor loop goroutine, gets time as tx.Now and
// never blocks on I/O: it returns requests in a reactor.Result and applies
// their completions in OnComplete.
package managers
