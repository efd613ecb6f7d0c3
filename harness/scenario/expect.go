package scenario

import (
	"fmt"

	"github.com/kreactor/kreactor/harness"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
	"go.yaml.in/yaml/v3"
)

// Expectation is one bound the run must stay inside.
type Expectation struct {
	Line   int
	Kind   string
	Window string // counts: the window measured
	Of     string // duration, error, callbacks: the named step

	API            kmsg.Key // requests
	Max, Min       *int     // counts
	MaxBackoffPlus *int     // requests: at most the backoff schedule's attempts in the window plus this
	MinDur, MaxDur *time.Duration
	Is             string // error, callbacks: "none", "wakeup", "commit-failed", "close-deadline", or a Kafka error name
	Field          string // config_rejected
	Records        int    // delivered

	// cpu: the idle window the fault Window is bounded by, and the bound
	// (harness.DefaultCPUBound where a field is left out). See cpu.go.
	Idle string
	CPU  harness.CPUBound
}

// ExpectKinds lists the expectation kinds.
var ExpectKinds = []string{
	"requests", "steps", "spurious_wakeups", "ready_without_request", "past_deadline", "app_wakeups", "early_returns",
	"duration", "error", "callbacks", "commits_within_processed", "config_rejected", "delivered", "cpu",
}

// probeKinds are the expectation kinds read from the loop's counters (the
// optional probe of our consumers).
var probeKinds = []string{"steps", "spurious_wakeups", "ready_without_request", "past_deadline", "app_wakeups", "early_returns"}

// Key is the expectation's key: the name of the figure it produces, which
// signals, liveness and the report's failed keys use ("steps.outage",
// "requests.FindCoordinator.outage", "duration.close", "delivered").
func (e Expectation) Key() string {
	switch e.Kind {
	case "requests":
		return fmt.Sprintf("requests.%s.%s", kmsg.NameForKey(int16(e.API)), e.Window)
	case "duration", "error", "callbacks":
		return e.Kind + "." + e.Of
	case "commits_within_processed":
		return KeyCommitsPastProcessed
	case "config_rejected":
		return "config_rejected." + e.Field
	case "delivered", "early_returns":
		return e.Kind
	}
	return e.Kind + "." + e.Window
}

// Keys a run can fail on besides the expectations' own.
const (
	// KeyCommitsPastProcessed is commits_within_processed's key: a commit
	// exceeded what the application had processed.
	KeyCommitsPastProcessed = "commits.past_processed"
	// KeyCommitsObserved is commits_within_processed's liveness key: no
	// OffsetCommit was observed at all.
	KeyCommitsObserved = "commits.observed"
	// KeyTimeline: a step could not be carried out (a consume that never
	// got its records, a cluster that did not start a fault); the run
	// stopped there, and expectations about what came later were not
	// reached.
	KeyTimeline = harness.KeyTimeline
)

// keys lists every key e can fail on.
func (e Expectation) keys() []string {
	switch e.Kind {
	case "commits_within_processed":
		return []string{KeyCommitsPastProcessed, KeyCommitsObserved}
	case "cpu":
		return []string{e.Key(), e.Key() + harness.CPUSuffixSelects}
	}
	return []string{e.Key()}
}

// ErrorKinds are the non-Kafka values of "is".
var ErrorKinds = []string{"none", "wakeup", "commit-failed", "close-deadline", "any"}

func (e Expectation) ofKinds() []string {
	switch e.Kind {
	case "duration":
		return []string{"poll", "commit_sync", "close"}
	case "error":
		return []string{"poll", "commit_sync", "close"}
	case "callbacks":
		return []string{"commit_async"}
	}
	return nil
}

func (p *parser) expectations(n *yaml.Node, out *[]Expectation) error {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return p.errf(n.Line, "expect", "want a non-empty list of expectations")
	}
	for _, item := range n.Content {
		if item.Kind != yaml.MappingNode || len(item.Content) != 2 {
			return p.errf(item.Line, "", "an expectation is a mapping with exactly one key (one of: %s)", strings.Join(ExpectKinds, ", "))
		}
		k, v := item.Content[0], item.Content[1]
		e := Expectation{Line: k.Line, Kind: k.Value}
		if err := p.expectation(k, v, &e); err != nil {
			return err
		}
		*out = append(*out, e)
	}
	return nil
}

func intPtr(p *parser, n *yaml.Node, out **int) error {
	var v int
	if err := p.int(n, &v); err != nil {
		return err
	}
	*out = &v
	return nil
}

func (p *parser) expectation(k, v *yaml.Node, e *Expectation) error {
	what := "expectation " + k.Value
	window := func(n *yaml.Node) error { return p.str(n, &e.Window) }
	of := func(n *yaml.Node) error { return p.str(n, &e.Of) }
	maxN := func(n *yaml.Node) error { return intPtr(p, n, &e.Max) }
	minN := func(n *yaml.Node) error { return intPtr(p, n, &e.Min) }
	is := func(n *yaml.Node) error {
		if _, ok := kafkaError(n.Value); !ok && !contains(ErrorKinds, n.Value) {
			return p.errf(n.Line, n.Value, "unknown error (one of %s, or a Kafka error name)", strings.Join(ErrorKinds, ", "))
		}
		e.Is = n.Value
		return nil
	}
	counts := map[string]func(*yaml.Node) error{"window": window, "max": maxN, "min": minN}
	switch k.Value {
	case "requests":
		counts["key"] = func(n *yaml.Node) error { return p.apiKey(n, &e.API) }
		counts["max_backoff_plus"] = func(n *yaml.Node) error { return intPtr(p, n, &e.MaxBackoffPlus) }
		if err := p.mapping(v, what, counts, "key", "window"); err != nil {
			return err
		}
		if e.Max == nil && e.Min == nil && e.MaxBackoffPlus == nil {
			return p.errf(v.Line, k.Value, "needs max, min or max_backoff_plus")
		}
		return nil
	case "early_returns":
		if err := p.mapping(v, what, map[string]func(*yaml.Node) error{"max": maxN}, "max"); err != nil {
			return err
		}
		return nil
	case "steps", "spurious_wakeups", "ready_without_request", "past_deadline", "app_wakeups":
		if err := p.mapping(v, what, counts, "window"); err != nil {
			return err
		}
		if e.Max == nil && e.Min == nil {
			return p.errf(v.Line, k.Value, "needs max or min")
		}
		return nil
	case "duration":
		return p.mapping(v, what, map[string]func(*yaml.Node) error{
			"of":  of,
			"min": func(n *yaml.Node) error { return durPtr(p, n, &e.MinDur) },
			"max": func(n *yaml.Node) error { return durPtr(p, n, &e.MaxDur) },
		}, "of")
	case "error":
		return p.mapping(v, what, map[string]func(*yaml.Node) error{"of": of, "is": is}, "of", "is")
	case "callbacks":
		return p.mapping(v, what, map[string]func(*yaml.Node) error{
			"of": of, "is": is,
			"count": func(n *yaml.Node) error { return intPtr(p, n, &e.Max) },
		}, "of", "count")
	case "commits_within_processed":
		return p.empty(v, what)
	case "config_rejected":
		return p.mapping(v, what, map[string]func(*yaml.Node) error{"field": func(n *yaml.Node) error { return p.str(n, &e.Field) }}, "field")
	case "delivered":
		return p.mapping(v, what, map[string]func(*yaml.Node) error{"records": func(n *yaml.Node) error { return p.int(n, &e.Records) }}, "records")
	case "cpu":
		return p.cpuExpectation(v, e)
	}
	return p.errf(k.Line, k.Value, "unknown expectation (known: %s)", strings.Join(ExpectKinds, ", "))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
