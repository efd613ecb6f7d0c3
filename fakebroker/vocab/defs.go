package vocab

import "slices"

// Def is one fault kind as a front end writes it: its name, the arguments
// it takes besides kind, those it needs, and its documentation.
type Def struct {
	Name string
	// Args are the kind's own arguments (key, error, topic, delay, node,
	// downtime), in every front end.
	Args []string
	// Requires are the Args that must be given.
	Requires []string
	// Selects: the kind takes the request selectors (SelectorArgs) and
	// triggers (TriggerArgs).
	Selects bool
	// Group: the fault is about one consumer group. A scenario file names
	// a consumer (whose group it is); the control API names the group.
	Group bool
	// Doc is one line of Markdown; Example one use in a scenario file.
	Doc, Example string
}

// SelectorArgs select the requests a selecting kind acts on: where (body
// fields, CompileWhere), node (a broker id, or coordinator).
var SelectorArgs = []string{"where", "node"}

// TriggerArgs say which of the selected requests it acts on (Trigger):
// first N, only the N-th, each with a seeded probability.
var TriggerArgs = []string{"first", "nth", "probability", "seed"}

// Defs are the fault kinds, in documentation order.
var Defs = []Def{
	{Name: "coordinator-unavailable", Group: true,
		Doc:     "FindCoordinator for the group answers COORDINATOR_NOT_AVAILABLE; its heartbeats, commits and offset fetches NOT_COORDINATOR",
		Example: "- fault: {kind: coordinator-unavailable, as: outage}"},
	{Name: "error", Args: []string{"key", "error", "topic"}, Requires: []string{"key", "error"}, Selects: true,
		Doc:     "requests of API `key` (any API, by name) are answered with Kafka error `error` (any, by name) instead of being applied; `topic` limits it to that topic's entities",
		Example: "- fault: {kind: error, key: ConsumerGroupHeartbeat, error: FENCED_MEMBER_EPOCH, where: {member_epoch: 0}, first: 1}"},
	{Name: "hold", Args: []string{"key"}, Requires: []string{"key"}, Selects: true,
		Doc:     "requests of `key` get no answer until healed (later requests on the same connection wait behind them)",
		Example: "- fault: {kind: hold, key: FindCoordinator, as: held}"},
	{Name: "delay", Args: []string{"key", "delay"}, Requires: []string{"key", "delay"}, Selects: true,
		Doc:     "requests of `key` are answered after `delay`",
		Example: "- fault: {kind: delay, key: OffsetCommit, delay: 500ms, as: slow}"},
	{Name: "brokers-down", Args: []string{"node"},
		Doc:     "every broker (or `node`) closes the connection of every request it receives (it keeps accepting connections)",
		Example: "- fault: {kind: brokers-down, as: down}"},
	{Name: "black-hole", Args: []string{"node"},
		Doc:     "every broker (or `node`) accepts connections and reads requests but never answers any, until healed",
		Example: "- fault: {kind: black-hole, node: coordinator, as: silent}"},
	{Name: "refuse", Args: []string{"node"},
		Doc:     "every broker (or `node`) refuses connections (its open ones close) until healed; leadership and coordination stay where they are (a single broker that is down)",
		Example: "- fault: {kind: refuse, node: 0, as: down}"},
	{Name: "restart", Args: []string{"node", "downtime"}, Requires: []string{"node", "downtime"},
		Doc:     "`node` restarts keeping its leadership: its connections close and new ones are refused for `downtime`, then it accepts again (heals by itself)",
		Example: "- fault: {kind: restart, node: coordinator, downtime: 1s}"},
	{Name: "stop-broker", Args: []string{"node"}, Requires: []string{"node"},
		Doc:     "`node` stops (its listener closes; leadership and coordination move to the others) until healed, which restarts it",
		Example: "- fault: {kind: stop-broker, node: 1, as: stopped}"},
}

// Names lists the kinds of Defs, in order.
func Names() []string {
	out := make([]string, len(Defs))
	for i, d := range Defs {
		out[i] = d.Name
	}
	return out
}

// DefOf returns the kind named name, or false.
func DefOf(name string) (Def, bool) {
	i := slices.IndexFunc(Defs, func(d Def) bool { return d.Name == name })
	if i < 0 {
		return Def{}, false
	}
	return Defs[i], true
}

// NodeCoordinator is the node argument naming the coordinator of the
// fault's group (resolved when the fault is installed).
const NodeCoordinator = "coordinator"
