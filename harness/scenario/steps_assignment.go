package scenario

// The assignment step and expectation: what a consumer owns at a point of
// the timeline (Java's assignment()), and how two such readings compare.

import (
	"context"
	"fmt"
	"slices"

	"github.com/kreactor/kreactor/managers"
)

// assignmentReadings are the assignment steps' readings, by step name.
type assignmentReadings map[string][]managers.TopicPartition

// AssignmentStep reads the consumer's assignment (Java's assignment()) into
// the step's name, for an assignment expectation.
type AssignmentStep struct{}

func (a *AssignmentStep) validate(c *checker, st *Step) error {
	if st.As == "" {
		return c.errf(st.Line, "assignment", "an assignment step needs as: NAME (an assignment expectation reads it)")
	}
	return nil
}

func (a *AssignmentStep) run(_ context.Context, r *run, st *Step) error {
	tps := slices.Clone(r.member(st.Consumer).c.Assignment())
	slices.SortFunc(tps, managers.CompareTopicPartition)
	r.mu.Lock()
	if r.assignments == nil {
		r.assignments = assignmentReadings{}
	}
	r.assignments[st.As] = tps
	r.mu.Unlock()
	return nil
}

// AssignmentOf bounds the assignment an assignment step read: its number of
// partitions, and (SameAs) equality with another assignment step's reading.
type AssignmentOf struct {
	Of         string `yaml:"of" sc:"required,name"`
	Partitions *int   `yaml:"partitions,omitempty" sc:"max=count"`
	SameAs     string `yaml:"same_as,omitempty" sc:"name"`
}

func (a *AssignmentOf) key(*Scenario) string { return "assignment." + a.Of }

func (a *AssignmentOf) validate(c *checker, e *Expectation) error {
	for _, ref := range []struct{ key, name string }{{"of", a.Of}, {"same_as", a.SameAs}} {
		if ref.name == "" {
			continue
		}
		if err := c.stepRef(e, ref.key, ref.name, "assignment"); err != nil {
			return err
		}
	}
	if a.Partitions == nil && a.SameAs == "" {
		return c.errf(e.Line, "assignment", "give partitions, same_as or both")
	}
	return nil
}

func (a *AssignmentOf) evaluate(r *run, e *Expectation) {
	r.mu.Lock()
	got, ok := r.assignments[a.Of]
	other, otherOK := r.assignments[a.SameAs]
	r.mu.Unlock()
	if !ok || (a.SameAs != "" && !otherOK) {
		r.notReached(e, "assignment step "+a.Of+" or "+a.SameAs)
		return
	}
	pass := (a.Partitions == nil || len(got) == *a.Partitions) && (a.SameAs == "" || slices.Equal(got, other))
	bound := ""
	if a.Partitions != nil {
		bound = fmt.Sprintf("%d partitions", *a.Partitions)
	}
	if a.SameAs != "" {
		bound += " same as " + a.SameAs
	}
	r.judge(e, a.key(r.sc), pass, Figure{Value: float64(len(got)), Unit: "partitions", Bound: bound, Detail: fmt.Sprint(got)},
		"assignment %v; %s: %v", got, a.SameAs, other)
}
