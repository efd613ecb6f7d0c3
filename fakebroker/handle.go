package fakebroker

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kreactor/kreactor/internal/chans"
)

// Handle controls one installed fault or control. Remove, Release and Heal
// are the same idempotent operation; Broker.Close calls it on every handle
// still installed. All methods are safe for concurrent use.
type Handle struct {
	b      *Broker
	name   string             // what installed it, for logs
	fault  *kfake.FaultHandle // non-nil for kfake Fault based handles
	faults []kfake.Fault      // what fault installed; fixed

	hits  chans.Counter // control based handles: requests acted on
	count int           // control based: requests to act on, -1 unlimited; fixed
	taken atomic.Int64  // control based: units of count taken

	once     sync.Once
	removed  chan struct{} // closed by Remove
	onRemove func()        // run once by Remove, may be nil
}

func newHandle(b *Broker, name string, count int, onRemove func()) *Handle {
	return &Handle{
		b:        b,
		name:     name,
		count:    count,
		removed:  make(chan struct{}),
		onRemove: onRemove,
	}
}

// Remove uninstalls the fault or control: held and delayed requests are
// answered normally at once, faulted requests are answered normally from now
// on, a stopped node restarts. It does not block on the cluster beyond what
// its operation needs (StopNode's restart waits for kfake's AddNode).
// Calling it again does nothing.
func (h *Handle) Remove() {
	h.once.Do(func() {
		close(h.removed)
		if h.fault != nil {
			h.fault.Remove()
		}
		if h.onRemove != nil {
			h.onRemove()
		}
		h.b.forget(h)
	})
}

// Release is Remove, named for HoldKey and DelayKey.
func (h *Handle) Release() { h.Remove() }

// Heal is Remove, named for CoordinatorUnavailable and StopNode.
func (h *Handle) Heal() { h.Remove() }

// Removed returns a channel closed once Remove has been called.
func (h *Handle) Removed() <-chan struct{} { return h.removed }

// Hits returns how many requests the handle has acted on so far (faulted,
// delayed, held or dropped). A request counts once when the handle starts
// acting on it, so a held request counts while it is still held.
func (h *Handle) Hits() int {
	if h.fault != nil {
		return h.fault.Hits()
	}
	return h.hits.Load()
}

// Wait blocks until Hits() >= n, returning nil; or until the handle is
// removed first (ErrRemoved) or ctx is done (ctx.Err()).
func (h *Handle) Wait(ctx context.Context, n int) error {
	if h.fault != nil {
		return h.waitFault(ctx, n)
	}
	return h.hits.Wait(ctx, n, h.removed, ErrRemoved)
}

// waitFault waits on kfake's FaultHandle.Wait, cancelling it on removal.
func (h *Handle) waitFault(ctx context.Context, n int) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-h.removed:
			cancel()
		case <-wctx.Done():
		}
	}()
	err := h.fault.Wait(wctx, n)
	switch {
	case err == nil || h.Hits() >= n:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	default:
		return ErrRemoved
	}
}

// take claims one unit of the handle's count for a request, reporting false
// if the handle is removed or exhausted; a true take counts as a hit.
func (h *Handle) take() bool {
	select {
	case <-h.removed:
		return false
	default:
	}
	if h.count >= 0 && h.taken.Add(1) > int64(h.count) {
		return false
	}
	h.hits.Add()
	return true
}

// isRemoved reports whether Remove has been called.
func (h *Handle) isRemoved() bool {
	return chans.Closed(h.removed)
}

// normCount maps kfake's Count convention (0 once, -1 unlimited, n > 0 n
// times) to a budget, or reports a bad count.
func normCount(op string, count int) (int, error) {
	switch {
	case count < -1:
		return 0, &ArgError{op, "count", count, "must be -1 (until removed), 0 (once) or positive"}
	case count == 0:
		return 1, nil
	}
	return count, nil
}

// or returns (h, nil), or (nil, err) if err is non-nil.
func (h *Handle) or(err error) (*Handle, error) {
	if err != nil {
		return nil, err
	}
	return h, nil
}
