package consumer

import "sync/atomic"

// returnProbe counts application calls that returned before the decision
// containing their completion was published (P4, invariant 4 as the
// application sees it). The reactor keeps it at zero by construction; the
// baseline does not.
type returnProbe struct {
	returns, early atomic.Uint64
}
