package scenario

// The position step (Java's position(tp, Duration)), the committed_offset
// step (Java's committed(partitions, Duration)) and the offset expectation
// on what they read. They need the consumer's ability (positioner,
// committer); a subject without it is n/a.

import (
	"context"
	"fmt"
	"time"

	"github.com/kreactor/kreactor/managers"
)

// positioner is the optional ability of a consumer that looks up a fetch
// position by ctx's deadline (Java's position(tp, Duration)).
type positioner interface {
	Position(ctx context.Context, tp managers.TopicPartition) (int64, error)
}

// committer is the optional ability of a consumer that looks up the
// group's committed offsets by ctx's deadline (Java's
// committed(partitions, Duration)); a partition without one is absent.
type committer interface {
	Committed(ctx context.Context, partitions ...managers.TopicPartition) (map[managers.TopicPartition]managers.Position, error)
}

// offsetReadings are the offsets position and committed_offset steps read,
// by step name (-1: nothing committed).
type offsetReadings map[string]int64

// OffsetLookup is the arguments of a position step: one partition, looked
// up by Timeout (absent: 10 s; 0s: a zero timeout, the non-blocking part
// only).
type OffsetLookup struct {
	Topic     string    `yaml:"topic" sc:"required,name"`
	Partition int32     `yaml:"partition" sc:"max=partitions"`
	Timeout   *Duration `yaml:"timeout,omitempty" sc:"max=call"`
}

func (a *OffsetLookup) validate(c *checker, st *Step) error {
	return c.partition(st.line("partition"), "partition", a.Topic, a.Partition)
}

func (a *OffsetLookup) bound(_ *Scenario, _ *Step) time.Duration {
	return orDefault(a.Timeout, 10*time.Second)
}

func (a *OffsetLookup) run(ctx context.Context, r *run, st *Step) error {
	p, ok := ability[positioner](r.member(st.Consumer).c)
	if !ok {
		return notApplicable("subject %s's consumer has no position look-up", r.subject.Name())
	}
	return a.read(ctx, r, st, p.Position)
}

// read runs look (a position or committed look-up of the step's partition)
// under the step's timeout and keeps its offset, or its error, by the
// step's name.
func (a *OffsetLookup) read(ctx context.Context, r *run, st *Step, look func(context.Context, managers.TopicPartition) (int64, error)) error {
	cctx, cancel := context.WithTimeout(ctx, orDefault(a.Timeout, 10*time.Second))
	defer cancel()
	off, err := look(cctx, managers.TopicPartition{Topic: a.Topic, Partition: a.Partition})
	r.marks[st.name()].err = err
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.offsets == nil {
		r.offsets = offsetReadings{}
	}
	if err == nil {
		r.offsets[st.name()] = off
	}
	return nil
}

// CommittedLookup is the arguments of a committed_offset step: the group's
// committed offset of one partition, looked up by Timeout (absent: 10 s;
// 0s: a zero timeout).
type CommittedLookup struct {
	OffsetLookup `yaml:",inline"`
}

func (a *CommittedLookup) run(ctx context.Context, r *run, st *Step) error {
	c, ok := ability[committer](r.member(st.Consumer).c)
	if !ok {
		return notApplicable("subject %s's consumer has no committed-offsets look-up", r.subject.Name())
	}
	return a.read(ctx, r, st, func(ctx context.Context, tp managers.TopicPartition) (int64, error) {
		got, err := c.Committed(ctx, tp)
		if err != nil {
			return 0, err
		}
		if pos, ok := got[tp]; ok {
			return pos.Offset, nil
		}
		return -1, nil // nothing committed
	})
}

// OffsetOf bounds the offset a position or committed_offset step read, or
// (None) says a committed_offset step found nothing committed.
type OffsetOf struct {
	Of   string `yaml:"of" sc:"required,name"`
	Min  *int64 `yaml:"min,omitempty"`
	Max  *int64 `yaml:"max,omitempty"`
	None bool   `yaml:"none,omitempty"`
}

func (a *OffsetOf) key(*Scenario) string { return "offset." + a.Of }

func (a *OffsetOf) validate(c *checker, e *Expectation) error {
	if a.None {
		if a.Min != nil || a.Max != nil {
			return c.errf(e.line("none"), "none", "none takes no min or max")
		}
		return c.stepRef(e, "of", a.Of, "committed_offset")
	}
	if a.Min == nil && a.Max == nil {
		return c.errf(e.Line, "offset", "give min, max or both, or none: true")
	}
	if a.Min != nil && a.Max != nil && *a.Min > *a.Max {
		return c.errf(e.line("min"), "min", "above max")
	}
	return c.stepRef(e, "of", a.Of, "position", "committed_offset")
}

func (a *OffsetOf) evaluate(r *run, e *Expectation) {
	r.mu.Lock()
	off, ok := r.offsets[a.Of]
	r.mu.Unlock()
	if _, reached := r.stepMark(e, a.Of); !reached {
		return
	}
	bound := ""
	switch {
	case a.None:
		bound = "nothing committed (-1)"
	case a.Min != nil && a.Max != nil && *a.Min == *a.Max:
		bound = fmt.Sprintf("== %d", *a.Min)
	case a.Min != nil && a.Max != nil:
		bound = fmt.Sprintf("%d..%d", *a.Min, *a.Max)
	case a.Min != nil:
		bound = fmt.Sprintf(">= %d", *a.Min)
	default:
		bound = fmt.Sprintf("<= %d", *a.Max)
	}
	pass := ok && (a.Min == nil || off >= *a.Min) && (a.Max == nil || off <= *a.Max) && (!a.None || off == -1)
	r.judge(e, a.key(r.sc), pass, Figure{Value: float64(off), Unit: "offset", Bound: bound},
		"offset %d (read: %v), want %s", off, ok, bound)
}
