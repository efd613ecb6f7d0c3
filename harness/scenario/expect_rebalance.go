package scenario

// What a rebalance may cost the application (records delivered by more
// than one member of a group) and what it tells it (the rebalance listener).

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kreactor/kreactor/managers"
)

// Duplicates bounds the records of the consumer's group that more than one
// of the group's consumers delivered (a member that kept delivering a
// partition after its revocation, or a new owner starting below what the
// old one had delivered: the auto-commit before revocation missing).
type Duplicates struct {
	Consumer string `yaml:"consumer,omitempty" sc:"name"`
	Bounds   `yaml:",inline"`
}

func (a *Duplicates) key(sc *Scenario) string { return "duplicates" + sc.suffix(a.Consumer) }

func (a *Duplicates) validate(c *checker, e *Expectation) error {
	if err := validateBounds(c, e, a.Bounds); err != nil {
		return err
	}
	if err := c.groupOf(e, a.Consumer); err != nil {
		return err
	}
	if cs := c.sc.consumerOf(a.Consumer); cs.IsShare() {
		return c.errf(e.line("consumer"), a.Consumer, "duplicates counts a regular consumer group's records (a share group redelivers by design: see redeliveries)")
	}
	return nil
}

func (a *Duplicates) evaluate(r *run, e *Expectation) {
	group := r.member(a.Consumer).group
	owners := map[shareKey]int{}
	for _, m := range r.order {
		if m.group != group || m.s != nil {
			continue
		}
		m.mu.Lock()
		for k := range m.seen {
			owners[k]++
		}
		m.mu.Unlock()
	}
	n := 0
	for _, c := range owners {
		if c > 1 {
			n++
		}
	}
	r.count(e, a.key(r.sc), n, "records", a.Min, a.Max, "", a.ReportOnly)
}

// Listener checks the consumer's rebalance listener calls: the methods in
// the order called (Sequence: revoked, assigned, lost), all on the
// application's goroutine inside Poll or, for the release at close, Close
// (InPoll), and consistent partitions
// (each revoked or lost partition owned before, each assigned one not):
// Java's ConsumerRebalanceListener contract.
type Listener struct {
	Consumer string   `yaml:"consumer,omitempty" sc:"name"`
	Sequence []string `yaml:"sequence" sc:"required"`
	InPoll   bool     `yaml:"in_poll,omitempty"`
}

var listenerMethods = []string{"revoked", "assigned", "lost"}

func (a *Listener) key(sc *Scenario) string { return "listener" + sc.suffix(a.Consumer) }

func (a *Listener) validate(c *checker, e *Expectation) error {
	if err := c.groupOf(e, a.Consumer); err != nil {
		return err
	}
	if c.sc.consumerOf(a.Consumer).IsShare() {
		return c.errf(e.line("consumer"), a.Consumer, "a share consumer has no rebalance listener")
	}
	if len(a.Sequence) > MaxListLen {
		return c.errf(e.line("sequence"), "sequence", "%d calls, more than MaxListLen (%d)", len(a.Sequence), MaxListLen)
	}
	for _, m := range a.Sequence {
		if !slices.Contains(listenerMethods, m) {
			return c.errf(e.line("sequence"), m, "unknown listener method (known: %s)", strings.Join(listenerMethods, ", "))
		}
	}
	return nil
}

func (a *Listener) evaluate(r *run, e *Expectation) {
	m := r.member(a.Consumer)
	calls, ok := m.rebalanceCalls()
	key := a.key(r.sc)
	if !ok {
		r.figure(Figure{Name: key, Pass: true, NotApplicable: true, Detail: "the subject neither takes a rebalance listener nor reports its calls"})
		return
	}
	got := make([]string, len(calls))
	var problems []string
	owned := map[managers.TopicPartition]bool{}
	for i, c := range calls {
		got[i] = c.Method
		if a.InPoll && !c.InPoll {
			problems = append(problems, fmt.Sprintf("call %d (%s) ran outside Poll and Close", i+1, c.Method))
		}
		for _, tp := range c.Partitions {
			switch {
			case c.Method == "assigned" && owned[tp]:
				problems = append(problems, fmt.Sprintf("call %d assigned %s, already owned", i+1, tp))
			case c.Method != "assigned" && !owned[tp]:
				problems = append(problems, fmt.Sprintf("call %d %s %s, not owned", i+1, c.Method, tp))
			}
			owned[tp] = c.Method == "assigned"
		}
	}
	ok = slices.Equal(got, a.Sequence) && len(problems) == 0
	r.judge(e, key, ok, Figure{Value: float64(len(calls)), Unit: "calls", Bound: "sequence " + strings.Join(a.Sequence, ", "), Detail: strings.Join(got, ", ")},
		"listener calls %v (want %v); %v", got, a.Sequence, problems)
}
