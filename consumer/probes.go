package consumer

import "sync/atomic"

// returnProbe counts application calls that returned before the decision
// containing their completion was published (P4, invariant 4 as the
// application sees it). The reactor keeps it at zero by construction; the
// baseline does not.
type returnProbe struct {
	returns, early atomic.Uint64
}

func (c *Consumer) noteCommitReturn(version uint64) {
	c.probe.returns.Add(1)
	if c.eng.Current().Decision.Version < version {
		c.probe.early.Add(1)
	}
}

// CommitReturns reports how many CommitSync calls returned with a
// completion, and how many of them returned before the decision containing
// the completion was published (early returns: a P4 violation).
func (c *Consumer) CommitReturns() (returns, early uint64) {
	return c.probe.returns.Load(), c.probe.early.Load()
}
