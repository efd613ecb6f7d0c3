package reports

import (
	"slices"
	"strings"
)

// Term is one glossary entry: a kind of figure, how to recognise it by name, and exactly
// what it counts, for every subject.
type Term struct {
	// Anchor is the HTML id ("glossary-loop-steps").
	Anchor string
	Term   string
	// Prefixes and Contains recognise figure names of this kind.
	Prefixes []string
	Contains []string
	Unit     string
	// Definition says what is counted, where, and how subjects differ.
	Definition string
	// Source is where the figure is measured (package, counter, protocol field).
	Source string
}

// Glossary lists the figure kinds the specs attach, in the order the report shows them. A
// figure name matches the first term whose prefix it starts with or whose fragment it holds.
// Suffixes name the window a figure covers: "_in_window" is the spec's measured window;
// ".outage", ".idle", ".held", ... are a scenario file's named windows.
var Glossary = []Term{
	{Anchor: "glossary-headroom", Term: "headroom", Contains: []string{".headroom"},
		Unit: "x", Source: "measure.Headroom: bound / max(observed, 1), attached next to every figure with an upper bound",
		Definition: "How many times larger than the observed value the figure's upper bound is, on the run's subject (read it on the reactor). " +
			"Near 1: the reference barely meets the bound (a bound that may flake under load, or one that is exact by construction, such as one wake per Poll of the spec's own loop). " +
			"Large: a regression that multiplies the figure by less than this passes. Bounds of 0 have none."},
	{Anchor: "glossary-loop-steps", Term: "loop steps", Prefixes: []string{"loop_steps", "steps."},
		Unit: "steps", Source: "reactor.Stats.Steps (both engines count one per pass of their loop)",
		Definition: "Passes of the consumer's background loop in the window: drain the inbox, poll every request manager, send, publish, run effects, wait. " +
			"An idle consumer takes a few steps per second (one per response, application event or timer); a spinning one takes thousands. " +
			"Black-box subjects (a real client) have no loop probe: their column shows – and the CPU plot stands in."},
	{Anchor: "glossary-spurious-wakeups", Term: "spurious wakeups", Prefixes: []string{"spurious_wakeups"},
		Unit: "wakeups", Source: "reactor.Stats.SpuriousWakeups, counted in reactor.Driver.Publish, the one place every engine (reactor.Loop, baseline.Loop) publishes",
		Definition: "Loop wakes (the inbox received an observation, or the wait timed out) after which nothing was applied, nothing was sent, no effect ran, " +
			"and the published decision and snapshot say what the previous publication said, times aside (the same managers with the same result kinds, awaited inputs and reasons; " +
			"a decision that differs only in when it wakes next is the same decision rescheduled). One definition, one place, for every subject with a loop probe. " +
			"A manager that asks to be polled again in 1 ms for nothing makes every such wake spurious. Goal: 0."},
	{Anchor: "glossary-app-wakeups", Term: "application wakeups", Prefixes: []string{"app_wakeups"},
		Unit: "wakeups", Source: "reactor.Stats.AppWakeups, counted by the engine (Engine.WaitFor and Engine.NoteAppWakeup) for every subject with a loop probe",
		Definition: "Every release of an application wait on the engine (Poll, CommitSync, Close, Subscribe...): a reply, a publication, a context's end, the baseline's fetch-buffer signal or timer, " +
			"whether or not the call then returned. A call that wakes only when its condition may have changed wakes once; a call woken by every background step ping-pongs (KAFKA-20854). " +
			"Bounds on it come from the spec's own loop (one per Poll of the spec's slice in the window), never from the number of Polls the subject made."},
	{Anchor: "glossary-ready-without-request", Term: "Ready without request", Prefixes: []string{"ready_without_request"},
		Unit: "results", Source: "reactor.Stats.ReadyWithoutRequest",
		Definition: "Manager results that said Ready (send now) but carried no request: a contract violation (design invariant 1), counted and never spun on. Goal: 0."},
	{Anchor: "glossary-past-deadline", Term: "past deadline", Prefixes: []string{"past_deadline"},
		Unit: "results", Source: "reactor.Stats.PastDeadline, and the harness's own count from the published decisions (measure.PastDeadlinesIn); the figure is the larger",
		Definition: "RetryAt results at or before their step's time (or with no time) and Await deadlines at or before it: a zero wait, the KAFKA-20253 shape, and a counted contract violation like Ready without request. " +
			"The loop ignores them for its wait and never spins on them, so only this count shows them. Goal: 0."},
	{Anchor: "glossary-early-returns", Term: "early returns", Prefixes: []string{"early_returns", "commit_returns"},
		Unit: "calls", Source: "Diagnostics.CommitReturns (internal/client): the published version when a commit call's release ran, against the version of its completion",
		Definition: "Commit calls released before the decision that contains their completion was published (invariant 4 as the application sees it). Goal: 0."},
	{Anchor: "glossary-keys", Term: "signals, liveness, failed keys",
		Definition: "Every regression spec names its signal (the expectation keys, i.e. figure names, that express the Jira's symptom) and its liveness keys (records delivered, a commit completing, an error surfaced). " +
			"The negative control (baseline) must fail on a signal key; the null control (a consumer whose transport never sends) must fail on a liveness key; a failure on anything else (another key, a timeout, a panic, a setup error; \"timeline\": a step could not be carried out) does not count."},
	{Anchor: "glossary-observations", Term: "observations", Prefixes: []string{"observations"},
		Unit: "observations", Source: "reactor.Stats.Observations",
		Definition: "Observations the loop applied: responses, errors, timeouts and application events taken from its inbox."},
	{Anchor: "glossary-timer-wakes", Term: "timer wakes", Prefixes: []string{"timer_wakes"},
		Unit: "wakeups", Source: "reactor.Stats.TimerWakes",
		Definition: "Loop wakes because the earliest RetryAt or Await deadline passed (backoff steps, heartbeat interval, request timeouts)."},
	{Anchor: "glossary-requests", Term: "requests", Prefixes: []string{"requests.", "find_coordinator", "commits.observed"},
		Unit: "requests or req/s", Source: "broker side: fakebroker.Recorder (kfake) or the recording proxy (kafka), filtered by the consumer's client id",
		Definition: "Requests of one API key the brokers received from the consumer in the window, as the broker saw them (any client shows these, real ones included). " +
			"requests.<Key>.<window> is a scenario file's count; a _rate is per second of the window."},
	{Anchor: "glossary-durations", Term: "durations", Prefixes: []string{"duration.", "close_duration", "heal_to_commit", "resume_", "time_to_first_record", "new_coordinator"},
		Unit: "ms", Source: "wall clock around the application call or between the named events, measured by the harness",
		Definition: "How long an application call took (Poll, CommitSync, Close) or how long from an event (heal, broker stop) to the next visible progress (commit completes, records arrive)."},
	{Anchor: "glossary-delivery", Term: "records delivered", Prefixes: []string{"delivered", "records"},
		Unit: "records", Source: "harness delivery checker (exactly once, offset order per partition)",
		Definition: "Records Poll returned, checked for duplicates, gaps and order against what was produced; _past_commit counts records delivered again after the last commit."},
	{Anchor: "glossary-commits", Term: "commits", Prefixes: []string{"commits."},
		Unit: "commits", Source: "broker-side OffsetCommit requests compared with what the application processed",
		Definition: "Auto-commits observed and how far a committed offset ran ahead of the records the application had processed (must be 0 ahead)."},
	{Anchor: "glossary-errors", Term: "errors surfaced", Prefixes: []string{"error."},
		Unit: "errors", Source: "errors returned by the application call named after the dot",
		Definition: "Errors an application call returned (the .detail text entry gives the message); a scenario states whether one is expected."},
	{Anchor: "glossary-callbacks", Term: "callbacks", Prefixes: []string{"callbacks."},
		Unit: "callbacks", Source: "harness: callbacks registered by the spec",
		Definition: "Commit callbacks still pending (never run) at the point the scenario checks; a dropped callback is a lost completion."},
	{Anchor: "glossary-config", Term: "config rejected", Prefixes: []string{"config_rejected"},
		Unit: "", Source: "consumer.ConfigError",
		Definition: "1 when the consumer refused the configuration (naming the field), 0 when it accepted it."},
	{Anchor: "glossary-cpu", Term: "CPU (plots)", Prefixes: []string{"cpu"},
		Unit: "ms per s", Source: "getrusage(RUSAGE_SELF) for in-process subjects; measure.CPUSampler (the subject's own process) for black-box subjects",
		Definition: "CPU time (user + system) per second of wall time. For the in-process subjects (reactor, baseline) it is the whole test process: the consumer, the harness and, on the kfake target, the fake broker too."},
	{Anchor: "glossary-faults", Term: "fault windows (plots)",
		Definition: "Shaded spans on a plot: from the moment a fault was installed through the cluster (coordinator unavailable, broker stopped, error, hold, delay, brokers down) to its heal, in the colour of the subject whose run it belongs to."},
}

// TermFor returns the glossary term a figure name belongs to.
func TermFor(name string) (Term, bool) {
	for _, t := range Glossary {
		if slices.ContainsFunc(t.Prefixes, func(p string) bool { return strings.HasPrefix(name, p) }) ||
			slices.ContainsFunc(t.Contains, func(c string) bool { return strings.Contains(name, c) }) {
			return t, true
		}
	}
	return Term{}, false
}
