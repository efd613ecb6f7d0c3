package scenario

// Expectations: the bounds a run must stay inside. As steps, each kind is one
// small struct with its own validate and evaluate (expect_*.go), listed once
// in the registry below.

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Expectation is one bound: its kind and arguments (a pointer to the kind's
// struct, e.g. *Requests).
type Expectation struct {
	Line int
	Kind string
	Args ExpectArgs

	// Comment is the YAML comment above or beside it: a literal bound
	// says there where it comes from (Format writes it back).
	Comment string

	lines keyLines
}

// ExpectArgs is an expectation kind's arguments.
type ExpectArgs interface {
	// key is the figure's name: what signals, liveness and the report's
	// failed keys use.
	key(sc *Scenario) string
	// evaluate judges the run, adding figures and failures.
	evaluate(r *run, e *Expectation)
}

// expectValidator is implemented by arguments with rules across fields or
// against the file.
type expectValidator interface {
	validate(c *checker, e *Expectation) error
}

// extraKeyer is implemented by kinds that can fail on keys besides key().
type extraKeyer interface{ extraKeys(sc *Scenario) []string }

type expectDef struct {
	kind    string
	new     func() ExpectArgs
	doc     string
	example string
}

var expectDefs = []expectDef{
	{kind: "requests", new: func() ExpectArgs { return &Requests{} },
		doc:     "the brokers saw that many requests of `key` (or of all `keys` together) from the consumer (`consumer: all`: from every consumer of the file) in the window (default: the whole timeline), only those matching `where` if given; bounds `min`, `max`, or one derived from the configuration: `max_backoff_plus: N` (the retry schedule's most attempts in the window, plus N) or `max_heartbeats_plus: N` (one heartbeat per heartbeat interval, plus N)",
		example: "- requests: {key: FindCoordinator, window: outage, max_backoff_plus: 2}"},
	{kind: "connections", new: func() ExpectArgs { return &Connections{} },
		doc: "connections on which the consumer sent at least one request, in the window", example: "- connections: {window: restart, min: 2, max: 6}  # a connection per broker before the restart and after it"},
	{kind: "order", new: func() ExpectArgs { return &Order{} },
		doc:     "both kinds of request were seen and the last `before` request arrived before the first `after` one (\"the final OffsetCommit before the leave heartbeat\")",
		example: "- order: {before: {key: OffsetCommit}, after: {key: ConsumerGroupHeartbeat, where: {member_epoch: -1}}}"},
	{kind: "none_after", new: func() ExpectArgs { return &NoneAfter{} },
		doc:     "an `after` request was seen and no `requests` request arrived after it (\"no OffsetCommit after the leave\")",
		example: "- none_after: {requests: {key: OffsetCommit}, after: {key: ConsumerGroupHeartbeat, where: {member_epoch: -1}}}"},
	{kind: "group", new: func() ExpectArgs { return &GroupState{} },
		doc:     "the broker's view of the consumer's group right after the timeline: `members` (count) and/or `state` (Stable, Empty, ...)",
		example: "- group: {members: 1}"},
	{kind: "committed", new: func() ExpectArgs { return &Committed{} },
		doc:     "the group's committed offsets right after the timeline: partition `partition` of `topic` at `offset`, or the sum over the topic's partitions `total`",
		example: "- committed: {topic: t, total: 30}"},
	{kind: "steps", new: func() ExpectArgs { return &Counter{kind: "steps"} },
		doc: "loop steps in the window (a probe of our consumers; n/a for black-box subjects)", example: "- steps: {window: outage, max: 150}  # a few retries on the backoff schedule; KAFKA-20253 spun 200k steps"},
	{kind: "spurious_wakeups", new: func() ExpectArgs { return &Counter{kind: "spurious_wakeups"} },
		doc: "loop wakes after which nothing was applied, sent, run or published differently (probe)", example: "- spurious_wakeups: {window: outage, max: 0}"},
	{kind: "ready_without_request", new: func() ExpectArgs { return &Counter{kind: "ready_without_request"} },
		doc: "Ready results without a request (probe)", example: "- ready_without_request: {window: outage, max: 0}"},
	{kind: "past_deadline", new: func() ExpectArgs { return &Counter{kind: "past_deadline"} },
		doc: "RetryAt times or Await deadlines at or before their step (probe; the larger of the engine's count and the harness's own from the decisions)", example: "- past_deadline: {window: outage, max: 0}"},
	{kind: "app_wakeups", new: func() ExpectArgs { return &Counter{kind: "app_wakeups"} },
		doc: "releases of an application wait (probe)", example: "- app_wakeups: {window: idle, max: 2}  # the Poll's own return and one fetch wake"},
	{kind: "early_returns", new: func() ExpectArgs { return &EarlyReturns{} },
		doc: "commit calls released before the decision holding their completion was published, over the run (probe)", example: "- early_returns: {max: 0}"},
	{kind: "cpu", new: func() ExpectArgs { return &CPU{} },
		doc:     "CPU the consumer used in `window`, bounded by the `idle` window of the same file (measure.DefaultCPUBound: at most `factor` 3x its CPU + `plus` 100ms, scaled to the window's length; kafka-clients' select-total at most 3x + `select_plus` 1000), or by `max` CPU time where no healthy window can calibrate it, or `report_only`. Checked for subjects whose CPU is their own (java: the driver's /proc threads; kgo: its labelled goroutines); for in-process subjects the test process's CPU is shown only. Keys cpu.WINDOW and cpu.WINDOW.select_total",
		example: "- cpu: {window: outage, idle: calm}"},
	{kind: "duration", new: func() ExpectArgs { return &DurationOf{} },
		doc: "the named step took that long (`min`, `max`, or report_only); for a poll, commit_sync, close, position or committed_offset step of a client in another process (java), its own time for the call, the round trip shown as duration.STEP.round_trip", example: "- duration: {of: close, max: 1s}  # its 500ms deadline plus slack for a loaded machine"},
	{kind: "error", new: func() ExpectArgs { return &ErrorOf{} },
		doc:     "the named step returned `is`: none, any, wakeup, commit-failed, close-deadline, closed, unacknowledged, timeout (its deadline passed first: Go's context.DeadlineExceeded, Java's TimeoutException), or a Kafka error by name",
		example: "- error: {of: long, is: wakeup}"},
	{kind: "records", new: func() ExpectArgs { return &RecordsOf{} },
		doc: "the named step delivered (poll, consume, poll_for, wait_assigned) or acknowledged (acknowledge) that many records", example: "- records: {of: first, min: 1}"},
	{kind: "callbacks", new: func() ExpectArgs { return &Callbacks{} },
		doc:     "the named commit_async's callback ran `count` times, each with `is`, and (with `before`) every run happened before the step named there started (NAME) or returned (NAME.end)",
		example: "- callbacks: {of: pending, count: 1, is: none, before: sync.end}"},
	{kind: "ack_callbacks", new: func() ExpectArgs { return &AckCallbacks{} },
		doc:     "the share consumer's acknowledgement commit callback reported `offsets` acknowledged offsets (min/max), with `is` for each run, (with `before`) all before the named step",
		example: "- ack_callbacks: {offsets: {min: 30}, is: none}"},
	{kind: "commits_within_processed", new: func() ExpectArgs { return &CommitsWithinProcessed{} },
		doc: "no OffsetCommit seen at the broker exceeds what the application had finished processing at that moment", example: "- commits_within_processed:"},
	{kind: "config_rejected", new: func() ExpectArgs { return &ConfigRejected{} },
		doc:     "if the subject refuses the configuration, it is a ConfigError naming `field` (and that is the verdict); if it accepts it, the other bounds apply",
		example: "- config_rejected: {field: RetryBackoff}"},
	{kind: "delivered", new: func() ExpectArgs { return &Delivered{} },
		doc:     "that many distinct records arrived, none twice, in offset order per partition (share: a record seen again only with a higher delivery count); `consumer: all` counts the consumers' records together",
		example: "- delivered: {records: 300}"},
	{kind: "duplicates", new: func() ExpectArgs { return &Duplicates{} },
		doc:     "records of the consumer's group delivered by more than one of the group's consumers (the file's regular consumers naming that group), over the run",
		example: "- duplicates: {max: 0}  # Java's auto-commit before revocation and pending-revocation fetch pause"},
	{kind: "assignment", new: func() ExpectArgs { return &AssignmentOf{} },
		doc:     "the assignment step `of` read `partitions` partitions and/or the same partitions as the assignment step `same_as`",
		example: "- assignment: {of: after, same_as: before}"},
	{kind: "offset", new: func() ExpectArgs { return &OffsetOf{} },
		doc:     "the offset the position or committed_offset step `of` read is within `min`/`max`, or (`none: true`) the committed_offset step found nothing committed",
		example: "- offset: {of: pos, min: 0, max: 30}"},
	{kind: "listener", new: func() ExpectArgs { return &Listener{} },
		doc:     "the consumer's rebalance listener ran `sequence` (revoked, assigned, lost, in the order called), with consistent partitions (each revoked or lost one owned before, each assigned one not), and with `in_poll: true` every call on the application's goroutine inside Poll (or inside Close: the release of the partitions owned at close); n/a for a subject that neither takes a listener nor reports its calls",
		example: "- listener: {sequence: [assigned], in_poll: true}"},
	{kind: "redeliveries", new: func() ExpectArgs { return &Redeliveries{} },
		doc:     "a share consumer saw that many records again with a higher delivery count (released, or their acquisition lock expired)",
		example: "- redeliveries: {min: 1, max: 1}"},
	{kind: "first_record", new: func() ExpectArgs { return &FirstRecord{} },
		doc:     "time from the start of the step named `after` (default: the timeline's start) to the consumer's first record",
		example: "- first_record: {after: joined, max: 5s}  # harness.FirstRecordBound"},
}

// ExpectKinds lists the expectation kinds.
func ExpectKinds() []string {
	out := make([]string, len(expectDefs))
	for i, d := range expectDefs {
		out[i] = d.kind
	}
	return out
}

func expectDefOf(kind string) (expectDef, bool) {
	i := slices.IndexFunc(expectDefs, func(d expectDef) bool { return d.kind == kind })
	if i < 0 {
		return expectDef{}, false
	}
	return expectDefs[i], true
}

func (p *parser) expectations(n *yaml.Node, out *[]*Expectation) error {
	notOne := "an expectation is a mapping with exactly one key (one of: " + strings.Join(ExpectKinds(), ", ") + ")"
	return p.kindList(n, "expect", "expectations", MaxExpectations, "MaxExpectations", notOne, func(item *yaml.Node) error {
		k, v := item.Content[0], item.Content[1]
		def, ok := expectDefOf(k.Value)
		if !ok {
			return p.errf(k.Line, k.Value, "unknown expectation (known: %s)", strings.Join(ExpectKinds(), ", "))
		}
		e := &Expectation{Line: k.Line, Kind: k.Value, Args: def.new()}
		lines, err := p.decodeStruct(v, "expectation "+k.Value, e.Args, nil)
		if err != nil {
			return err
		}
		e.lines = lines
		e.Comment = strings.TrimSpace(strings.Join(strings.Fields(strings.ReplaceAll(item.HeadComment+" "+k.HeadComment+" "+k.LineComment+" "+v.LineComment+" "+lastLineComment(v), "#", " ")), " "))
		*out = append(*out, e)
		return nil
	})
}

// lastLineComment is the line comment of a flow mapping's last value (yaml.v3
// puts a trailing comment there).
func lastLineComment(n *yaml.Node) string {
	if len(n.Content) == 0 {
		return ""
	}
	return n.Content[len(n.Content)-1].LineComment
}

// Key is the expectation's key.
func (e *Expectation) Key(sc *Scenario) string { return e.Args.key(sc) }

// keys lists every key e can fail on.
func (e *Expectation) keys(sc *Scenario) []string {
	out := []string{e.Args.key(sc)}
	if x, ok := e.Args.(extraKeyer); ok {
		out = append(out, x.extraKeys(sc)...)
	}
	return out
}

func (e *Expectation) line(key string) int { return e.lines.line(key, e.Line) }

// Bounds are a count's bounds: Min, Max, or ReportOnly (a figure recorded
// for the report with no bound).
type Bounds struct {
	Min        *int `yaml:"min,omitempty"`
	Max        *int `yaml:"max,omitempty"`
	ReportOnly bool `yaml:"report_only,omitempty"`
}

// validateBounds checks b; derived names bounds given besides min and max
// (max_backoff_plus, ...), set when given.
func validateBounds(c *checker, e *Expectation, b Bounds, derived ...string) error {
	var given []string
	for _, k := range append([]string{"max"}, derived...) {
		if e.lines.has(k) {
			given = append(given, k)
		}
	}
	switch {
	case len(given) > 1:
		return c.errf(e.line(given[1]), given[1], "%s and %s are both upper bounds: only one would apply; give one", given[0], given[1])
	case b.ReportOnly && (e.lines.has("min") || len(given) > 0):
		return c.errf(e.line("report_only"), "report_only", "a report_only figure has no bound: drop min/max or report_only")
	case !b.ReportOnly && !e.lines.has("min") && len(given) == 0:
		bounds := append([]string{"min", "max"}, derived...)
		return c.errf(e.Line, e.Kind, "needs a bound (%s), or report_only: true for a figure recorded without one", strings.Join(bounds, ", "))
	case b.Min != nil && b.Max != nil && *b.Min > *b.Max:
		return c.errf(e.line("min"), "min", "min %d is above max %d: no count can pass", *b.Min, *b.Max)
	}
	return nil
}

// boundText renders min/max.
func boundText(minN, maxN *int) string {
	switch {
	case minN != nil && maxN != nil:
		return fmt.Sprintf("%d..%d", *minN, *maxN)
	case maxN != nil:
		return fmt.Sprintf("<= %d", *maxN)
	case minN != nil:
		return fmt.Sprintf(">= %d", *minN)
	}
	return ""
}

// DurBounds are a duration's bounds.
type DurBounds struct {
	Min        *Duration `yaml:"min,omitempty" sc:"max=timeline"`
	Max        *Duration `yaml:"max,omitempty" sc:"max=timeline"`
	ReportOnly bool      `yaml:"report_only,omitempty"`
}

func (b DurBounds) validate(c *checker, e *Expectation) error {
	switch {
	case b.ReportOnly && (b.Min != nil || b.Max != nil):
		return c.errf(e.line("report_only"), "report_only", "a report_only figure has no bound: drop min/max or report_only")
	case !b.ReportOnly && b.Min == nil && b.Max == nil:
		return c.errf(e.Line, e.Kind, "needs a bound (min, max), or report_only: true")
	case b.Min != nil && b.Max != nil && *b.Min > *b.Max:
		return c.errf(e.line("min"), "min", "min %s is above max %s: no duration can pass", b.Min, b.Max)
	}
	return nil
}

func (b DurBounds) ok(d time.Duration) bool {
	return (b.Min == nil || d >= b.Min.D()) && (b.Max == nil || d <= b.Max.D())
}

func (b DurBounds) String() string {
	switch {
	case b.Min != nil && b.Max != nil:
		return fmt.Sprintf("%s..%s", b.Min, b.Max)
	case b.Max != nil:
		return fmt.Sprintf("<= %s", b.Max)
	case b.Min != nil:
		return fmt.Sprintf(">= %s", b.Min)
	}
	return ""
}

// suffix is ".NAME" for a consumer other than the first, for keys.
func (sc *Scenario) suffix(consumer string) string {
	if consumer == "" || (len(sc.Consumers) > 0 && consumer == sc.Consumers[0].Name) {
		return ""
	}
	return "." + consumer
}
