package scenario

import (
	"context"
	"fmt"
	"time"
)

// Wakeup calls the consumer's Wakeup: a blocked Poll returns a wakeup
// error, or the next one does. Wakeup is safe from any thread, so the step
// may be timed (at: long+300ms wakes the Poll named long 300 ms in).
type Wakeup struct{}

func (a *Wakeup) run(_ context.Context, r *run, st *Step) error {
	m := r.member(st.Consumer)
	if m.s != nil {
		m.s.Wakeup()
	} else {
		m.c.Wakeup()
	}
	return nil
}

// Close closes the consumer with a deadline of Timeout from the call
// (absent: DefaultStepTimeout; 0s: a deadline that has already passed, so
// Close does only what needs no waiting). Name it to judge its error and
// duration.
type Close struct {
	Timeout *Duration `yaml:"timeout,omitempty" sc:"max=call"`
}

func (a *Close) bound(_ *Scenario, _ *Step) time.Duration {
	return orDefault(a.Timeout, DefaultStepTimeout)
}

func (a *Close) run(ctx context.Context, r *run, st *Step) error {
	m := r.member(st.Consumer)
	cctx, cancel := context.WithTimeout(ctx, orDefault(a.Timeout, DefaultStepTimeout))
	defer cancel()
	r.marks[st.name()].err = m.close(cctx)
	return nil
}

// Sleep lets time pass while the consumers work on their own (no consumer
// call: the application stops polling, e.g. past max.poll.interval.ms).
type Sleep struct {
	Duration Duration `yaml:"duration" sc:"required,max=step"`
}

func (a *Sleep) bound(_ *Scenario, _ *Step) time.Duration { return a.Duration.D() }

func (a *Sleep) run(ctx context.Context, _ *run, _ *Step) error {
	sleepCtx(ctx, a.Duration.D())
	return ctx.Err()
}

// Window opens measurement window Name: the requests, loop counters and CPU
// of expectations that name it are counted from here to its end_window.
type Window struct {
	Name string `yaml:"name" sc:"required,name"`
}

func (a *Window) run(_ context.Context, r *run, _ *Step) error {
	r.openWindow(a.Name)
	return nil
}

// EndWindow closes window Name.
type EndWindow struct {
	Name string `yaml:"name" sc:"required,name"`
}

func (a *EndWindow) validate(c *checker, st *Step) error {
	if _, ok := c.windows[a.Name]; !ok {
		return c.errf(st.line("name"), a.Name, "end_window of a window not opened before")
	}
	return nil
}

func (a *EndWindow) run(_ context.Context, r *run, _ *Step) error {
	r.closeWindow(a.Name)
	return nil
}

// Join waits until the background step named Step has finished.
type Join struct {
	Step string `yaml:"step" sc:"required,name"`
}

func (a *Join) validate(c *checker, st *Step) error {
	bg, ok := c.names[a.Step]
	if !ok || !bg.Background || bg.Line > st.Line {
		return c.errf(st.line("step"), a.Step, "join names no background step before it (name one with as: and background: true)")
	}
	return nil
}

func (a *Join) run(ctx context.Context, r *run, _ *Step) error {
	select {
	case <-r.marks[a.Step].ended:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("background step %s still running: %w", a.Step, ctx.Err())
	}
}

// Heal removes the fault named Fault.
type Heal struct {
	Fault string `yaml:"fault" sc:"required,name"`
}

func (a *Heal) validate(c *checker, st *Step) error {
	f, ok := c.names[a.Fault]
	if !ok || f.Kind != "fault" {
		return c.errf(st.line("fault"), a.Fault, "heal of a fault not installed before (name it with as:)")
	}
	if st.At == nil && f.At == nil && f.Line > st.Line {
		return c.errf(st.line("fault"), a.Fault, "heal before the fault is installed (line %d)", f.Line)
	}
	return nil
}

func (a *Heal) run(_ context.Context, r *run, _ *Step) error {
	r.mu.Lock()
	f := r.faults[a.Fault]
	r.mu.Unlock()
	if f == nil {
		return fmt.Errorf("fault %s was not installed (its step did not run)", a.Fault)
	}
	f.Heal()
	return nil
}
