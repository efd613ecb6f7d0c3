package explore

import (
	"bytes"
	"cmp"
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

// maxProduceSteps bounds the produce steps per topic a scenario file gets
// for the background producer.
const maxProduceSteps = 6

// Scenario writes f's shrunk schedule as a scenario file in
// harness/scenario's format (v2: several consumers, share consumers,
// timed steps), which `kreactor check` accepts and `kreactor run` runs on
// any subject and target:
//
//   - every member is a consumer cN of the run's group (kind: share for a
//     share group), with the schedule's settings;
//   - faults, heals, the background producer's batches and wakeups are
//     timed steps (at: from the timeline's start), each fault with a
//     window of its own name;
//   - each member's calls are a chain of background steps (poll_for
//     between its actions, with the member's poll timeout as each; share
//     members accept each batch), started by the sequence at their times
//     (sleep between), each joined before the member's next step: the
//     members run concurrently, as in the simulation;
//   - the anomaly becomes the expectation that catches it where the
//     vocabulary has one (AnomalyExpectations); otherwise the file reports
//     figures only and says so: the .json replays explore's detector.
//
// It is a transliteration on the wall clock: a step that overruns its time
// delays its member's next step and, through the join, the sequence; an
// interleaving the bubble fixed may not repeat. The .json replays the
// schedule itself.
func Scenario(f Finding, subject string) ([]byte, error) {
	s := f.Shrunk
	if err := s.Validate(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# explore: %s on %s, seed %d (shrunk from size %d to %d): %s\n", f.Anomaly.Name, subject, f.Seed, f.Original.Size(), s.Size(), oneLine(f.ShrunkTo.Evidence))
	fmt.Fprintf(&b, "# Written by kreactor explore (harness/explore): the members' calls as chains of background steps, faults, heals, batches and wakeups as timed steps. Replay the .json beside it for the simulation itself.\n")
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
	b.WriteString("consumers:\n")
	for _, m := range s.Members {
		if s.Share {
			fmt.Fprintf(&b, "  %s: {kind: share, group: true, max_poll_interval: %s}\n", m.Name, dur(m.MaxPollInterval))
			continue
		}
		fmt.Fprintf(&b, "  %s: {group: true, enable_auto_commit: %v, auto_commit_interval: %s, max_poll_interval: %s}\n",
			m.Name, m.AutoCommit, dur(autoCommitInterval), dur(m.MaxPollInterval))
	}
	b.WriteString("steps:\n")
	if s.Produce.Initial > 0 {
		fmt.Fprintf(&b, "  - produce: {topic: %s, count: %d}\n", s.Topics[0].Name, s.Produce.Initial)
	}
	b.WriteString("  - window: run\n")
	w := &writer{s: s, b: &b, faultWindows: map[int]bool{}}
	w.timed()
	w.members()
	b.WriteString("expect:\n")
	b.WriteString(w.expect(f, subject))
	return b.Bytes(), nil
}

// autoCommitInterval is the members' auto.commit.interval.ms.
const autoCommitInterval = 500 * time.Millisecond

// writer writes one schedule's steps and expectations.
type writer struct {
	s            Schedule
	b            *bytes.Buffer
	faultWindows map[int]bool // faults written (by index): their windows exist
	// per member (by index): the names of its commit_async and close
	// steps, in order, and the deadline of each close.
	asyncs   [][]string
	closes   [][]string
	closeDLs [][]time.Duration
}

// timed writes the faults (each with its window), the heals, the
// producer's batches and the wakeups as timed steps.
func (w *writer) timed() {
	s := w.s
	for i, ft := range s.Faults {
		if ft.At >= s.Length {
			continue
		}
		name := fmt.Sprintf("f%d", i+1)
		w.faultWindows[i] = true
		fmt.Fprintf(w.b, "  - fault: {%s, at: %s, as: %s}\n", faultArgs(ft), dur(ft.At), name)
		fmt.Fprintf(w.b, "  - window: {name: %s, at: %s}\n", name, dur(ft.At))
		end := min(ft.At+ft.For, s.Length)
		fmt.Fprintf(w.b, "  - end_window: {name: %s, at: %s}\n", name, dur(end))
		fmt.Fprintf(w.b, "  - heal: {fault: %s, at: %s}\n", name, dur(end))
	}
	if s.Produce.Batch > 0 {
		// The producer's ticks, coalesced into at most maxProduceSteps
		// produce steps per topic.
		var ticks []time.Duration
		for t := s.Produce.Every; t < s.Length; t += s.Produce.Every {
			ticks = append(ticks, t)
		}
		if len(ticks) > 0 {
			per := (len(ticks) + maxProduceSteps - 1) / maxProduceSteps
			for i := 0; i < len(ticks); i += per {
				n := min(per, len(ticks)-i)
				for _, t := range s.Topics {
					fmt.Fprintf(w.b, "  - produce: {topic: %s, count: %d, at: %s}\n", t.Name, n*s.Produce.Batch, dur(ticks[i]))
				}
			}
		}
	}
	for _, m := range s.Members {
		for _, a := range m.Actions {
			if a.Kind == ActWakeup && a.At < s.Length {
				fmt.Fprintf(w.b, "  - wakeup: {consumer: %s, at: %s}\n", m.Name, dur(max(a.At, m.Start)))
			}
		}
	}
}

// chainStep is one step of a member's chain, started by the sequence at At.
type chainStep struct {
	at     time.Duration
	member int
	seq    int    // order within the member
	step   string // the step's key and arguments, without consumer/as/background
	bg     bool   // a background step (joined before the member's next)
}

// members writes the sequence: every member's chain, merged by time.
func (w *writer) members() {
	s := w.s
	w.asyncs = make([][]string, len(s.Members))
	w.closes = make([][]string, len(s.Members))
	w.closeDLs = make([][]time.Duration, len(s.Members))
	var all []chainStep
	for i, m := range s.Members {
		all = append(all, w.chain(i, m)...)
	}
	slices.SortStableFunc(all, func(a, b chainStep) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.member, b.member), cmp.Compare(a.seq, b.seq))
	})
	now := time.Duration(0)
	running := make([]string, len(s.Members)) // each member's background step under way
	for _, c := range all {
		if c.at > now {
			fmt.Fprintf(w.b, "  - sleep: %s\n", dur(c.at-now))
			now = c.at
		}
		m := s.Members[c.member]
		if running[c.member] != "" {
			fmt.Fprintf(w.b, "  - join: %s\n", running[c.member])
			running[c.member] = ""
		}
		key, args, _ := strings.Cut(c.step, ": ")
		args = strings.TrimSuffix(strings.TrimPrefix(args, "{"), "}")
		mods := []string{"consumer: " + m.Name}
		name := fmt.Sprintf("%s_%d", m.Name, c.seq)
		if c.bg {
			mods = append(mods, "background: true", "as: "+name)
			running[c.member] = name
		} else if n, ok := strings.CutPrefix(args, "as: "); ok { // a named quick step (commit_async)
			args, mods = "", append(mods, "as: "+n)
		}
		if args != "" {
			mods = append([]string{args}, mods...)
		}
		fmt.Fprintf(w.b, "  - %s: {%s}\n", key, strings.Join(mods, ", "))
	}
	for i, r := range running {
		if r != "" {
			fmt.Fprintf(w.b, "  - join: %s\n", r)
			running[i] = ""
		}
	}
}

// chain is member i's steps, as its main loop runs them: subscribe at its
// start, Poll between actions (poll_for), each action, and a Close at the
// end if no action closed it.
func (w *writer) chain(i int, m Member) []chainStep {
	s := w.s
	var out []chainStep
	add := func(t time.Duration, bg bool, step string) string {
		out = append(out, chainStep{at: t, member: i, seq: len(out) + 1, step: step, bg: bg})
		return fmt.Sprintf("%s_%d", m.Name, len(out))
	}
	each := max(m.PollTimeout, time.Millisecond)
	ack := ""
	if s.Share {
		ack = ", ack: accept"
	}
	t := m.Start
	add(t, false, "subscribe: {topics: ["+strings.Join(topicNames(s, nil), ", ")+"]}")
	pollUntil := func(to time.Duration) {
		if to > t {
			add(t, true, fmt.Sprintf("poll_for: {duration: %s, each: %s%s}", dur(to-t), dur(each), ack))
			t = to
		}
	}
	release := false
	for _, a := range m.Actions {
		if a.At >= s.Length || a.Kind == ActWakeup {
			continue
		}
		pollUntil(a.At)
		if release && a.At > t { // the release applies to the next Poll
			release = false
		}
		switch a.Kind {
		case ActPoll:
			each = max(a.Timeout, time.Millisecond)
		case ActCommitSync:
			add(t, true, fmt.Sprintf("commit_sync: {timeout: %s}", dur(a.Timeout)))
		case ActCommitAsync:
			n := fmt.Sprintf("%s_async%d", m.Name, len(w.asyncs[i])+1)
			w.asyncs[i] = append(w.asyncs[i], n)
			add(t, false, "commit_async: {as: "+n+"}")
		case ActPause:
			add(t, false, "pause_all: {if_assigned: true}")
		case ActResume:
			add(t, false, "resume_all: {if_assigned: true}")
		case ActSubscribe:
			add(t, false, "subscribe: {topics: ["+strings.Join(topicNames(s, a.Topics), ", ")+"]}")
		case ActStall:
			t += min(a.Timeout, s.Length-t) // the member makes no call
		case ActAckRelease:
			add(t, true, fmt.Sprintf("poll: {timeout: %s, ack: release}", dur(each)))
		case ActClose:
			w.closes[i] = append(w.closes[i], add(t, true, fmt.Sprintf("close: {timeout: %s}", dur(a.Timeout))))
			w.closeDLs[i] = append(w.closeDLs[i], a.Timeout)
			return out
		}
	}
	pollUntil(s.Length)
	w.closes[i] = append(w.closes[i], add(max(t, s.Length), true, fmt.Sprintf("close: {timeout: %s}", dur(EndCloseTimeout))))
	w.closeDLs[i] = append(w.closeDLs[i], EndCloseTimeout)
	return out
}

// faultArgs is a fault's kind and arguments in the scenario vocabulary.
func faultArgs(f Fault) string {
	first := ""
	if f.Count > 0 {
		first = fmt.Sprintf(", first: %d", f.Count)
	}
	switch f.Kind {
	case FaultError:
		return fmt.Sprintf("kind: error, key: %s, error: %s%s", kmsg.NameForKey(f.Key), kerr.ErrorForCode(f.Code).(*kerr.Error).Message, first)
	case FaultDelay:
		return fmt.Sprintf("kind: delay, key: %s, delay: %s%s", kmsg.NameForKey(f.Key), dur(f.Delay), first)
	case FaultHold:
		return fmt.Sprintf("kind: hold, key: %s", kmsg.NameForKey(f.Key))
	case FaultDrop:
		return fmt.Sprintf("kind: brokers-down, node: %d", f.Node)
	case FaultStop:
		return fmt.Sprintf("kind: stop-broker, node: %d", f.Node)
	case FaultCoordinatorDown:
		return "kind: coordinator-unavailable"
	case FaultCoordinatorMove:
		return "kind: stop-broker, node: coordinator"
	case FaultBrokersDown:
		return "kind: brokers-down"
	case FaultBlackHole:
		return fmt.Sprintf("kind: black-hole, node: %d", f.Node)
	case FaultRefuse:
		return fmt.Sprintf("kind: refuse, node: %d", f.Node)
	}
	panic(fmt.Sprintf("explore: fault kind %s has no scenario form", f.Kind)) // Validate rejects unknown kinds
}

// AnomalyExpectations names, per anomaly, the scenario expectation a
// finding's file gets. An anomaly not listed has none that says the same
// thing: its file reports figures only.
var AnomalyExpectations = map[string]string{
	AnomalyCommitPast:      "commits_within_processed",
	AnomalyLost:            "delivered",
	AnomalyDuplicate:       "delivered",
	AnomalyNonmonotonic:    "delivered",
	AnomalySkipped:         "delivered",
	AnomalyCallbackNever:   "callbacks",
	AnomalyCallbackTwice:   "callbacks",
	AnomalyClosePast:       "duration",
	AnomalyRetryStorm:      "requests",
	AnomalySpin:            "spurious_wakeups",
	AnomalyCommitAfterLeft: "none_after",
	AnomalyCrossDuplicate:  "duplicates",
	AnomalyKeptRevoked:     "duplicates",
}

// expect is the expectations that catch f's anomaly.
func (w *writer) expect(f Finding, subject string) string {
	s := w.s
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, "  "+format+"\n", args...) }
	reportOnly := func(why string) {
		line("# explore's %s has no scenario expectation that says the same (%s): these figures are reported only;", f.Anomaly.Name, why)
		line("# replay the .json (kreactor explore -replay) for explore's verdict")
		for i, m := range s.Members {
			for _, c := range w.closes[i] {
				line("- duration: {of: %s, report_only: true}", c)
			}
			_ = m
		}
	}
	switch name := f.Anomaly.Name; {
	case name == AnomalyCommitPast && !s.Share:
		if len(s.Members) > 1 {
			line("# the first member's commits against what it had processed (the expectation has one key per file;")
			line("# explore's detector compares every commit with what any member had been handed)")
		}
		line("- commits_within_processed: {consumer: %s}", s.Members[0].Name)
	case (name == AnomalyLost || name == AnomalyDuplicate || name == AnomalyNonmonotonic || name == AnomalySkipped) && !s.Share:
		n := s.Produce.Initial
		if s.Produce.Batch > 0 {
			for t := s.Produce.Every; t < s.Length; t += s.Produce.Every {
				n += s.Produce.Batch * len(s.Topics)
			}
		}
		who := ""
		if len(s.Members) > 1 {
			who = ", consumer: all"
			line("# the members' records together: a record two members delivered counts as delivered twice")
		}
		line("# every record the schedule produced, each once, in offset order per partition")
		line("- delivered: {records: %d%s}", n, who)
	case (name == AnomalyCallbackNever || name == AnomalyCallbackTwice) && !s.Share:
		for i := range s.Members {
			for _, a := range w.asyncs[i] {
				line("- callbacks: {of: %s, count: 1}", a)
			}
		}
		if b.Len() == 0 {
			reportOnly("no commit_async in the shrunk schedule")
		}
	case name == AnomalyClosePast:
		for i := range s.Members {
			for j, c := range w.closes[i] {
				tol := CloseToleranceWall
				if IsProcess(subject) {
					tol = CloseToleranceProcess
				}
				line("# the close's deadline plus explore's close tolerance on the wall clock for %s (%s)", subject, dur(tol))
				line("- duration: {of: %s, max: %s}", c, dur(w.closeDLs[i][j]+tol))
			}
		}
	case name == AnomalyRetryStorm:
		for i, ft := range s.Faults {
			bounded := ft.Kind == FaultCoordinatorDown || (ft.Kind == FaultError && ft.Count == -1 &&
				slices.Contains(retryBoundedKeys, kmsg.Key(ft.Key)) && kerr.IsRetriable(kerr.ErrorForCode(ft.Code)))
			if !bounded || !w.faultWindows[i] {
				continue
			}
			key := "FindCoordinator"
			if ft.Kind == FaultError {
				key = kmsg.NameForKey(ft.Key)
			}
			for _, m := range s.Members {
				line("# the retry schedule plus explore's RetryAllowance (%d) and RetryPerEdge (%d) per other fault edge", RetryAllowance, RetryPerEdge)
				line("- requests: {key: %s, window: f%d, consumer: %s, max_backoff_plus: %d}", key, i+1, m.Name, RetryAllowance+RetryPerEdge*(len(s.Faults)-1)*2)
			}
		}
		if b.Len() == 0 {
			reportOnly("no retry-bounded fault in the shrunk schedule")
		}
	case name == AnomalySpin:
		for _, m := range s.Members {
			line("# explore's SpinSteps (%d loop steps per %s), here for the whole run's spurious wakeups (goal: 0)", SpinSteps, SampleEvery)
			line("- spurious_wakeups: {window: run, consumer: %s, max: %d}", m.Name, SpinSteps)
		}
	case name == AnomalyCommitAfterLeft && !s.Share:
		for _, m := range s.Members {
			line("- none_after: {requests: {key: OffsetCommit, consumer: %s}, after: {key: ConsumerGroupHeartbeat, consumer: %s, where: {member_epoch: -1}}, name: commit-after-leave.%s}", m.Name, m.Name, m.Name)
		}
	case (name == AnomalyCrossDuplicate || name == AnomalyKeptRevoked) && !s.Share:
		line("# every record two members delivered; explore's %s counts only those", name)
		if name == AnomalyCrossDuplicate {
			line("# below the offset the group had committed before the second member fetched its position:")
		} else {
			line("# an old owner delivered after it had learnt of the move:")
		}
		line("# a rebalance may redeliver what was not committed, so a conforming run can exceed 0 here")
		line("- duplicates: {max: 0}")
	default:
		reportOnly("a detector of the simulation's own trace")
	}
	return b.String()
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
