package consumer

import (
	"context"

	"github.com/kreactor/kreactor/internal/client"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// reactorPath is the application side on the reactor: every call enqueues
// an event and waits for an effect, which runs only after the decision that
// includes it is published (invariants 4 and 5).
type reactorPath struct {
	g   *client.Group
	app *application
}

func (p *reactorPath) Poll(ctx context.Context) ([]Record, error) {
	g := p.g
	w := client.NewPollWait[pollReply]()
	received := g.Received()
	r, ok, err := client.AwaitReply(ctx, &g.EngineSide, g.Woke, w,
		func(tx *reactor.Tx) { p.app.onPoll(tx, w, received) },
		func(tx *reactor.Tx) { p.app.onCancel(tx, w) })
	if !ok {
		return nil, err
	}
	g.AddReceived(r.positions)
	return r.records, r.err
}

func (p *reactorPath) CommitSync(ctx context.Context) error {
	return p.g.CommitSyncOf(ctx, p.consumed(p.g.Received()))
}

func (p *reactorPath) CommitAsync(cb func(error)) {
	p.g.CommitAsyncOf(p.consumed(p.g.Received()), cb)
}

// consumed returns what a commit takes on the engine goroutine: the fetch
// manager's consumed positions, after marking what the application received
// (the positions after every record Poll returned).
func (p *reactorPath) consumed(received map[managers.TopicPartition]managers.Position) func() map[managers.TopicPartition]managers.Position {
	return func() map[managers.TopicPartition]managers.Position {
		p.g.Fetch.MarkConsumed(received)
		return p.g.Fetch.Consumed()
	}
}

func (p *reactorPath) Wakeup() {
	_ = p.g.Submit(context.Background(), "wakeup", func(tx *reactor.Tx) { p.app.poll.Wakeup(tx) })
}

// Close hands the close sequence the positions after every record Poll
// returned: with auto-commit, the final commit commits them (Java's
// commitSyncAllConsumed on close), the application being done with what it
// was given.
func (p *reactorPath) Close(ctx context.Context) error {
	deadline := client.CloseDeadline(ctx, p.g.Cfg.RequestTimeout)
	received := p.g.Received()
	return p.g.CloseOnEngine(func(tx *reactor.Tx, done chan error) { p.app.onClose(tx, deadline, done, received) })
}
