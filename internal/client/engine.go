package client

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kreactor/kreactor/reactor"
)

// Engine is what the consumers need of an execution engine; reactor.Loop
// and the baseline model's loop both provide it (reactor.Engine and a
// Start).
type Engine interface {
	Start()
	Submit(ctx context.Context, name string, apply func(*reactor.Tx)) error
	Stop()
	Done() <-chan struct{}
	Current() *reactor.Publication
	WaitFor(ctx context.Context, cond func(*reactor.Publication) bool) (*reactor.Publication, error)
	Stats() reactor.Stats
	Trace() []*reactor.Decision
	// Events returns the retained protocol events (reactor.Engine.Events).
	Events() reactor.EventLog
	// NoteAppWakeup counts one release of an application wait that does
	// not go through WaitFor (reactor.Stats.AppWakeups).
	NoteAppWakeup()
}

// EngineSide is the application's handle on the engine, shared by every
// consumer variant: events in, published decisions out.
type EngineSide struct {
	Eng Engine // set once by Start, before any application call
}

// Submit enqueues an application event, mapping a stopped engine to
// ErrClosed.
func (e *EngineSide) Submit(ctx context.Context, name string, apply func(*reactor.Tx)) error {
	err := e.Eng.Submit(ctx, name, apply)
	if errors.Is(err, reactor.ErrStopped) {
		return ErrClosed
	}
	return err
}

// Call submits apply and waits for the error it reports through reply (an
// effect, so after publication), or for the engine to stop.
func (e *EngineSide) Call(name string, apply func(tx *reactor.Tx, reply func(error))) error {
	result := make(chan error, 1)
	if err := e.Submit(context.Background(), name, func(tx *reactor.Tx) {
		apply(tx, func(err error) { tx.Effect(func() { result <- err }) })
	}); err != nil {
		return err
	}
	answer, err := awaitAnswer(context.Background(), e, result)
	if err != nil {
		return err
	}
	return answer
}

// awaitAnswer waits for the answer of an application call on answer (sent
// from an effect), the engine stopping (ErrClosed) or ctx's end
// (ctx.Err()), and counts the application's wake.
func awaitAnswer[T any](ctx context.Context, e *EngineSide, answer <-chan T) (T, error) {
	var none T
	select {
	case r := <-answer:
		e.Woke()
		return r, nil
	case <-e.Eng.Done():
		e.Woke()
		return none, ErrClosed
	case <-ctx.Done():
		e.Woke()
		return none, ctx.Err()
	}
}

// Woke counts one release of an application wait on the engine (a reply,
// a context's end, the baseline's fetch buffer): every variant counts its
// application wakeups in the engine, the same way (reactor.Stats
// .AppWakeups).
func (e *EngineSide) Woke() { e.Eng.NoteAppWakeup() }

// PublishedVersion is the state version of the latest published decision.
func (e *EngineSide) PublishedVersion() uint64 { return e.Eng.Current().Decision.Version }

// WaitSnapshot blocks until cond holds for a published snapshot of type S.
// Errors: ctx.Err(), ErrClosed.
func WaitSnapshot[S any](ctx context.Context, eng Engine, cond func(S) bool) error {
	_, err := eng.WaitFor(ctx, func(p *reactor.Publication) bool {
		s, ok := p.Snapshot.(S)
		return ok && cond(s)
	})
	if errors.Is(err, reactor.ErrStopped) {
		return ErrClosed
	}
	return err
}

// Diagnostics is a consumer's read-only view of its own execution
// (consumer.Diagnostics): each method reads the current value when called
// (no copy is made until asked for), safe from any goroutine. S is the
// consumer's snapshot type.
type Diagnostics[S any] struct {
	eng Engine
	app *AppSide
}

// Stats returns the engine's counters: steps, wakes, spurious wakeups,
// contract violations.
func (d Diagnostics[S]) Stats() reactor.Stats { return d.eng.Stats() }

// Decision returns the latest published timing decision.
func (d Diagnostics[S]) Decision() *reactor.Decision { return d.eng.Current().Decision }

// Trace returns a copy of the retained recent decisions, oldest first.
func (d Diagnostics[S]) Trace() []*reactor.Decision { return d.eng.Trace() }

// Events returns a copy of the retained protocol events (publications,
// effects runs, WaitFor steps), oldest first: what package model's trace
// validation replays.
func (d Diagnostics[S]) Events() reactor.EventLog { return d.eng.Events() }

// AppWakeups counts every release of an application wait on the engine
// (reactor.Stats.AppWakeups: a reply, a publication, a context's end, the
// baseline's fetch-buffer signal or timer): once per call when every wake
// carries a reason, many when the application side spins or ping-pongs
// (KAFKA-20854).
func (d Diagnostics[S]) AppWakeups() uint64 { return d.eng.Stats().AppWakeups }

// CommitReturns counts the commit calls that returned with a completion,
// and those released before the decision containing their completion was
// published (early: a P4 violation, measured when the release runs).
func (d Diagnostics[S]) CommitReturns() (returns, early uint64) {
	return d.app.returns.Load(), d.app.early.Load()
}

// Snapshot returns the latest published application-visible snapshot; the
// zero S before the first.
func (d Diagnostics[S]) Snapshot() S {
	s, _ := d.eng.Current().Snapshot.(S)
	return s
}

// diagnoseDecisions is how many recent decisions Diagnose renders.
const diagnoseDecisions = 6

// Diagnose renders the counters, the few decisions before the latest and
// the latest, one line per manager that is not Ready or Idle (what it
// awaits, when it retries, why): for failure messages and logs.
func (d Diagnostics[S]) Diagnose() string {
	var b strings.Builder
	fmt.Fprintf(&b, "stats %+v\n", d.Stats())
	tr := d.Trace()
	if n := len(tr); n > 1 {
		b.WriteString("recent decisions (oldest first):\n")
		for _, t := range tr[max(0, n-diagnoseDecisions) : n-1] {
			b.WriteString(t.Diagnose())
			b.WriteString("\n")
		}
	}
	b.WriteString("latest decision:\n")
	b.WriteString(d.Decision().Diagnose())
	return b.String()
}

// ZeroDeadline is the context an application call submits its event with:
// ctx itself, or, when ctx's deadline has already passed, ctx without its
// deadline, so the call still does its non-blocking part (Java's
// Duration.ZERO: poll(0) returns what is buffered and lets the network
// thread send what is due; commitSync(0) sends the commit, then times out).
// A canceled ctx stays as it is: the call does nothing.
func ZeroDeadline(ctx context.Context) context.Context {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return context.WithoutCancel(ctx)
	}
	return ctx
}

// AwaitReply runs one blocking application call on the engine: it submits
// start (which answers w, from an effect) and waits for the answer, the
// engine stopping, or ctx. When ctx ends first it abandons w (PollWait) and
// submits cancel without waiting for it: no answer was claimed, so none
// will come (an answer claimed first is waited for and returned, never
// lost). woke counts the application's wakes: the answer, or ctx's end. A
// ctx whose deadline has already passed still starts the call
// (ZeroDeadline) and cancels it at once, waiting for the cancel's
// acknowledgement (a second wake): what start answers at once (buffered
// records, an owed error) is returned, as Java's poll(Duration.ZERO). ok is
// false when no answer came; err is then ErrClosed or CtxResult(ctx.Err())
// (or Submit's error).
func AwaitReply[T any](ctx context.Context, e *EngineSide, woke func(), w *PollWait[T], start, cancel func(*reactor.Tx)) (r T, ok bool, err error) {
	expired := ctx.Err() != nil // poll(Duration.ZERO): the call must run first
	if err := e.Submit(ZeroDeadline(ctx), "poll", start); err != nil {
		return r, false, CtxResult(err)
	}
	err = ErrClosed
	select {
	case r = <-w.C:
		woke()
		return r, true, nil
	case <-e.Eng.Done():
		woke()
	case <-ctx.Done():
		woke()
		err = CtxResult(ctx.Err())
		if !expired {
			if w.Abandon() {
				// Poll activity ends and the slot is cleared with the
				// cancel; nothing can answer w any more.
				_ = e.Submit(context.Background(), "poll-cancel", cancel)
				return r, false, err
			}
			select { // claimed: the answer follows the step's publication
			case r = <-w.C:
				return r, true, nil
			case <-e.Eng.Done():
			}
			break
		}
		acked := make(chan struct{})
		if e.Submit(context.Background(), "poll-cancel", func(tx *reactor.Tx) {
			cancel(tx)
			tx.Effect(func() { close(acked) })
		}) == nil {
			select {
			case <-acked:
			case <-e.Eng.Done():
			}
			woke() // the cancel's acknowledgement is a wait too: every release counts
		}
	}
	select {
	case r = <-w.C:
		return r, true, nil
	default:
		return r, false, err
	}
}

// CloseOnEngine submits the close event start, which starts the close
// sequence (at tx.Now) and eventually sends Close's result on done (from an
// effect), and waits for that result or for the engine to stop (nil without
// one).
func (e *EngineSide) CloseOnEngine(start func(tx *reactor.Tx, done chan error)) error {
	done := make(chan error, 1)
	if e.Submit(context.Background(), "close", func(tx *reactor.Tx) { start(tx, done) }) != nil {
		return nil // already stopped
	}
	select {
	case err := <-done:
		e.Woke()
		return err
	case <-e.Eng.Done():
		e.Woke()
		select {
		case err := <-done:
			return err
		default:
			return nil
		}
	}
}
