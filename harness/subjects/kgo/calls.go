package kgo

// Java's calling contract, kept the same way by both consumers (Consumer
// and ShareConsumer): one application call at a time, Wakeup, Close from
// any goroutine interrupting a Poll, the error owed to the next Poll, the
// callbacks queued for the application goroutine, and closing kgo's client
// by a deadline.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	franz "github.com/twmb/franz-go/pkg/kgo"

	"github.com/kreactor/kreactor/consumer"
)

// calls is the application-call state a consumer embeds.
type calls struct {
	cpu    cpuKey      // pprof label of this consumer's goroutines; read-only
	busy   atomic.Bool // an application call is running
	closed atomic.Bool

	owed  error         // application goroutine only; fetched together with records, owed to the next Poll
	cbs   callbackQueue // callbacks for the application goroutine
	async inflight      // CommitAsync calls not yet completed

	mu         sync.Mutex
	woken      bool               // guarded by mu; Wakeup not yet delivered
	pollCancel context.CancelFunc // guarded by mu; interrupts the running Poll
}

func newCalls() calls { return calls{cpu: newCPUKey()} }

// acquire marks an application call as running, or returns why it may not
// run: consumer.ErrClosed, consumer.ErrConcurrentUse (Java's
// ConcurrentModificationException; kgo itself is safe for concurrent use).
func (c *calls) acquire() error {
	if c.closed.Load() {
		return consumer.ErrClosed
	}
	if !c.busy.CompareAndSwap(false, true) {
		return consumer.ErrConcurrentUse
	}
	if c.closed.Load() {
		c.busy.Store(false)
		return consumer.ErrClosed
	}
	c.cpu.enter()
	return nil
}

// release ends an application call.
func (c *calls) release() {
	c.cpu.leave()
	c.busy.Store(false)
}

// CPUKey is the pprof label value on this consumer's goroutines: look it up
// in CPUFigures.ByKey. Safe from any goroutine.
func (c *calls) CPUKey() string { return c.cpu.key }

// Wakeup makes a blocked Poll return consumer.ErrWakeup (by canceling the
// context of its kgo PollRecords call), or the next Poll if none is
// blocked. Safe from any goroutine.
func (c *calls) Wakeup() {
	if c.closed.Load() {
		return
	}
	c.mu.Lock()
	c.woken = true
	if c.pollCancel != nil {
		c.pollCancel()
	}
	c.mu.Unlock()
}

// interruptPoll cancels a running Poll's kgo call without a wakeup (Close).
func (c *calls) interruptPoll() {
	c.mu.Lock()
	if c.pollCancel != nil {
		c.pollCancel()
	}
	c.mu.Unlock()
}

// pollCall is an application Poll: queued callbacks run first, then an
// owed error is returned, then prepare (nil: nothing) may refuse the Poll,
// then poll runs under a context that ctx's end and Wakeup cancel. When
// ctx's deadline passes with no records it returns (nil, nil), as Java's
// poll(timeout) returns an empty batch (a canceled ctx returns ctx.Err()).
// An error poll returns together with records is owed to the next Poll
// (Java: the exception follows the records fetched before it). A Close
// from another goroutine interrupts it with consumer.ErrClosed.
func pollCall[R any](c *calls, ctx context.Context, prepare func() error, poll func(context.Context) ([]R, error)) ([]R, error) {
	if err := c.acquire(); err != nil {
		return nil, err
	}
	defer c.release()
	c.cbs.run()
	if err := c.owed; err != nil {
		c.owed = nil
		return nil, err
	}
	if prepare != nil {
		if err := prepare(); err != nil {
			return nil, err
		}
	}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.mu.Lock()
	if c.woken {
		c.woken = false
		c.mu.Unlock()
		return nil, consumer.ErrWakeup
	}
	c.pollCancel = cancel
	c.mu.Unlock()

	recs, err := poll(pctx)

	c.mu.Lock()
	c.pollCancel = nil
	woken := c.woken && len(recs) == 0
	if woken {
		c.woken = false // delivered; with records, the next Poll delivers it
	}
	c.mu.Unlock()
	switch {
	case c.closed.Load():
		return nil, consumer.ErrClosed // Close ran concurrently and interrupted this Poll
	case woken:
		return nil, consumer.ErrWakeup
	case len(recs) > 0:
		c.owed = err
		return recs, nil
	case err != nil:
		return nil, err
	case ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, ctx.Err()
	}
	return nil, nil
}

// pollRecords is kgo's PollRecords for up to max records under pctx; a
// pctx already done returns the records kgo has buffered (PollRecords with
// a nil context), as Java's poll(0).
func pollRecords(cl *franz.Client, pctx context.Context, max int) franz.Fetches {
	if pctx.Err() != nil {
		return cl.PollRecords(nil, max) //nolint:staticcheck // nil: buffered records only (kgo's documented form)
	}
	return cl.PollRecords(pctx, max)
}

// closeCall is an application Close: it marks the consumer closed (a
// second Close returns consumer.ErrClosed) and lets a call still running
// on another goroutine finish (Java would throw
// ConcurrentModificationException): a Poll is interrupted and returns
// consumer.ErrClosed; a commit runs to its own deadline. Then, by ctx's
// deadline (30 s without one, as Java's close()), it runs the queued
// callbacks and finish (nil: nothing), waits for outstanding CommitAsyncs
// and runs stop (the client's leave and close). Every commit fails once
// the client is closed: their callbacks (bounded by kgo's shutdown, not by
// ctx) run before it returns; a share consumer's stop also waits for the
// acknowledgement callbacks kgo delivers after its own Close
// (ShareConsumer.stopClient), so none is lost.
func closeCall(c *calls, ctx context.Context, finish func(), stop func(context.Context) error) error {
	if !c.closed.CompareAndSwap(false, true) {
		return consumer.ErrClosed
	}
	for !c.busy.CompareAndSwap(false, true) {
		c.interruptPoll()
		time.Sleep(time.Millisecond)
	}
	c.cpu.enter()
	defer c.release()
	c.cbs.run()
	if finish != nil {
		finish()
	}
	if _, ok := ctx.Deadline(); !ok && ctx.Err() == nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultCloseTimeout)
		defer cancel()
	}
	var err error
	if werr := c.async.wait(ctx); werr != nil {
		err = wrapDeadline("CommitAsync still outstanding", werr)
	}
	if serr := stop(ctx); serr != nil && err == nil {
		err = serr
	}
	_ = c.async.wait(context.Background())
	c.cbs.run()
	c.cpu.closeCPU()
	return err
}

// closeClient leaves the group (when leave names it: `group "g"`) and
// closes cl, by ctx's deadline: at the deadline cancel (cl's context) is
// called, which fails every request kgo still has in flight, so Close
// returns promptly; closeClient waits for it so no goroutine leaks. It
// returns an error wrapping consumer.ErrCloseDeadline if the leave or the
// close did not finish in time.
func closeClient(ctx context.Context, cl *franz.Client, cancel context.CancelFunc, leave string) error {
	var err error
	if leave != "" {
		if lerr := cl.LeaveGroupContext(ctx); lerr != nil {
			// Only a leave that ran out of time is a close deadline; a
			// refused leave (an error code in the answer) is returned as
			// it is.
			if ctx.Err() != nil || errors.Is(lerr, context.DeadlineExceeded) || errors.Is(lerr, context.Canceled) {
				err = wrapDeadline("leave "+leave, lerr)
			} else {
				err = fmt.Errorf("leave %s: %w", leave, lerr)
			}
			cancel()
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		cl.Close()
	}()
	select {
	case <-done:
	case <-ctx.Done():
		cancel()
		<-done
		if err == nil {
			err = wrapDeadline("closing the kgo client", ctx.Err())
		}
	}
	cancel()
	return err
}
