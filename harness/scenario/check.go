package scenario

// The validation pass: everything the run would reject or ignore is an error
// at load, naming file, line and key. Load, `kreactor check`, `kreactor run`
// and the suite all go through it (Parse calls check).

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/catalogue"
	"github.com/kreactor/kreactor/reports"
)

type checker struct {
	p       *parser
	sc      *Scenario
	names   map[string]*Step // steps named with as:
	windows map[string]*Step // windows opened so far (file order)
}

func (c *checker) errf(line int, key, format string, args ...any) error {
	return c.p.errf(line, key, format, args...)
}

func check(p *parser, sc *Scenario) error {
	c := &checker{p: p, sc: sc, names: map[string]*Step{}, windows: map[string]*Step{}}
	for _, fn := range []func() error{c.identity, c.stepNames, c.stepConsumers, c.anchors, c.backgrounds, c.stepArgs, c.sizes, c.configs, c.expectations, c.signals, c.evidence} {
		if err := fn(); err != nil {
			return err
		}
	}
	return nil
}

// identity: an id the suite's labels accept (an id that is not one used to
// crash the Ginkgo tree at construction), and catalogue items that exist.
func (c *checker) identity() error {
	if err := reports.CheckSpecID(c.sc.ID); err != nil {
		return c.errf(c.sc.idLine, c.sc.ID, "%v", err)
	}
	cat, err := catalogue.Load()
	if err != nil {
		return c.errf(c.sc.coversLine, "covers", "the catalogue does not load: %v", err)
	}
	for _, it := range c.sc.Covers {
		if err := reports.CheckCoverID(it); err != nil {
			return c.errf(c.sc.coversLine, it, "%v", err)
		}
		if _, ok := cat.Lookup(it); !ok {
			return c.errf(c.sc.coversLine, it, "covers an item the catalogue does not have (catalogue/catalogue.json; an outside report is an item of kind external with its source URL)")
		}
	}
	return nil
}

func (c *checker) stepNames() error {
	for _, st := range c.sc.Steps {
		if st.As == "" {
			continue
		}
		if prev, dup := c.names[st.As]; dup {
			return c.errf(st.line("as"), st.As, "step name used twice (also line %d)", prev.Line)
		}
		c.names[st.As] = st
	}
	return nil
}

func (c *checker) stepConsumers() error {
	for _, st := range c.sc.Steps {
		def := st.def()
		if def.consumer == nil {
			continue
		}
		cs, ok := c.sc.ConsumerByName(c.consumerName(st.Consumer))
		if !ok {
			return c.errf(st.line("consumer"), st.Consumer, "unknown consumer (declared: %s)", strings.Join(c.consumerNames(), ", "))
		}
		if !slices.Contains(def.consumer, cs.Kind) {
			return c.errf(st.Line, st.Kind, "%s is a step of a %s consumer; consumer %s is %s", st.Kind, strings.Join(def.consumer, " or "), cs.Name, cs.Kind)
		}
	}
	return nil
}

func (c *checker) consumerName(name string) string {
	if name == "" {
		return c.sc.defaultConsumer().Name
	}
	return name
}

func (c *checker) consumerNames() []string {
	var out []string
	for _, cs := range c.sc.Consumers {
		out = append(out, cs.Name)
	}
	return out
}

// consumerOf is the consumer a step acts on.
func (c *checker) consumerOf(st *Step) *ConsumerSpec {
	if st == nil {
		return c.sc.defaultConsumer()
	}
	return c.sc.consumerOf(st.Consumer)
}

// anchors: at: names a step of the sequence (or a background step) that
// exists.
func (c *checker) anchors() error {
	for _, st := range c.sc.Steps {
		if st.At == nil || st.At.Step == "" {
			continue
		}
		a, ok := c.names[st.At.Step]
		switch {
		case !ok:
			return c.errf(st.line("at"), st.At.Step, "at: names no step (name one with as:)")
		case a.At != nil:
			return c.errf(st.line("at"), st.At.Step, "at: is anchored on a timed step: anchor it on a step of the sequence")
		case a == st:
			return c.errf(st.line("at"), st.At.Step, "a step cannot be anchored on itself")
		}
	}
	return nil
}

// backgrounds: while a background step uses a consumer, the sequence may
// not call that consumer (Java's consumer is for one thread at a time),
// until join; timed steps call no consumer but through Wakeup.
func (c *checker) backgrounds() error {
	busy := map[string]*Step{} // consumer -> background step using it
	for _, st := range c.sc.Steps {
		if st.At != nil {
			continue
		}
		if j, ok := st.Args.(*Join); ok {
			for cons, bg := range busy {
				if bg.As == j.Step {
					delete(busy, cons)
				}
			}
		}
		if !st.usesConsumer() {
			continue
		}
		cons := c.consumerName(st.Consumer)
		if bg, ok := busy[cons]; ok && st.Kind != "wakeup" {
			return c.errf(st.Line, st.Kind, "consumer %s is busy with the background %s of line %d: join it first (join: %s)", cons, bg.Kind, bg.Line, bg.name())
		}
		if st.Background {
			if st.As == "" {
				return c.errf(st.line("background"), "background", "name a background step (as:) so it can be joined and judged")
			}
			busy[cons] = st
		}
	}
	for _, st := range c.sc.Steps {
		if st.Background && st.As == "" {
			return c.errf(st.line("background"), "background", "name a background step (as:) so it can be joined and judged")
		}
	}
	return nil
}

func (c *checker) stepArgs() error {
	for _, st := range c.sc.Steps {
		if w, ok := st.Args.(*Window); ok {
			if prev, dup := c.windows[w.Name]; dup {
				return c.errf(st.Line, w.Name, "window opened twice (also line %d)", prev.Line)
			}
			c.windows[w.Name] = st
		}
		if v, ok := st.Args.(validator); ok {
			if err := v.validate(c, st); err != nil {
				return err
			}
		}
	}
	return nil
}

// sizes: the produce total and the timeline's bound.
func (c *checker) sizes() error {
	total := 0
	for _, st := range c.sc.Steps {
		if p, ok := st.Args.(*Produce); ok {
			total += p.Count
			if total > MaxProduceTotal {
				return c.errf(st.line("count"), "count", "the file produces %d records, more than MaxProduceTotal (%d)", total, MaxProduceTotal)
			}
		}
	}
	if b := c.sc.Bound(); b > MaxTimeline {
		return c.errf(1, "steps", "the timeline can take %s (the sum of its steps' timeouts and durations), longer than MaxTimeline (%s)", b, MaxTimeline)
	}
	return nil
}

// Bound is the longest the timeline can take: the sum of the sequence's
// steps' bounds (background steps run beside it, so a background step adds
// what it can run past the sequence), plus the latest timed step's offset.
func (sc *Scenario) Bound() time.Duration {
	var seq, bg, timed time.Duration
	for _, st := range sc.Steps {
		var d time.Duration
		if b, ok := st.Args.(bounded); ok {
			d = b.bound(sc, st)
		}
		switch {
		case st.At != nil:
			timed = max(timed, st.At.Offset+d)
		case st.Background:
			bg = max(bg, seq+d)
		default:
			seq += d
		}
	}
	return max(seq, bg) + timed
}

// configs: each consumer's configuration as the consumer validates it.
func (c *checker) configs() error {
	for _, cs := range c.sc.Consumers {
		rejected := ""
		for _, e := range c.sc.Expect {
			if cr, ok := e.Args.(*ConfigRejected); ok && c.consumerName(cr.Consumer) == cs.Name {
				rejected = cr.Field
			}
		}
		if err := c.p.validateConfig(cs, rejected); err != nil {
			return err
		}
	}
	return nil
}

func (c *checker) expectations() error {
	keys := map[string]*Expectation{}
	for _, e := range c.sc.Expect {
		if v, ok := e.Args.(expectValidator); ok {
			if err := v.validate(c, e); err != nil {
				return err
			}
		}
		if err := c.literalBound(e); err != nil {
			return err
		}
		for _, k := range e.keys(c.sc) {
			if prev, dup := keys[k]; dup {
				return c.errf(e.Line, k, "two expectations have this key (also line %d): name one (name:) or tell them apart", prev.Line)
			}
			keys[k] = e
		}
	}
	return nil
}

// literalBound: a literal upper bound above zero (a duration, or a count a
// rule from the configuration does not give) carries a comment saying where
// it comes from.
func (c *checker) literalBound(e *Expectation) error {
	literal := false
	switch a := e.Args.(type) {
	case *Requests:
		literal = a.Max != nil && *a.Max > 0
	case *Connections:
		literal = a.Max != nil && *a.Max > 0
	case *Counter:
		literal = a.Max != nil && *a.Max > 0
	case *DurationOf:
		literal = a.Max != nil || a.Min != nil
	case *FirstRecord:
		literal = a.Max != nil
	case *CPU:
		literal = a.Max != nil
	}
	if literal && e.Comment == "" {
		return c.errf(e.Line, e.Kind, "a literal bound carries a comment saying where it comes from (a # line above the expectation); or derive it (max_backoff_plus, max_heartbeats_plus)")
	}
	return nil
}

func (c *checker) signals() error {
	regression := false
	if cat, err := catalogue.Load(); err == nil {
		for _, it := range c.sc.Covers {
			item, _ := cat.Lookup(it)
			regression = regression || item.Kind == catalogue.KindRegression
		}
	}
	known := map[string]bool{}
	for _, e := range c.sc.Expect {
		for _, k := range e.keys(c.sc) {
			known[k] = true
		}
	}
	for _, list := range []struct {
		name string
		keys []string
		line int
	}{{"signals", c.sc.Signals, c.sc.signalsLine}, {"liveness", c.sc.Liveness, c.sc.livenessLine}} {
		if regression && len(list.keys) == 0 {
			return c.errf(1, list.name, "a scenario covering a regression names its %s: expectation keys (%s)", list.name, strings.Join(slices.Sorted(maps.Keys(known)), ", "))
		}
		for _, k := range list.keys {
			if !known[k] {
				return c.errf(list.line, k, "%s names a key no expectation has (keys: %s)", list.name, strings.Join(slices.Sorted(maps.Keys(known)), ", "))
			}
		}
	}
	return nil
}

// Helpers the validate methods use.

// topic checks that topic is one of the cluster's and returns its
// partition count.
func (c *checker) topic(line int, key, topic string) (int32, error) {
	parts, ok := c.sc.Cluster.Topics[topic]
	if !ok {
		return 0, c.errf(line, topic, "not a topic of the cluster (cluster.topics: %s)", strings.Join(slices.Sorted(maps.Keys(c.sc.Cluster.Topics)), ", "))
	}
	return parts, nil
}

// partition checks that partition p of topic exists.
func (c *checker) partition(line int, key, topic string, p int32) error {
	parts, err := c.topic(line, key, topic)
	if err != nil {
		return err
	}
	if p < 0 || p >= parts {
		return c.errf(line, key, "topic %s has %d partitions (0..%d): partition %d does not exist", topic, parts, parts-1, p)
	}
	return nil
}

// window checks that window name ("" none) is opened by a window step.
func (c *checker) window(e *Expectation, name string) error {
	if name == "" {
		return nil
	}
	if _, ok := c.windows[name]; !ok {
		return c.errf(e.line("window"), name, "unknown window (open one with a window step)")
	}
	return nil
}

// consumerRef checks an expectation's consumer name ("all" when allowed).
func (c *checker) consumerRef(e *Expectation, name string, all bool) error {
	if name == "" || (all && name == "all") {
		return nil
	}
	if _, ok := c.sc.ConsumerByName(name); !ok {
		return c.errf(e.line("consumer"), name, "unknown consumer (declared: %s)", strings.Join(c.consumerNames(), ", "))
	}
	return nil
}

// groupOf checks that the expectation's consumer has a group.
func (c *checker) groupOf(e *Expectation, name string) error {
	if err := c.consumerRef(e, name, false); err != nil {
		return err
	}
	if c.sc.consumerOf(name).Group == "" {
		return c.errf(e.Line, e.Kind, "consumer %s has no group", c.consumerName(name))
	}
	return nil
}

// groupConsumer is the named consumer if it has a group, or the first
// consumer with one for "".
func (c *checker) groupConsumer(name string) *ConsumerSpec {
	for _, cs := range c.sc.Consumers {
		if (name == "" || cs.Name == name) && cs.Group != "" {
			return cs
		}
	}
	return nil
}

// stepRef checks that name names a step, of one of kinds if given.
func (c *checker) stepRef(e *Expectation, key, name string, kinds ...string) error {
	st, ok := c.names[name]
	if !ok {
		return c.errf(e.line(key), name, "unknown step name (name a step with as:)")
	}
	if len(kinds) > 0 && !slices.Contains(kinds, st.Kind) {
		return c.errf(e.line(key), name, "names a %s step; %s expects one of %v", st.Kind, e.Kind, kinds)
	}
	return nil
}

// beforeRef checks a before: anchor ("NAME" or "NAME.end").
func (c *checker) beforeRef(e *Expectation, before string) error {
	if before == "" {
		return nil
	}
	name, _ := strings.CutSuffix(before, ".end")
	if _, ok := c.names[name]; !ok {
		return c.errf(e.line("before"), before, "before: names no step (NAME or NAME.end of a step named with as:)")
	}
	return nil
}

// bodyKeys are the API keys whose request bodies the expectations' where
// selectors read.
func (sc *Scenario) bodyKeys() []kmsg.Key {
	set := map[kmsg.Key]bool{}
	add := func(k APIKey, w Where) {
		if w != nil {
			set[kmsg.Key(k)] = true
		}
	}
	for _, e := range sc.Expect {
		switch a := e.Args.(type) {
		case *Requests:
			if a.Where != nil {
				for _, k := range a.apis() {
					set[k] = true
				}
			}
		case *Order:
			add(a.Before.Key, a.Before.Where)
			add(a.After.Key, a.After.Where)
		case *NoneAfter:
			add(a.Requests.Key, a.Requests.Where)
			add(a.After.Key, a.After.Where)
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// groupRefs are the consumers' group refs the expectations read the
// broker's state of (group, committed).
func (sc *Scenario) groupRefs() []string {
	set := map[string]bool{}
	for _, e := range sc.Expect {
		switch a := e.Args.(type) {
		case *GroupState:
			set[sc.consumerOf(a.Consumer).Group] = true
		case *Committed:
			set[sc.consumerOf(a.Consumer).Group] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// wants reports whether sc has an expectation of kind.
func (sc *Scenario) wants(kind string) bool {
	return slices.ContainsFunc(sc.Expect, func(e *Expectation) bool { return e.Kind == kind })
}
