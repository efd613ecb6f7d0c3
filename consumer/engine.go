package consumer

import (
	"context"
	"errors"

	"github.com/kreactor/kreactor/reactor"
)

// engine is what the consumers need of an execution engine; reactor.Loop
// and baseline.Loop both provide it.
type engine interface {
	Start()
	Submit(ctx context.Context, name string, apply func(*reactor.Tx)) error
	Stop()
	Done() <-chan struct{}
	Current() *reactor.Publication
	WaitFor(ctx context.Context, cond func(*reactor.Publication) bool) (*reactor.Publication, error)
	Stats() reactor.Stats
	Trace() []*reactor.Decision
}

// engineSide is the application's handle on the engine, shared by Consumer
// and ShareConsumer: events in, published decisions out.
type engineSide struct {
	eng engine
}

// submit enqueues an application event, mapping a stopped engine to
// ErrClosed.
func (e *engineSide) submit(ctx context.Context, name string, apply func(*reactor.Tx)) error {
	err := e.eng.Submit(ctx, name, apply)
	if errors.Is(err, reactor.ErrStopped) {
		return ErrClosed
	}
	return err
}

// call submits apply and waits for the error it reports through reply (an
// effect, so after publication), or for the engine to stop.
func (e *engineSide) call(name string, apply func(tx *reactor.Tx, reply func(error))) error {
	result := make(chan error, 1)
	if err := e.submit(context.Background(), name, func(tx *reactor.Tx) {
		apply(tx, func(err error) { tx.Effect(func() { result <- err }) })
	}); err != nil {
		return err
	}
	select {
	case err := <-result:
		return err
	case <-e.eng.Done():
		return ErrClosed
	}
}

// Decision returns the latest published timing decision.
func (e *engineSide) Decision() *reactor.Decision { return e.eng.Current().Decision }

// Stats returns the engine's counters (steps, spurious wakeups, contract
// violations).
func (e *engineSide) Stats() reactor.Stats { return e.eng.Stats() }

// Trace returns the recent decisions, oldest first.
func (e *engineSide) Trace() []*reactor.Decision { return e.eng.Trace() }

// waitSnapshot blocks until cond holds for a published snapshot of type S.
func waitSnapshot[S any](ctx context.Context, eng engine, cond func(S) bool) error {
	_, err := eng.WaitFor(ctx, func(p *reactor.Publication) bool {
		s, ok := p.Snapshot.(S)
		return ok && cond(s)
	})
	if errors.Is(err, reactor.ErrStopped) {
		return ErrClosed
	}
	return err
}
