package control

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/fakebroker/vocab"
)

// MaxFaults is how many faults (installed and healed) the API remembers;
// the oldest healed one is forgotten first, and a POST when all are
// installed gets 400.
const MaxFaults = 1000

// MaxExpiry is the longest expires a fault may have (24 h).
const MaxExpiry = 24 * time.Hour

// FaultRequest is a fault in the scenario files' vocabulary (package
// fakebroker/vocab): kind, its arguments, the request selectors and
// triggers, and an expiry. Which arguments a kind takes: GET
// /v1/vocabulary; any other is refused, never ignored.
type FaultRequest struct {
	Kind     string `json:"kind" doc:"the fault kind: coordinator-unavailable, error, hold, delay, brokers-down, black-hole, refuse, restart, stop-broker"`
	Key      string `json:"key,omitempty" doc:"Kafka API by name (ConsumerGroupHeartbeat) or number"`
	Error    string `json:"error,omitempty" doc:"Kafka error by protocol name (FENCED_MEMBER_EPOCH)"`
	Topic    string `json:"topic,omitempty" doc:"error: only this topic's entities"`
	Delay    string `json:"delay,omitempty" doc:"delay: how long each request waits (Go duration: 500ms)"`
	Downtime string `json:"downtime,omitempty" doc:"restart: how long the broker refuses connections"`
	Group    string `json:"group,omitempty" doc:"the group a coordinator-unavailable fault, or node: coordinator, is about"`
	Node     *Node  `json:"node,omitempty" doc:"one broker: its node id, or \"coordinator\" (of group)"`
	// Where selects requests by body: top-level request fields in snake
	// case with the value they must have.
	Where       map[string]any `json:"where,omitempty" doc:"request body selector: {\"member_epoch\": 0}; GET /v1/vocabulary does not list fields, an unknown one is refused naming every field the API has"`
	First       int            `json:"first,omitempty" doc:"act on the first N selected requests only (once: 1)"`
	Nth         int            `json:"nth,omitempty" doc:"act on the N-th selected request only"`
	Probability float64        `json:"probability,omitempty" doc:"act on each selected request with this probability (0 < p <= 1), from a PCG stream seeded with seed"`
	Seed        uint64         `json:"seed,omitempty" doc:"the probability stream's seed"`
	Expires     string         `json:"expires,omitempty" doc:"heal by itself this long after installation (Go duration, at most 24h); absent: until healed"`
}

// Node is a broker id or "coordinator".
type Node struct {
	ID          int32
	Coordinator bool
}

// MarshalJSON writes the id or "coordinator".
func (n Node) MarshalJSON() ([]byte, error) {
	if n.Coordinator {
		return json.Marshal(vocab.NodeCoordinator)
	}
	return json.Marshal(n.ID)
}

// UnmarshalJSON reads a node id (a number or its digits) or "coordinator".
func (n *Node) UnmarshalJSON(b []byte) error {
	var id int32
	if err := json.Unmarshal(b, &id); err == nil {
		*n = Node{ID: id}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		if s == vocab.NodeCoordinator {
			*n = Node{Coordinator: true}
			return nil
		}
		if v, err := strconv.ParseInt(s, 10, 32); err == nil {
			*n = Node{ID: int32(v)}
			return nil
		}
	}
	return badf("node", json.RawMessage(b), "want a broker's node id or \"coordinator\"")
}

func (Node) jsonSchema() map[string]any {
	return map[string]any{"oneOf": []any{map[string]any{"type": "integer"}, map[string]any{"const": vocab.NodeCoordinator}}}
}

// FaultState is an installed (or healed) fault.
type FaultState struct {
	ID        string       `json:"id" doc:"f1, f2, ... (DELETE /v1/faults/{id} heals it)"`
	Fault     FaultRequest `json:"fault" doc:"the fault as it was asked for"`
	Nodes     []int32      `json:"nodes" doc:"the brokers it acts on (node: coordinator resolved); empty: every broker"`
	Hits      int          `json:"hits" doc:"requests (or connections) it acted on so far"`
	Installed time.Time    `json:"installed"`
	ExpiresAt *time.Time   `json:"expires_at,omitempty"`
	Healed    bool         `json:"healed"`
	HealedAt  *time.Time   `json:"healed_at,omitempty"`
}

// KindDoc is one fault kind as the API takes it (GET /v1/vocabulary).
type KindDoc struct {
	Kind     string   `json:"kind"`
	Takes    []string `json:"takes" doc:"the fields a POST /v1/faults of this kind may give besides kind"`
	Requires []string `json:"requires" doc:"the fields it must give"`
	Doc      string   `json:"doc"`
}

// takes lists the fields a fault of def takes over HTTP: its arguments,
// group where a group is meant (the kind is about one, or node, its own or
// a selector, may be coordinator), the selectors and triggers of a
// selecting kind, expires.
func takes(def vocab.Def) []string {
	out := slices.Clone(def.Args)
	if def.Group || slices.Contains(def.Args, "node") || def.Selects {
		out = append(out, "group")
	}
	if def.Selects {
		out = append(out, vocab.SelectorArgs...)
		out = append(out, vocab.TriggerArgs...)
	}
	return append(out, "expires")
}

func requires(def vocab.Def) []string {
	out := slices.Clone(def.Requires)
	if def.Group {
		out = append(out, "group")
	}
	if out == nil {
		out = []string{}
	}
	return out
}

func (s *Server) vocabulary(w http.ResponseWriter, _ *http.Request) error {
	out := []KindDoc{}
	for _, d := range vocab.Defs {
		out = append(out, KindDoc{Kind: d.Name, Takes: takes(d), Requires: requires(d), Doc: d.Doc})
	}
	writeJSON(w, 200, out)
	return nil
}

// compiled is a FaultRequest checked and resolved.
type compiled struct {
	def      vocab.Def
	spec     vocab.Spec // for the vocab.Kind kinds
	stop     bool       // stop-broker
	downtime time.Duration
	expires  time.Duration
}

// compile checks req (given: the fields present) against the vocabulary
// and the backend. Every error is a 400 naming the field and value.
func (s *Server) compile(r *http.Request, req FaultRequest, given map[string]json.RawMessage) (*compiled, error) {
	def, ok := vocab.DefOf(req.Kind)
	if !ok {
		return nil, badf("kind", req.Kind, "unknown fault kind (known: %s)", strings.Join(vocab.Names(), ", "))
	}
	if err := checkGiven(def, given); err != nil {
		return nil, err
	}
	c := &compiled{def: def}
	if err := c.compileValues(req, given); err != nil {
		return nil, err
	}
	if _, ok := given["group"]; ok && !def.Group && (req.Node == nil || !req.Node.Coordinator) {
		return nil, badf("group", req.Group, "fault %s reads group only with node: coordinator (whose coordinator): group would be ignored", def.Name)
	}
	if req.Topic != "" && !vocab.CarriesTopics(c.spec.Key) {
		return nil, badf("topic", req.Topic, "%s requests carry no topic: the topic selector would never match", c.spec.Key.Name())
	}
	c.spec.Topic, c.spec.Group = req.Topic, req.Group
	if req.Node != nil {
		node, err := s.resolveNode(r, req)
		if err != nil {
			return nil, err
		}
		c.spec.Nodes = []int32{node}
	}
	trig := vocab.Trigger{First: req.First, Nth: req.Nth, Probability: req.Probability, Seed: req.Seed}
	if err := trig.Validate(); err != nil {
		field, _, _ := strings.Cut(err.Error(), " ")
		return nil, badf(field, given[field], "%v", err)
	}
	// A zero trigger means "no trigger" inside vocab.Trigger; given
	// explicitly it would silently act on every selected request.
	zero := map[string]bool{"first": req.First == 0, "nth": req.Nth == 0, "probability": req.Probability == 0}
	for _, f := range []string{"first", "nth", "probability"} {
		raw, ok := given[f]
		if !ok || !zero[f] {
			continue
		}
		if f == "probability" {
			return nil, badf(f, raw, "must be > 0 and <= 1 (leave it out to act on every selected request)")
		}
		return nil, badf(f, raw, "must be >= 1 (leave it out to act on every selected request)")
	}
	if _, ok := given["seed"]; ok && req.Probability == 0 {
		return nil, badf("seed", req.Seed, "seed goes with probability")
	}
	sel, err := compileWhere(c.spec.Key, req.Where)
	if err != nil {
		return nil, err
	}
	c.spec.When = trig.Wrap(sel)
	switch def.Name {
	case "stop-broker":
		c.stop = true
		return c, nil
	case "restart":
		if c.downtime <= 0 {
			return nil, badf("downtime", req.Downtime, "must be > 0")
		}
		c.spec.Kind = vocab.Refuse
		return c, nil
	}
	kind, _ := vocab.ParseKind(def.Name)
	c.spec.Kind = kind
	if kind == vocab.Delay && c.spec.Delay <= 0 {
		return nil, badf("delay", req.Delay, "must be > 0")
	}
	if err := c.spec.Validate(); err != nil {
		return nil, badf("kind", req.Kind, "%v", err)
	}
	return c, nil
}

// checkGiven refuses a field the fault kind does not take (it would be
// ignored) and a field it requires that is missing.
func checkGiven(def vocab.Def, given map[string]json.RawMessage) error {
	tk := takes(def)
	for _, k := range slices.Sorted(maps.Keys(given)) {
		if k != "kind" && !slices.Contains(tk, k) {
			return badf(k, json.RawMessage(given[k]), "fault %s takes only %s: %s would be ignored", def.Name, strings.Join(tk, ", "), k)
		}
	}
	for _, k := range requires(def) {
		if _, ok := given[k]; !ok {
			return badf(k, nil, "fault %s needs %s", def.Name, k)
		}
	}
	return nil
}

// compileValues parses the request's expiry, API key, error, delay and
// downtime into c.
func (c *compiled) compileValues(req FaultRequest, given map[string]json.RawMessage) error {
	if req.Expires != "" {
		d, err := duration("expires", req.Expires, MaxExpiry)
		if err != nil {
			return err
		}
		c.expires = d
	}
	if req.Key != "" {
		key, ok := vocab.ParseAPIKey(req.Key)
		if !ok {
			return badf("key", req.Key, "unknown Kafka API (use its name, e.g. FindCoordinator, ConsumerGroupHeartbeat, Fetch, or its number)")
		}
		c.spec.Key = key
	}
	if req.Error != "" {
		ke, ok := vocab.ParseError(req.Error)
		if !ok {
			return badf("error", req.Error, "unknown Kafka error name (e.g. NOT_COORDINATOR, FENCED_MEMBER_EPOCH)")
		}
		c.spec.Err = ke
	}
	if req.Delay != "" || given["delay"] != nil {
		d, err := duration("delay", req.Delay, MaxExpiry)
		if err != nil {
			return err
		}
		c.spec.Delay = d
	}
	if req.Downtime != "" || given["downtime"] != nil {
		d, err := duration("downtime", req.Downtime, MaxExpiry)
		if err != nil {
			return err
		}
		c.downtime = d
	}
	return nil
}

// compileWhere compiles the body selector (nil when where is empty).
func compileWhere(key kmsg.Key, where map[string]any) (func(kmsg.Request) bool, error) {
	if len(where) == 0 {
		return nil, nil
	}
	w := map[string]string{}
	for k, v := range where {
		switch x := v.(type) {
		case string:
			w[k] = x
		case float64:
			w[k] = strconv.FormatFloat(x, 'f', -1, 64)
		case bool:
			w[k] = strconv.FormatBool(x)
		default:
			return nil, badf("where."+k, v, "want a number, string or boolean")
		}
	}
	p, err := vocab.CompileWhere(key, w)
	if err != nil {
		return nil, badf("where", where, "%v", err)
	}
	return p, nil
}

// resolveNode checks req.Node against the backend's brokers, resolving
// coordinator through req.Group.
func (s *Server) resolveNode(r *http.Request, req FaultRequest) (int32, error) {
	n := *req.Node
	if n.Coordinator {
		if req.Group == "" {
			return 0, badf("node", vocab.NodeCoordinator, "node coordinator needs group (whose coordinator)")
		}
		id, err := s.cfg.Backend.Coordinator(r.Context(), req.Group)
		if err != nil {
			return 0, &Error{Status: http.StatusBadGateway, Field: "group", Value: req.Group, Msg: "find the coordinator: " + err.Error()}
		}
		return id, nil
	}
	nodes := s.cfg.Backend.Nodes()
	if !slices.Contains(nodes, n.ID) {
		return 0, badf("node", n.ID, "no such broker (brokers: %s)", joinInts(nodes))
	}
	return n.ID, nil
}

func joinInts(ns []int32) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(int(n))
	}
	return strings.Join(s, ", ")
}

// duration parses a Go duration in (0, max].
func duration(field, s string, limit time.Duration) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, badf(field, s, "want a Go duration (500ms, 2s, 1m)")
	}
	if d <= 0 || d > limit {
		return 0, badf(field, s, "must be > 0 and <= %s", limit)
	}
	return d, nil
}

func (s *Server) postFault(w http.ResponseWriter, r *http.Request) error {
	var req FaultRequest
	given, err := decodeBody(r, &req, jsonKeys(FaultRequest{}))
	if err != nil {
		return err
	}
	c, err := s.compile(r, req, given)
	if err != nil {
		return err
	}
	e, err := s.install(r, req, c)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, e.state())
	return nil
}

// install installs c and remembers it.
func (s *Server) install(r *http.Request, req FaultRequest, c *compiled) (*faultEntry, error) {
	s.mu.Lock()
	if s.installedLocked() >= MaxFaults {
		s.mu.Unlock()
		return nil, badf("kind", req.Kind, "%d faults are installed (MaxFaults): heal some first", MaxFaults)
	}
	s.mu.Unlock()
	var f Fault
	var err error
	if c.stop {
		f, err = s.cfg.Backend.StopBroker(r.Context(), c.spec.Nodes[0])
	} else {
		f, err = s.cfg.Backend.Inject(c.spec)
	}
	if err != nil {
		return nil, fmt.Errorf("fault %s: %w", req.Kind, err)
	}
	e := &faultEntry{req: req, f: f, nodes: c.spec.Nodes, installed: time.Now(), log: s.log}
	if e.nodes == nil {
		e.nodes = []int32{}
	}
	after := c.expires
	if c.def.Name == "restart" && (after == 0 || c.downtime < after) {
		after = c.downtime
	}
	if after > 0 {
		at := e.installed.Add(after)
		e.expiresAt = &at
	}
	s.mu.Lock()
	s.seq++
	e.id = "f" + strconv.Itoa(s.seq)
	s.faults = append(s.faults, e)
	s.forgetLocked()
	s.mu.Unlock()
	s.log.Info("control: fault installed", "id", e.id, "kind", req.Kind)
	// The expiry starts once the entry has its id: heal logs it.
	if after > 0 {
		e.mu.Lock()
		e.timer = time.AfterFunc(after, func() { e.heal("expiry") })
		e.mu.Unlock()
	}
	return e, nil
}
