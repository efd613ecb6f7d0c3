package scenario

// What a rebalance may cost the application: records delivered by more than
// one member of a group.

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
