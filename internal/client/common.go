package client

import "context"

// common is what both consumer kinds (Group, Share) share beyond the engine
// and application sides: the transport, and the calls whose shape does not
// depend on the protocol (Wakeup, Close), which end in the variant's path.
type common struct {
	EngineSide
	AppSide
	tr   sender
	life lifecycle
}

// lifecycle is the part of a variant's path common to both kinds.
type lifecycle interface {
	Wakeup()
	Close(ctx context.Context) error
}

// start runs eng with life as the variant's wakeup and close.
func (c *common) start(eng Engine, life lifecycle) {
	c.Eng, c.life = eng, life
	eng.Start()
}

// Wakeup interrupts a blocked Poll, or the next one.
func (c *common) Wakeup() {
	if c.Closed() {
		return
	}
	c.life.Wakeup()
}

// Close runs the variant's close sequence, stops the engine and the
// transport, and runs the callbacks still queued. A second Close returns
// ErrClosed.
func (c *common) Close(ctx context.Context) error {
	if !c.MarkClosed() {
		return ErrClosed
	}
	err := c.life.Close(ctx)
	c.Eng.Stop()
	c.tr.close()
	c.RunCallbacks()
	return err
}

// guarded runs an application call: the single-caller guard, the queued
// callbacks first, then call.
func guarded[T any](c *common, call func() (T, error)) (T, error) {
	if err := c.Acquire(); err != nil {
		var zero T
		return zero, err
	}
	defer c.Release()
	c.RunCallbacks()
	return call()
}

// published returns the latest published snapshot if it is an S.
func published[S any](eng Engine) (S, bool) {
	s, ok := eng.Current().Snapshot.(S)
	return s, ok
}
