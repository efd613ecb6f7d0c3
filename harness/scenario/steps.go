package scenario

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
	"go.yaml.in/yaml/v3"

	"github.com/kreactor/kreactor/harness"
)

// Step is one timeline entry. Kind selects which fields are set.
type Step struct {
	Line int
	Kind string
	As   string // name for expectations (poll, commit_sync, commit_async, fault, close)
	Name string // window, end_window, heal: the window or fault named

	Topic    string             // produce
	Count    int                // produce
	Topics   []string           // subscribe
	Assign   map[string][]int32 // assign
	Records  int                // consume
	Timeout  time.Duration      // consume, poll, commit_sync, close, wait_assigned
	Duration time.Duration      // poll_for, sleep
	Each     time.Duration      // poll_for: one Poll's timeout
	Process  time.Duration      // poll_for: processing time per non-empty batch
	Fault    harness.FaultSpec  // fault
	When     string             // fault: request selector ("leave-heartbeat")
}

// StepKinds lists the step kinds, for error messages and docs.
var StepKinds = []string{
	"produce", "subscribe", "assign", "wait_assigned", "consume", "poll", "poll_for",
	"commit_sync", "commit_async", "pause_all", "resume_all", "fault", "heal", "sleep",
	"window", "end_window", "close",
}

// FaultWhens are the request selectors a fault step may use.
var FaultWhens = []string{"leave-heartbeat"}

func (p *parser) steps(n *yaml.Node, out *[]Step) error {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return p.errf(n.Line, "steps", "want a non-empty list of steps")
	}
	for _, item := range n.Content {
		if item.Kind != yaml.MappingNode || len(item.Content) != 2 {
			return p.errf(item.Line, "", "a step is a mapping with exactly one key, the step kind (one of: %s)", strings.Join(StepKinds, ", "))
		}
		k, v := item.Content[0], item.Content[1]
		st := Step{Line: k.Line, Kind: k.Value}
		if err := p.step(k, v, &st); err != nil {
			return err
		}
		*out = append(*out, st)
	}
	return nil
}

func (p *parser) step(k, v *yaml.Node, st *Step) error {
	what := "step " + k.Value
	as := func(n *yaml.Node) error { return p.str(n, &st.As) }
	timeout := func(n *yaml.Node) error { return p.duration(n, &st.Timeout) }
	switch k.Value {
	case "produce":
		return p.mapping(v, what, map[string]func(*yaml.Node) error{
			"topic": func(n *yaml.Node) error { return p.str(n, &st.Topic) },
			"count": func(n *yaml.Node) error { return p.int(n, &st.Count) },
		}, "topic", "count")
	case "subscribe":
		return p.strs(v, &st.Topics)
	case "assign":
		st.Assign = map[string][]int32{}
		return p.mapping(v, what, anyKey(v, func(tk, tv *yaml.Node) error {
			if tv.Kind != yaml.SequenceNode || len(tv.Content) == 0 {
				return p.errf(tv.Line, tk.Value, "want a list of partitions")
			}
			for _, c := range tv.Content {
				var part int
				if err := p.int(c, &part); err != nil {
					return err
				}
				st.Assign[tk.Value] = append(st.Assign[tk.Value], int32(part))
			}
			return nil
		}))
	case "wait_assigned":
		return p.mapping(v, what, map[string]func(*yaml.Node) error{"timeout": timeout})
	case "consume":
		return p.mapping(v, what, map[string]func(*yaml.Node) error{
			"records": func(n *yaml.Node) error { return p.int(n, &st.Records) },
			"timeout": timeout,
		}, "records")
	case "poll":
		return p.mapping(v, what, map[string]func(*yaml.Node) error{"timeout": timeout, "as": as}, "timeout")
	case "poll_for":
		return p.mapping(v, what, map[string]func(*yaml.Node) error{
			"duration": func(n *yaml.Node) error { return p.duration(n, &st.Duration) },
			"each":     func(n *yaml.Node) error { return p.duration(n, &st.Each) },
			"process":  func(n *yaml.Node) error { return p.duration(n, &st.Process) },
		}, "duration")
	case "commit_sync":
		return p.mapping(v, what, map[string]func(*yaml.Node) error{"timeout": timeout, "as": as})
	case "commit_async":
		return p.mapping(v, what, map[string]func(*yaml.Node) error{"as": as})
	case "pause_all", "resume_all":
		return p.empty(v, what)
	case "fault":
		var kind string
		err := p.mapping(v, what, map[string]func(*yaml.Node) error{
			"kind": func(n *yaml.Node) error {
				fk, ok := harness.ParseFaultKind(n.Value)
				if !ok {
					return p.errf(n.Line, n.Value, "unknown fault kind (known: %s)", strings.Join(harness.FaultKindNames(), ", "))
				}
				kind, st.Fault.Kind = n.Value, fk
				return nil
			},
			"key":   func(n *yaml.Node) error { return p.apiKey(n, &st.Fault.Key) },
			"topic": func(n *yaml.Node) error { return p.str(n, &st.Fault.Topic) },
			"error": func(n *yaml.Node) error {
				ke, ok := kafkaError(n.Value)
				if !ok {
					return p.errf(n.Line, n.Value, "unknown Kafka error name (e.g. NOT_COORDINATOR)")
				}
				st.Fault.Err = ke
				return nil
			},
			"delay": func(n *yaml.Node) error { return p.duration(n, &st.Fault.Delay) },
			"when": func(n *yaml.Node) error {
				if !slices.Contains(FaultWhens, n.Value) {
					return p.errf(n.Line, n.Value, "unknown request selector (known: %s)", strings.Join(FaultWhens, ", "))
				}
				st.When = n.Value
				return nil
			},
			"as": as,
		}, "kind")
		if err != nil {
			return err
		}
		if st.When == "leave-heartbeat" {
			st.Fault.Key = kmsg.ConsumerGroupHeartbeat
		}
		if st.Fault.Kind == harness.FaultCoordinatorUnavailable {
			st.Fault.Group = "<scenario group>" // replaced at run time
		}
		if err := st.Fault.Validate(); err != nil {
			return p.errf(v.Line, kind, "%v", err)
		}
		return nil
	case "heal", "window", "end_window":
		return p.str(v, &st.Name)
	case "sleep":
		return p.duration(v, &st.Duration)
	case "close":
		return p.mapping(v, what, map[string]func(*yaml.Node) error{"timeout": timeout, "as": as})
	}
	return p.errf(k.Line, k.Value, "unknown step (known: %s)", strings.Join(StepKinds, ", "))
}

func (st Step) String() string {
	return fmt.Sprintf("line %d: %s", st.Line, st.Kind)
}
