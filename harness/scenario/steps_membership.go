package scenario

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/managers"
)

// Subscribe subscribes the consumer to Topics (joining its group).
type Subscribe struct {
	Topics []string `yaml:"topics" sc:"required,name"`
}

func (a *Subscribe) validate(c *checker, st *Step) error {
	if c.consumerOf(st).Group == "" {
		return c.errf(st.Line, "subscribe", "consumer %s has no group (group: true): it can only assign", c.consumerOf(st).Name)
	}
	for _, t := range a.Topics {
		if _, err := c.topic(st.line("topics"), "topics", t); err != nil {
			return err
		}
	}
	return nil
}

func (a *Subscribe) run(_ context.Context, r *run, st *Step) error {
	m := r.member(st.Consumer)
	if m.s != nil {
		return m.s.Subscribe(a.Topics...)
	}
	return m.subscribe(a.Topics, r.sc.wantsListener(m.spec))
}

// Unsubscribe leaves the group: Java's unsubscribe(), which the harness
// calls where the subject has it and otherwise as Subscribe with no topics
// (Java documents subscribe of an empty list as unsubscribe).
type Unsubscribe struct{}

func (a *Unsubscribe) run(_ context.Context, r *run, st *Step) error {
	m := r.member(st.Consumer)
	if u, ok := ability[interface{ Unsubscribe() error }](m.c); ok {
		return u.Unsubscribe()
	}
	return m.c.Subscribe()
}

// Assign takes partitions manually: topic -> partitions.
type Assign struct {
	Partitions map[string][]int32 `yaml:"partitions" sc:"required"`
}

// assign decodes assign's mapping: every key is a topic except the step
// modifiers.
func (p *parser) assign(v *yaml.Node, st *Step, extra map[string]func(*yaml.Node) error) error {
	a := st.Args.(*Assign)
	a.Partitions = map[string][]int32{}
	st.lines = keyLines{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if st.lines.has(k.Value) {
			return p.errf(k.Line, k.Value, "repeated key in step assign")
		}
		st.lines[k.Value] = k.Line
		if h, ok := extra[k.Value]; ok {
			if err := h(val); err != nil {
				return err
			}
			continue
		}
		if k.Value == "partitions" && val.Kind == yaml.MappingNode {
			return p.assign(val, st, extra)
		}
		if val.Kind != yaml.SequenceNode || len(val.Content) == 0 || len(val.Content) > MaxPartitions {
			return p.errf(val.Line, k.Value, "want a list of 1..%d partitions", MaxPartitions)
		}
		for _, c := range val.Content {
			n, err := p.integer(c, k.Value, fieldRule{max: "partitions"})
			if err != nil {
				return err
			}
			a.Partitions[k.Value] = append(a.Partitions[k.Value], int32(n))
		}
	}
	if len(a.Partitions) == 0 {
		return p.errf(v.Line, "assign", "want topic: [partitions, ...]")
	}
	return nil
}

func (a *Assign) validate(c *checker, st *Step) error {
	for t, ps := range a.Partitions {
		for _, part := range ps {
			if err := c.partition(st.line(t), t, t, part); err != nil {
				return err
			}
		}
	}
	return nil
}

func (a *Assign) tps() []managers.TopicPartition {
	var out []managers.TopicPartition
	for t, ps := range a.Partitions {
		for _, p := range ps {
			out = append(out, managers.TopicPartition{Topic: t, Partition: p})
		}
	}
	slices.SortFunc(out, managers.CompareTopicPartition)
	return out
}

func (a *Assign) run(_ context.Context, r *run, st *Step) error {
	return r.member(st.Consumer).c.Assign(a.tps()...)
}

// Seek moves an assigned partition's fetch position (Java's seek): the next
// Poll delivers from Offset.
type Seek struct {
	Topic     string `yaml:"topic" sc:"required,name"`
	Partition int32  `yaml:"partition" sc:"required,max=partitions"`
	Offset    int64  `yaml:"offset" sc:"required"`
}

func (a *Seek) validate(c *checker, st *Step) error {
	return c.partition(st.line("partition"), "partition", a.Topic, a.Partition)
}

// seeker is the optional ability of a consumer that can seek.
type seeker interface {
	Seek(tp managers.TopicPartition, offset int64) error
}

func (a *Seek) run(_ context.Context, r *run, st *Step) error {
	m := r.member(st.Consumer)
	s, ok := ability[seeker](m.c)
	if !ok {
		return notApplicable("subject %s's consumer has no seek", r.subject.Name())
	}
	return s.Seek(managers.TopicPartition{Topic: a.Topic, Partition: a.Partition}, a.Offset)
}

// WaitAssigned waits until the consumer owns at least Partitions partitions.
// Poll is required, so a file says whether the wait consumes: true calls
// Poll (100 ms at a time) meanwhile, and the records those Polls return count
// as delivered (a later consume counts them toward its target); false only
// watches the assignment, which a consumer that joins its group only within
// Poll (the Java KIP-848 consumer) never gets: the step then fails saying so.
type WaitAssigned struct {
	Poll       *bool     `yaml:"poll" sc:"required"`
	Partitions int       `yaml:"partitions,omitempty" sc:"min=1,max=partitions"`
	Timeout    *Duration `yaml:"timeout,omitempty" sc:"max=call"`
}

func (a *WaitAssigned) bound(_ *Scenario, _ *Step) time.Duration {
	return orDefault(a.Timeout, DefaultStepTimeout)
}

func (a *WaitAssigned) run(ctx context.Context, r *run, st *Step) error {
	m := r.member(st.Consumer)
	want := max(a.Partitions, 1)
	timeout := orDefault(a.Timeout, DefaultStepTimeout)
	deadline := time.Now().Add(timeout)
	mk := r.marks[st.name()]
	before := m.delivered()
	defer func() { mk.records = m.delivered() - before }()
	for len(m.assignment()) < want {
		if time.Now().After(deadline) {
			how := "polling meanwhile"
			if !*a.Poll {
				how = "without polling (a consumer that joins only when polled, like Java's KIP-848 consumer, needs poll: true)"
			}
			return fmt.Errorf("%d of %d partitions assigned after %s, %s\n%s", len(m.assignment()), want, timeout, how, harness.Diagnose(m.handle()))
		}
		if *a.Poll {
			if _, err := m.poll(ctx, harness.PollSlice, 0, ""); err != nil && ctx.Err() == nil {
				m.notePollError()
			}
		} else {
			sleepCtx(ctx, 10*time.Millisecond)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// PauseAll pauses every assigned partition.
type PauseAll struct {
	// IfAssigned pauses what is assigned and does nothing when nothing
	// is (an application pausing whatever it holds, as generated
	// schedules do); without it an empty assignment stops the timeline.
	IfAssigned bool `yaml:"if_assigned,omitempty"`
}

func (a *PauseAll) run(_ context.Context, r *run, st *Step) error {
	return withAssignment(r, st, a.IfAssigned, harness.Consumer.Pause)
}

// ResumeAll resumes every assigned partition.
type ResumeAll struct {
	// IfAssigned: as PauseAll's.
	IfAssigned bool `yaml:"if_assigned,omitempty"`
}

func (a *ResumeAll) run(_ context.Context, r *run, st *Step) error {
	return withAssignment(r, st, a.IfAssigned, harness.Consumer.Resume)
}

// withAssignment calls fn on st's consumer with every partition it has
// assigned; none assigned is an error, or nothing to do with ifAssigned.
func withAssignment(r *run, st *Step, ifAssigned bool, fn func(c harness.Consumer, tps ...managers.TopicPartition) error) error {
	m := r.member(st.Consumer)
	tps := m.c.Assignment()
	if len(tps) == 0 && ifAssigned {
		return nil
	}
	if len(tps) == 0 {
		return errors.New("no partitions assigned")
	}
	return fn(m.c, tps...)
}

// orDefault is *d, or def when d is nil.
func orDefault(d *Duration, def time.Duration) time.Duration {
	if d == nil {
		return def
	}
	return d.D()
}
