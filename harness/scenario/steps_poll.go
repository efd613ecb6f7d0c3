package scenario

import (
	"context"
	"fmt"
	"time"

	"github.com/kreactor/kreactor/harness"
)

// Consume polls (harness.PollSlice at a time) until Records more records
// than the previous consume's target have been delivered: records any other
// step delivered meanwhile (poll, poll_for, wait_assigned with poll: true)
// count toward it, so nothing a Poll returned is lost between steps. A Poll
// error stops it (the timeline stops there).
type Consume struct {
	Records int       `yaml:"records" sc:"required,min=1,max=produce"`
	Timeout *Duration `yaml:"timeout,omitempty" sc:"max=call"`
	// Ack (share consumers) acknowledges each batch as accept, release,
	// reject or renew right after it arrives (explicit mode).
	Ack string `yaml:"ack,omitempty"`
}

func (a *Consume) ack() string { return a.Ack }

func (a *Consume) validate(c *checker, st *Step) error { return validateAck(c, st, a.Ack) }

// acker is a poll step that may acknowledge each batch (Consume, Poll,
// PollFor).
type acker interface{ ack() string }

// acknowledgesExplicitly reports whether consumer name's steps acknowledge
// (an acknowledge step, or a poll step with ack:): a subject that must know
// it up front (harness.ExplicitShareSubject) builds it in explicit mode.
func (sc *Scenario) acknowledgesExplicitly(name string) bool {
	for _, st := range sc.Steps {
		if sc.consumerOf(st.Consumer).Name != name {
			continue
		}
		if _, ok := st.Args.(*Acknowledge); ok {
			return true
		}
		if a, ok := st.Args.(acker); ok && a.ack() != "" {
			return true
		}
	}
	return false
}

// validateAck checks a poll step's ack: a share consumer's, of a known
// type.
func validateAck(c *checker, st *Step, ack string) error {
	if ack == "" {
		return nil
	}
	if !c.consumerOf(st).IsShare() {
		return c.errf(st.line("ack"), "ack", "ack acknowledges a share consumer's records; consumer %s is regular", c.consumerOf(st).Name)
	}
	if _, ok := ackTypes[ack]; !ok {
		return c.errf(st.line("ack"), ack, "unknown acknowledge type (accept, release, reject, renew)")
	}
	return nil
}

func (a *Consume) bound(_ *Scenario, _ *Step) time.Duration {
	return orDefault(a.Timeout, DefaultStepTimeout)
}

func (a *Consume) run(ctx context.Context, r *run, st *Step) error {
	m := r.member(st.Consumer)
	timeout := orDefault(a.Timeout, DefaultStepTimeout)
	deadline := time.Now().Add(timeout)
	m.mu.Lock()
	from := m.consumeTarget
	target := from + a.Records
	m.consumeTarget = target
	m.mu.Unlock()
	before := m.delivered()
	mk := r.marks[st.name()]
	defer func() { mk.records = m.delivered() - before }()
	for m.delivered() < target {
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d records after %s\n%s", max(m.delivered()-from, 0), a.Records, timeout, harness.Diagnose(m.handle()))
		}
		if _, err := m.poll(ctx, harness.PollSlice, 0, a.ack()); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("poll: %w", err)
		}
	}
	return nil
}

// Poll calls Poll once with Timeout; name it (as:) to judge its duration,
// error or records.
type Poll struct {
	Timeout Duration `yaml:"timeout" sc:"required,max=call"`
	Ack     string   `yaml:"ack,omitempty"` // as Consume's
}

func (a *Poll) ack() string { return a.Ack }

func (a *Poll) validate(c *checker, st *Step) error { return validateAck(c, st, a.Ack) }

func (a *Poll) bound(_ *Scenario, _ *Step) time.Duration { return a.Timeout.D() }

func (a *Poll) run(ctx context.Context, r *run, st *Step) error {
	mk := r.marks[st.name()]
	mk.records, mk.err = r.member(st.Consumer).poll(ctx, a.Timeout.D(), 0, a.Ack)
	return nil
}

// PollFor polls for Duration, Each per Poll (DefaultPollEach), sleeping
// Process after each non-empty batch (slow processing). Poll errors are
// counted (figure poll_errors), not fatal.
type PollFor struct {
	Duration Duration  `yaml:"duration" sc:"required,max=step"`
	Each     *Duration `yaml:"each,omitempty" sc:"max=call"`
	Process  *Duration `yaml:"process,omitempty" sc:"max=step"`
	Ack      string    `yaml:"ack,omitempty"` // as Consume's
}

func (a *PollFor) ack() string { return a.Ack }

func (a *PollFor) validate(c *checker, st *Step) error {
	if a.Each != nil && a.Each.D() == 0 {
		return c.errf(st.line("each"), "each", "a Poll timeout of 0 polls in a busy loop: give at least 1ms")
	}
	return validateAck(c, st, a.Ack)
}

func (a *PollFor) bound(_ *Scenario, _ *Step) time.Duration {
	// The last Poll may start just before the end; a batch's processing
	// may follow it.
	return a.Duration.D() + orDefault(a.Process, 0)
}

func (a *PollFor) run(ctx context.Context, r *run, st *Step) error {
	m := r.member(st.Consumer)
	each := orDefault(a.Each, DefaultPollEach)
	end := time.Now().Add(a.Duration.D())
	before := m.delivered()
	for time.Now().Before(end) && ctx.Err() == nil {
		if _, err := m.poll(ctx, min(each, time.Until(end)), orDefault(a.Process, 0), a.Ack); err != nil && ctx.Err() == nil {
			m.notePollError()
		}
	}
	r.marks[st.name()].records = m.delivered() - before
	return nil
}
