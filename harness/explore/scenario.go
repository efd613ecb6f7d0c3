package explore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Report is a finding as written to DIR/*.json: the shrunk schedule with
// its seed and anomaly; `kreactor explore -replay FILE` runs it again.
type Report struct {
	Seed    uint64 `json:"seed"`
	Subject string `json:"subject"`
	// Release is the subject's version when it was found (Release).
	Release string `json:"release,omitempty"`
	Anomaly string `json:"anomaly"`
	// Rate is how often the schedule showed the anomaly over replays.
	Rate         *Rate    `json:"rate,omitempty"`
	OriginalSize int      `json:"original_size"`
	Schedule     Schedule `json:"schedule"`
}

// JSON renders r as indented JSON.
func (r Report) JSON() []byte {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		panic(fmt.Sprintf("explore: marshal report: %v", err)) // plain data: cannot fail
	}
	return append(b, '\n')
}

// ParseReport reads a Report written by JSON.
func ParseReport(b []byte) (Report, error) {
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("explore: report: %w", err)
	}
	return r, r.Schedule.Validate()
}

// NotExpressible says why a schedule cannot be written in the scenario
// format of harness/scenario (one consumer, steps in sequence).
type NotExpressible struct{ Reasons []string }

func (e *NotExpressible) Error() string {
	return "explore: not expressible as a scenario file (harness/scenario, v1): " + strings.Join(e.Reasons, "; ")
}

// maxProduceSteps bounds the produce steps per topic a scenario file gets
// for the background producer.
const maxProduceSteps = 6

// Scenario writes f's shrunk schedule as a scenario file in
// harness/scenario's format (main's, v1): the timeline becomes steps in
// sequence (poll_for between events), the anomaly becomes the expectation
// that catches it. What v1 cannot say (several members, a share group,
// wakeup, node-level faults, a fault on a count of requests, the anomalies
// commit-after-leave, goroutine-leak and the share ones) is a
// *NotExpressible naming each reason.
func Scenario(f Finding, subject string) ([]byte, error) {
	s := f.Shrunk
	var why []string
	if s.Share {
		why = append(why, "a share group")
	}
	if len(s.Members) != 1 {
		why = append(why, fmt.Sprintf("%d members", len(s.Members)))
	}
	for _, m := range s.Members {
		for _, a := range m.Actions {
			if a.Kind == ActWakeup || a.Kind == ActAckRelease {
				why = append(why, "action "+a.Kind.String())
			}
		}
	}
	for _, ft := range s.Faults {
		switch {
		case ft.Kind == FaultDrop || ft.Kind == FaultStop || ft.Kind == FaultCoordinatorMove:
			why = append(why, "fault "+ft.Kind.String())
		case (ft.Kind == FaultError || ft.Kind == FaultDelay) && ft.Count != -1:
			why = append(why, fmt.Sprintf("fault %s on %d requests", ft.Kind, ft.Count))
		}
	}
	switch f.Anomaly.Name {
	case AnomalyCommitAfterLeft, AnomalyLeak, AnomalyAckLost, AnomalyAckTwice:
		why = append(why, "anomaly "+f.Anomaly.Name)
	}
	if len(why) > 0 {
		slices.Sort(why)
		return nil, &NotExpressible{slices.Compact(why)}
	}
	m := s.Members[0]

	// Events on one timeline: member actions, fault edges, producer ticks.
	type event struct {
		at    time.Duration
		order int // at one instant: faults, then producer, then the member
		step  string
	}
	var ev []event
	for i, ft := range s.Faults {
		if ft.At >= s.Length {
			continue
		}
		name := fmt.Sprintf("f%d", i+1)
		ev = append(ev, event{ft.At, 0, faultStep(ft, name) + "\n  - window: " + name},
			event{min(ft.At+ft.For, s.Length), 0, "end_window: " + name + "\n  - heal: " + name})
	}
	if s.Produce.Batch > 0 {
		// The producer's ticks, coalesced into at most maxProduceSteps
		// produce steps per topic (each a blocking step of its own in the
		// sequence; issue 12's checker bounds the sum of step timeouts).
		var ticks []time.Duration
		for at := s.Produce.Every; at < s.Length; at += s.Produce.Every {
			ticks = append(ticks, at)
		}
		per := (len(ticks) + maxProduceSteps - 1) / maxProduceSteps
		for i := 0; i < len(ticks); i += per {
			n := min(per, len(ticks)-i)
			for _, t := range s.Topics {
				ev = append(ev, event{ticks[i], 1, fmt.Sprintf("produce: {topic: %s, count: %d}", t.Name, n*s.Produce.Batch)})
			}
		}
	}
	closes, commits := 0, 0
	closed, closedAt := false, time.Duration(-1)
	for _, a := range m.Actions {
		if a.At >= s.Length || closed {
			continue
		}
		var step string
		switch a.Kind {
		case ActPoll:
			step = "#poll " + dur(a.Timeout)
		case ActCommitSync:
			step = fmt.Sprintf("commit_sync: {timeout: %s}", dur(a.Timeout))
		case ActCommitAsync:
			commits++
			step = fmt.Sprintf("commit_async: {as: async%d}", commits)
		case ActPause:
			step = "pause_all: {}"
		case ActResume:
			step = "resume_all: {}"
		case ActSubscribe:
			step = "subscribe: [" + strings.Join(topicNames(s, a.Topics), ", ") + "]"
		case ActStall:
			step = "sleep: " + dur(min(a.Timeout, s.Length-a.At))
		case ActClose:
			closes++
			step = fmt.Sprintf("close: {timeout: %s, as: close%d}", dur(a.Timeout), closes)
			closed = true
			closedAt = max(a.At, m.Start)
		}
		ev = append(ev, event{max(a.At, m.Start), 2, step})
	}
	if !closed {
		closes++
		ev = append(ev, event{s.Length, 3, fmt.Sprintf("close: {timeout: %s, as: close%d}", dur(EndCloseTimeout), closes)})
	}
	slices.SortStableFunc(ev, func(a, b event) int {
		if a.at != b.at {
			return int(a.at - b.at)
		}
		return a.order - b.order
	})

	var b bytes.Buffer
	fmt.Fprintf(&b, "# explore: %s on %s, seed %d (shrunk from size %d to %d): %s\n", f.Anomaly.Name, subject, f.Seed, f.Original.Size(), s.Size(), oneLine(f.ShrunkTo.Evidence))
	fmt.Fprintf(&b, "# Written by kreactor explore (harness/explore): the shrunk schedule as steps in sequence; between events the consumer polls (poll_for) as explore's main loop does.\n")
	fmt.Fprintf(&b, "id: explore.%s-%s-seed%d\n", subject, f.Anomaly.Name, f.Seed)
	fmt.Fprintf(&b, "covers: [%s]\n", coversFor(f.Anomaly.Name))
	fmt.Fprintf(&b, "cluster:\n  brokers: %d\n  topics: {", s.Brokers)
	for i, t := range s.Topics {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s: %d", t.Name, t.Partitions)
	}
	b.WriteString("}\n")
	fmt.Fprintf(&b, "consumer:\n  group: true\n  enable_auto_commit: %v\n  auto_commit_interval: 500ms\n  max_poll_interval: %s\n", m.AutoCommit, dur(m.MaxPollInterval))
	b.WriteString("steps:\n")
	if s.Produce.Initial > 0 {
		fmt.Fprintf(&b, "  - produce: {topic: %s, count: %d}\n", s.Topics[0].Name, s.Produce.Initial)
	}
	b.WriteString("  - window: run\n")
	now, each := time.Duration(0), max(m.PollTimeout, time.Millisecond)
	subscribed := false
	opened := map[string]bool{} // the fault windows written ("w" + name)
	gap := func(to time.Duration) {
		if to > now && subscribed {
			fmt.Fprintf(&b, "  - poll_for: {duration: %s, each: %s}\n", dur(to-now), dur(each))
		} else if to > now {
			fmt.Fprintf(&b, "  - sleep: %s\n", dur(to-now))
		}
		now = max(now, to)
	}
	for _, e := range ev {
		if closedAt >= 0 && e.at > closedAt {
			break // the one consumer is closed: nothing after matters to it
		}
		if !subscribed && e.at >= m.Start {
			gap(m.Start)
			fmt.Fprintf(&b, "  - subscribe: [%s]\n", strings.Join(topicNames(s, nil), ", "))
			subscribed = true
		}
		gap(e.at)
		if t, ok := strings.CutPrefix(e.step, "#poll "); ok {
			each, _ = time.ParseDuration(t)
			each = max(each, time.Millisecond)
			continue
		}
		fmt.Fprintf(&b, "  - %s\n", e.step)
		if w, ok := strings.CutPrefix(e.step, "fault: "); ok {
			_, name, _ := strings.Cut(w, "window: ")
			opened["w"+strings.TrimSpace(name)] = true
		}
		if strings.HasPrefix(e.step, "sleep: ") {
			d, _ := time.ParseDuration(strings.TrimPrefix(e.step, "sleep: "))
			now += d
		}
	}
	exp := expectFor(f, s, closes, commits, opened)
	if !strings.Contains(exp, "- ") {
		return nil, &NotExpressible{[]string{"no step the anomaly " + f.Anomaly.Name + " names"}}
	}
	b.WriteString("expect:\n")
	b.WriteString(exp)
	return b.Bytes(), nil
}

func faultStep(f Fault, name string) string {
	switch f.Kind {
	case FaultError:
		return fmt.Sprintf("fault: {kind: error, key: %s, error: %s, as: %s}", kmsg.NameForKey(f.Key), kerr.ErrorForCode(f.Code).(*kerr.Error).Message, name)
	case FaultDelay:
		return fmt.Sprintf("fault: {kind: delay, key: %s, delay: %s, as: %s}", kmsg.NameForKey(f.Key), dur(f.Delay), name)
	case FaultHold:
		return fmt.Sprintf("fault: {kind: hold, key: %s, as: %s}", kmsg.NameForKey(f.Key), name)
	case FaultCoordinatorDown:
		return fmt.Sprintf("fault: {kind: coordinator-unavailable, as: %s}", name)
	case FaultBrokersDown:
		return fmt.Sprintf("fault: {kind: brokers-down, as: %s}", name)
	}
	return "# unexpressible fault " + f.Kind.String()
}

// expectFor is the expectation that catches f's anomaly.
func expectFor(f Finding, s Schedule, closes, commits int, opened map[string]bool) string {
	switch f.Anomaly.Name {
	case AnomalyCommitPast:
		return "  - commits_within_processed: {}\n"
	case AnomalyLost, AnomalyDuplicate, AnomalyNonmonotonic, AnomalySkipped:
		// delivered checks "each once, in offset order" on top of the
		// count; the count is what the schedule produced.
		n := s.Produce.Initial
		if s.Produce.Batch > 0 {
			for at := s.Produce.Every; at < s.Length; at += s.Produce.Every {
				n += s.Produce.Batch * len(s.Topics)
			}
		}
		return fmt.Sprintf("  # every record the schedule produced, each once, in offset order per partition\n  - delivered: {records: %d}\n", n)
	case AnomalyCallbackNever, AnomalyCallbackTwice:
		var b strings.Builder
		for i := 1; i <= commits; i++ {
			fmt.Fprintf(&b, "  - callbacks: {of: async%d, count: 1}\n", i)
		}
		return b.String()
	case AnomalyClosePast:
		var b strings.Builder
		for i := 1; i <= closes; i++ {
			fmt.Fprintf(&b, "  # explore's CloseTolerance (%s) over the deadline\n  - duration: {of: close%d, max: %s}\n", dur(CloseTolerance), i, "DEADLINE")
		}
		return closeDeadlines(b.String(), s)
	case AnomalyRetryStorm:
		var b strings.Builder
		for i, ft := range s.Faults {
			bounded := ft.Kind == FaultCoordinatorDown || (ft.Kind == FaultError && ft.Count == -1 &&
				slices.Contains(retryBoundedKeys, kmsg.Key(ft.Key)) && kerr.IsRetriable(kerr.ErrorForCode(ft.Code)))
			if bounded && opened[fmt.Sprintf("wf%d", i+1)] { // the faults CheckRetries bounds, written before the close
				key := "FindCoordinator"
				if ft.Kind == FaultError {
					key = kmsg.NameForKey(ft.Key)
				}
				fmt.Fprintf(&b, "  # the retry schedule plus explore's RetryAllowance (%d) and RetryPerEdge (%d) per other fault edge\n  - requests: {key: %s, window: f%d, max_backoff_plus: %d}\n", RetryAllowance, RetryPerEdge, key, i+1, RetryAllowance+RetryPerEdge*(len(s.Faults)-1)*2)
			}
		}
		return b.String()
	case AnomalySpin:
		// A spinning loop wakes with nothing to do thousands of times in
		// one sampling window; the bound is explore's SpinSteps for one
		// window, applied to the whole run (the goal is zero).
		return fmt.Sprintf("  # explore's SpinSteps (%d loop steps per %s), here for the whole run's spurious wakeups (goal: 0)\n  - spurious_wakeups: {window: run, max: %d}\n", SpinSteps, SampleEvery, SpinSteps)
	}
	return "  - commits_within_processed: {}\n"
}

// closeDeadlines fills each close expectation's bound with its deadline
// plus the tolerance, in close order.
func closeDeadlines(exp string, s Schedule) string {
	var ds []time.Duration
	for _, a := range s.Members[0].Actions {
		if a.Kind == ActClose && a.At < s.Length {
			ds = append(ds, a.Timeout)
			break
		}
	}
	if len(ds) == 0 {
		ds = append(ds, EndCloseTimeout)
	}
	for _, d := range ds {
		exp = strings.Replace(exp, "DEADLINE", dur(d+CloseTolerance), 1)
	}
	return exp
}

// coversFor is the catalogue item an anomaly's file covers: a property
// (a regression file must also name signals and liveness keys, which a
// found anomaly has not been triaged for yet).
func coversFor(name string) string {
	switch name {
	case AnomalySpin, AnomalyRetryStorm:
		return "P2" // results say why nothing is sent: no spin, no retry faster than the backoff
	case AnomalyClosePast:
		return "P6"
	case AnomalyLost, AnomalyDuplicate, AnomalyNonmonotonic, AnomalySkipped:
		return "E2E-1"
	}
	return "P4"
}

func dur(d time.Duration) string {
	if d%time.Millisecond == 0 {
		return fmt.Sprintf("%dms", d/time.Millisecond)
	}
	return d.String()
}

func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
