package scenario

// Steps: the timeline's vocabulary. Each step kind is one small struct (its
// arguments, decoded by decode.go) with its own validate, run and bound
// methods, in the style of etcd raft's interaction-test handlers: parsing,
// checking and running one step live together in one file (steps_*.go), and
// the registry below is the only place that lists them. The runner never
// switches on a step's kind.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Step is one timeline entry: its kind, its arguments (a pointer to the
// kind's struct, e.g. *Poll) and the modifiers every step may carry.
type Step struct {
	Line int
	Kind string
	Args StepArgs
	// As names the step, for expectations (of:, before:), at: anchors,
	// heal (a fault) and join (a background step). Names are unique.
	As string
	// Consumer is the consumer the step acts on ("" the first declared).
	Consumer string
	// At, when set, takes the step out of the sequence: it runs at that
	// time on the timeline, concurrently with whatever the sequence is
	// doing (a fault injected 300 ms into a Poll(5s), a heal during
	// Close, a wakeup). Only steps that do not use a consumer's
	// application thread may be timed (wakeup is safe from any thread).
	At *At
	// Background starts the step on its own goroutine and goes on with
	// the sequence at once; join waits for it. Its consumer may not be
	// used by the sequence until then.
	Background bool

	lines keyLines
}

// StepArgs is a step kind's arguments: one of the structs in steps_*.go.
type StepArgs interface {
	// run carries the step out. It returns an error when the step could
	// not be carried out (the timeline stops there); outcomes the file
	// judges (a Poll's error) are recorded, not returned.
	run(ctx context.Context, r *run, st *Step) error
}

// validator is implemented by arguments with rules across their fields or
// against the rest of the file.
type validator interface {
	validate(c *checker, st *Step) error
}

// bounded is implemented by arguments that can take time: the longest the
// step can take, for MaxTimeline and the run's deadline.
type bounded interface {
	bound(sc *Scenario, st *Step) time.Duration
}

// stepDef is one step kind in the registry.
type stepDef struct {
	kind string
	new  func() StepArgs
	// shorthand is the key a scalar or list value fills
	// (`subscribe: [t]` is `subscribe: {topics: [t]}`); "" when the step
	// takes only a mapping.
	shorthand string
	// consumer: the step acts on a consumer ("consumer:" allowed); on
	// which kinds of consumer.
	consumer []string
	// timed: the step may carry at: (it does not use a consumer's
	// application thread, or only a thread-safe call).
	timed bool
	// background: the step may carry background: true.
	background bool
	doc        string // one line for the README
	example    string // one example, as a YAML list item
}

var (
	kindsBoth    = []string{KindRegular, KindShare}
	kindsRegular = []string{KindRegular}
	kindsShare   = []string{KindShare}
)

// stepDefs is the registry, in the README's order.
var stepDefs = []stepDef{
	{kind: "produce", new: func() StepArgs { return &Produce{} }, timed: true, background: true,
		doc:     "produce `count` records to `topic`, record i to partition i mod P; with `rate` (records/s) paced over count/rate seconds",
		example: "- produce: {topic: t, count: 300, rate: 100, background: true, as: producer}"},
	{kind: "subscribe", new: func() StepArgs { return &Subscribe{} }, shorthand: "topics", consumer: kindsBoth,
		doc: "subscribe to these topics (joins the group)", example: "- subscribe: [t]"},
	{kind: "unsubscribe", new: func() StepArgs { return &Unsubscribe{} }, consumer: kindsRegular,
		doc: "unsubscribe (Java's unsubscribe: the member leaves the group)", example: "- unsubscribe: {consumer: b}"},
	{kind: "assign", new: func() StepArgs { return &Assign{} }, shorthand: "partitions", consumer: kindsRegular,
		doc: "manual assignment of these partitions", example: "- assign: {t: [0, 1]}"},
	{kind: "seek", new: func() StepArgs { return &Seek{} }, consumer: kindsRegular,
		doc: "move the fetch position of an assigned partition (Java's seek)", example: "- seek: {topic: t, partition: 0, offset: 5}"},
	{kind: "wait_assigned", new: func() StepArgs { return &WaitAssigned{} }, consumer: kindsBoth, background: true,
		doc:     "wait until the consumer owns at least `partitions` partitions (default 1); `poll` (required) says whether to call Poll meanwhile (records those Polls return count as delivered) or only watch the assignment",
		example: "- wait_assigned: {poll: true, timeout: 10s}"},
	{kind: "consume", new: func() StepArgs { return &Consume{} }, consumer: kindsBoth, background: true,
		doc:     "Poll (100 ms at a time) until `records` more records than the previous consume's target were delivered",
		example: "- consume: {records: 30, timeout: 10s}"},
	{kind: "poll", new: func() StepArgs { return &Poll{} }, consumer: kindsBoth, background: true,
		doc: "one Poll with that timeout", example: "- poll: {timeout: 5s, as: long}"},
	{kind: "poll_for", new: func() StepArgs { return &PollFor{} }, consumer: kindsBoth, background: true,
		doc:     "Poll for `duration`, `each` per call (default 100 ms), sleeping `process` after each non-empty batch (slow processing)",
		example: "- poll_for: {duration: 3s, each: 100ms, process: 50ms}"},
	{kind: "commit_sync", new: func() StepArgs { return &CommitSync{} }, consumer: kindsBoth, background: true,
		doc: "CommitSync (a share consumer: its acknowledgements)", example: "- commit_sync: {timeout: 5s, as: sync}"},
	{kind: "commit_async", new: func() StepArgs { return &CommitAsync{} }, consumer: kindsBoth,
		doc: "CommitAsync; a regular consumer's callback is checked by `callbacks`", example: "- commit_async: {as: pending}"},
	{kind: "acknowledge", new: func() StepArgs { return &Acknowledge{} }, consumer: kindsShare,
		doc:     "acknowledge records of the last Poll's batch: `type` accept, release, reject or renew; `records` all (default) or the first N",
		example: "- acknowledge: {type: release, records: 2}"},
	{kind: "assignment", new: func() StepArgs { return &AssignmentStep{} }, consumer: kindsRegular,
		doc: "read the consumer's assignment (Java's assignment()) under the step's name, for an assignment expectation (as: required)", example: "- assignment: {as: before}"},
	{kind: "position", new: func() StepArgs { return &OffsetLookup{} }, consumer: kindsRegular,
		doc: "look up the fetch position of an assigned partition by `timeout` (Java's position(tp, Duration); `timeout: 0s` a zero timeout; absent 10 s); n/a for a subject without the look-up", example: "- position: {topic: t, partition: 0, timeout: 0s, as: pos}"},
	{kind: "committed_offset", new: func() StepArgs { return &CommittedLookup{} }, consumer: kindsRegular,
		doc: "look up the group's committed offset of a partition by `timeout` (Java's committed(partitions, Duration); `timeout: 0s` a zero timeout; absent 10 s); n/a for a subject without the look-up", example: "- committed_offset: {topic: t, partition: 0, timeout: 5s, as: committed}"},
	{kind: "pause_all", new: func() StepArgs { return &PauseAll{} }, consumer: kindsRegular,
		doc: "pause every assigned partition; with `if_assigned: true` nothing when nothing is assigned (else that stops the timeline)", example: "- pause_all:"},
	{kind: "resume_all", new: func() StepArgs { return &ResumeAll{} }, consumer: kindsRegular,
		doc: "resume every assigned partition; `if_assigned` as pause_all's", example: "- resume_all: {if_assigned: true}"},
	{kind: "wakeup", new: func() StepArgs { return &Wakeup{} }, consumer: kindsBoth, timed: true,
		doc: "Wakeup (safe from any thread, so it may be timed: at: long+300ms)", example: "- wakeup: {at: long+300ms}"},
	{kind: "fault", new: func() StepArgs { return &Fault{} }, timed: true,
		doc: "install a fault (see Faults)", example: "- fault: {kind: hold, key: Fetch, as: held}"},
	{kind: "heal", new: func() StepArgs { return &Heal{} }, shorthand: "fault", timed: true,
		doc: "remove the fault named NAME", example: "- heal: held"},
	{kind: "sleep", new: func() StepArgs { return &Sleep{} }, shorthand: "duration", background: true,
		doc: "let time pass (the consumers work on their own meanwhile; no consumer call)", example: "- sleep: 500ms"},
	{kind: "window", new: func() StepArgs { return &Window{} }, shorthand: "name", timed: true,
		doc: "open a measurement window NAME", example: "- window: outage"},
	{kind: "end_window", new: func() StepArgs { return &EndWindow{} }, shorthand: "name", timed: true,
		doc: "close window NAME (windows still open at the end close there)", example: "- end_window: outage"},
	{kind: "join", new: func() StepArgs { return &Join{} }, shorthand: "step",
		doc: "wait until the background step NAME has finished", example: "- join: producer"},
	{kind: "close", new: func() StepArgs { return &Close{} }, consumer: kindsBoth, background: true,
		doc:     "Close with that deadline (`timeout: 0s` is a zero deadline; absent, 10 s)",
		example: "- close: {timeout: 500ms, as: close}"},
}

func stepDefOf(kind string) (stepDef, bool) {
	i := slices.IndexFunc(stepDefs, func(d stepDef) bool { return d.kind == kind })
	if i < 0 {
		return stepDef{}, false
	}
	return stepDefs[i], true
}

// StepKinds lists the step kinds, for error messages and docs.
func StepKinds() []string {
	out := make([]string, len(stepDefs))
	for i, d := range stepDefs {
		out[i] = d.kind
	}
	return out
}

func (p *parser) steps(n *yaml.Node, out *[]*Step) error {
	notOne := "a step is a mapping with exactly one key, the step kind (one of: " + strings.Join(StepKinds(), ", ") + "); its modifiers (as, consumer, at, background) go inside its arguments"
	return p.kindList(n, "steps", "steps", MaxSteps, "MaxSteps", notOne, func(item *yaml.Node) error {
		st, err := p.step(item.Content[0], item.Content[1])
		if err != nil {
			return err
		}
		*out = append(*out, st)
		return nil
	})
}

func (p *parser) step(k, v *yaml.Node) (*Step, error) {
	def, ok := stepDefOf(k.Value)
	if !ok {
		return nil, p.errf(k.Line, k.Value, "unknown step (known: %s)", strings.Join(StepKinds(), ", "))
	}
	st := &Step{Line: k.Line, Kind: k.Value, Args: def.new()}
	what := "step " + k.Value
	// The shorthand form: a scalar or a list fills one key.
	if def.shorthand != "" && (v.Kind == yaml.SequenceNode || (v.Kind == yaml.ScalarNode && !isNull(v))) {
		v = &yaml.Node{Kind: yaml.MappingNode, Line: v.Line, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: def.shorthand, Line: v.Line}, v}}
	}
	extra := map[string]func(*yaml.Node) error{
		"as": func(n *yaml.Node) error { return p.str(n, "as", true, &st.As) },
	}
	if def.consumer != nil {
		extra["consumer"] = func(n *yaml.Node) error { return p.str(n, "consumer", true, &st.Consumer) }
	}
	if def.timed {
		extra["at"] = func(n *yaml.Node) error {
			st.At = &At{}
			return st.At.decodeNode(p, n)
		}
	}
	if def.background {
		extra["background"] = func(n *yaml.Node) error {
			b, err := parseBool(n)
			if err != nil {
				return p.errf(n.Line, "background", "want true or false, got %s", describe(n))
			}
			st.Background = b
			return nil
		}
	}
	if _, isAssign := st.Args.(*Assign); isAssign && v.Kind == yaml.MappingNode {
		// assign's mapping is topic -> partitions; only its modifiers are
		// keys of their own.
		return st, p.assign(v, st, extra)
	}
	lines, err := p.decodeStruct(v, what, st.Args, extra)
	if err != nil {
		return nil, err
	}
	st.lines = lines
	if st.At != nil && st.Background {
		return nil, p.errf(lines.line("background", st.Line), "background", "a timed step (at:) runs on its own already: drop background")
	}
	return st, nil
}

func parseBool(n *yaml.Node) (bool, error) {
	switch {
	case n.Kind == yaml.ScalarNode && n.Value == "true":
		return true, nil
	case n.Kind == yaml.ScalarNode && n.Value == "false":
		return false, nil
	}
	return false, fmt.Errorf("not a bool")
}

func (st *Step) String() string { return fmt.Sprintf("line %d: %s", st.Line, st.Kind) }

// line is the line of the step's key, or the step's.
func (st *Step) line(key string) int { return st.lines.line(key, st.Line) }

// def is the step's registry entry.
func (st *Step) def() stepDef {
	d, _ := stepDefOf(st.Kind)
	return d
}

// name is the step's name: As, or "<kind>@<line>".
func (st *Step) name() string {
	if st.As != "" {
		return st.As
	}
	return fmt.Sprintf("%s@%d", st.Kind, st.Line)
}

// usesConsumer reports whether the step acts on a consumer.
func (st *Step) usesConsumer() bool { return st.def().consumer != nil }
