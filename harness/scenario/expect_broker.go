package scenario

// What the broker saw and holds: request counts (with body selectors, over
// several API keys together), connections, order, and the group's state
// and commits after the timeline.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/measure"
	"github.com/kreactor/kreactor/managers"
)

// Requests bounds the requests the brokers saw from a consumer.
type Requests struct {
	Key      *APIKey  `yaml:"key,omitempty"`
	Keys     []APIKey `yaml:"keys,omitempty"`
	Window   string   `yaml:"window,omitempty" sc:"name"`
	Consumer string   `yaml:"consumer,omitempty" sc:"name"`
	Where    Where    `yaml:"where,omitempty"`
	// Name overrides the key (two expectations on one API and window
	// need different names).
	Name              string `yaml:"name,omitempty" sc:"name"`
	MaxBackoffPlus    *int   `yaml:"max_backoff_plus,omitempty"`
	MaxHeartbeatsPlus *int   `yaml:"max_heartbeats_plus,omitempty"`
	Bounds            `yaml:",inline"`
}

func (a *Requests) apis() []kmsg.Key {
	if a.Key != nil {
		return []kmsg.Key{kmsg.Key(*a.Key)}
	}
	out := make([]kmsg.Key, len(a.Keys))
	for i, k := range a.Keys {
		out[i] = kmsg.Key(k)
	}
	return out
}

func (a *Requests) key(sc *Scenario) string {
	if a.Name != "" {
		return a.Name
	}
	var names []string
	for _, k := range a.apis() {
		names = append(names, k.Name())
	}
	k := "requests." + strings.Join(names, "+")
	if a.Window != "" {
		k += "." + a.Window
	}
	return k + sc.suffix(a.Consumer)
}

func (a *Requests) validate(c *checker, e *Expectation) error {
	switch {
	case a.Key == nil && len(a.Keys) == 0:
		return c.errf(e.Line, "key", "requests needs key (one API) or keys (several, counted together)")
	case a.Key != nil && len(a.Keys) > 0:
		return c.errf(e.line("keys"), "keys", "give key or keys, not both")
	}
	if err := validateBounds(c, e, a.Bounds, "max_backoff_plus", "max_heartbeats_plus"); err != nil {
		return err
	}
	if a.MaxHeartbeatsPlus != nil {
		for _, k := range a.apis() {
			if k != kmsg.ConsumerGroupHeartbeat && k != kmsg.ShareGroupHeartbeat && k != kmsg.Heartbeat {
				return c.errf(e.line("max_heartbeats_plus"), "max_heartbeats_plus", "the heartbeat interval bounds heartbeats only, not %s", k.Name())
			}
		}
	}
	if a.Where != nil {
		if len(a.apis()) != 1 {
			return c.errf(e.line("where"), "where", "where selects by the fields of one API: give key, not keys")
		}
		if _, err := a.Where.compile(a.apis()[0]); err != nil {
			return c.errf(e.line("where"), "where", "%v", err)
		}
	}
	if err := c.window(e, a.Window); err != nil {
		return err
	}
	return c.consumerRef(e, a.Consumer, true)
}

func (a *Requests) evaluate(r *run, e *Expectation) {
	from, to, ok := r.span(e, a.Window)
	if !ok {
		return
	}
	var where func(kmsg.Request) bool
	if a.Where != nil {
		where, _ = a.Where.compile(a.apis()[0])
	}
	n := len(r.requests(a.apis(), a.Consumer, where, from, to))
	maxN, bound := a.Max, ""
	switch {
	case a.MaxBackoffPlus != nil:
		// The retry schedule comes from the configuration through the
		// harness's own reading of Kafka's documented backoff
		// (measure.RetrySchedule), never from the subject's code.
		sched := r.retrySchedule(a.Consumer)
		m := sched.MaxAttemptsIn(to.Sub(from)) + *a.MaxBackoffPlus
		maxN = &m
		bound = fmt.Sprintf("<= %d (retry schedule %s in %s + %d)", m, sched, to.Sub(from).Round(time.Millisecond), *a.MaxBackoffPlus)
	case a.MaxHeartbeatsPlus != nil:
		// One heartbeat per heartbeat interval (the coordinator's
		// group.consumer.heartbeat.interval.ms), the first at once.
		iv := r.cl.HeartbeatInterval()
		m := int(to.Sub(from)/iv) + 1 + *a.MaxHeartbeatsPlus
		maxN = &m
		bound = fmt.Sprintf("<= %d (one per heartbeat interval %s in %s, +1, + %d)", m, iv, to.Sub(from).Round(time.Millisecond), *a.MaxHeartbeatsPlus)
	}
	if bound != "" && a.Min != nil {
		bound = fmt.Sprintf(">= %d and %s", *a.Min, bound)
	}
	r.count(e, a.key(r.sc), n, "requests", a.Min, maxN, bound, a.ReportOnly)
}

// retrySchedule is the consumer's retry schedule from its configuration.
func (r *run) retrySchedule(consumer string) measure.RetrySchedule {
	m := r.order[0]
	if consumer != "" && consumer != "all" {
		m = r.member(consumer)
	}
	if m.spec.IsShare() {
		cfg := m.spec.shareConfig(nil, "", "")
		return measure.RetrySchedule{Initial: cfg.RetryBackoff, Max: cfg.RetryBackoffMax}
	}
	return measure.Schedule(m.spec.regularConfig(nil, "", ""))
}

// Connections bounds the connections the consumer sent requests on.
type Connections struct {
	Window   string `yaml:"window,omitempty" sc:"name"`
	Consumer string `yaml:"consumer,omitempty" sc:"name"`
	Bounds   `yaml:",inline"`
}

func (a *Connections) key(sc *Scenario) string {
	k := "connections"
	if a.Window != "" {
		k += "." + a.Window
	}
	return k + sc.suffix(a.Consumer)
}

func (a *Connections) validate(c *checker, e *Expectation) error {
	if err := validateBounds(c, e, a.Bounds); err != nil {
		return err
	}
	if err := c.window(e, a.Window); err != nil {
		return err
	}
	return c.consumerRef(e, a.Consumer, true)
}

func (a *Connections) evaluate(r *run, e *Expectation) {
	from, to, ok := r.span(e, a.Window)
	if !ok {
		return
	}
	conns := map[[2]int64]bool{}
	for _, q := range r.requests(nil, a.Consumer, nil, from, to) {
		conns[[2]int64{int64(q.Node), int64(q.Conn)}] = true
	}
	r.count(e, a.key(r.sc), len(conns), "connections", a.Min, a.Max, "", a.ReportOnly)
}

// Selector picks requests: an API, optionally a body selector and a
// consumer ("all": every consumer of the file).
type Selector struct {
	Key      APIKey `yaml:"key" sc:"required"`
	Where    Where  `yaml:"where,omitempty"`
	Consumer string `yaml:"consumer,omitempty" sc:"name"`
}

func (s Selector) validate(c *checker, e *Expectation, field string) error {
	if s.Where != nil {
		if _, err := s.Where.compile(kmsg.Key(s.Key)); err != nil {
			return c.errf(e.line(field), field, "%v", err)
		}
	}
	return c.consumerRef(e, s.Consumer, true)
}

func (s Selector) String() string {
	out := s.Key.String()
	if len(s.Where) > 0 {
		var kv []string
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range s.Where {
				if !yield(k) {
					return
				}
			}
		}) {
			kv = append(kv, k+"="+s.Where[k])
		}
		out += "{" + strings.Join(kv, ",") + "}"
	}
	return out
}

func (s Selector) find(r *run) []harness.Request {
	var where func(kmsg.Request) bool
	if s.Where != nil {
		where, _ = s.Where.compile(kmsg.Key(s.Key))
	}
	return r.requests([]kmsg.Key{kmsg.Key(s.Key)}, s.Consumer, where, r.t0, r.tEnd)
}

// Order holds when both kinds of request were seen and the last Before
// arrived before the first After.
type Order struct {
	Before Selector `yaml:"before" sc:"required"`
	After  Selector `yaml:"after" sc:"required"`
	Name   string   `yaml:"name,omitempty" sc:"name"`
}

func (a *Order) key(_ *Scenario) string {
	if a.Name != "" {
		return a.Name
	}
	return "order." + a.Before.Key.String() + "." + a.After.Key.String()
}

func (a *Order) validate(c *checker, e *Expectation) error {
	if err := a.Before.validate(c, e, "before"); err != nil {
		return err
	}
	return a.After.validate(c, e, "after")
}

func (a *Order) evaluate(r *run, e *Expectation) {
	before, after := a.Before.find(r), a.After.find(r)
	f := Figure{Unit: "requests out of order", Bound: "== 0, both seen"}
	switch {
	case len(before) == 0 || len(after) == 0:
		f.Value = 0
		r.judge(e, a.key(r.sc), false, f, "no %s request seen (%d) or no %s request seen (%d)", a.Before, len(before), a.After, len(after))
	default:
		first := after[0].At
		late := 0
		for _, q := range before {
			if !q.At.Before(first) {
				late++
			}
		}
		f.Value = float64(late)
		f.Detail = fmt.Sprintf("%d %s, %d %s; first %s at +%s", len(before), a.Before, len(after), a.After, a.After, first.Sub(r.t0).Round(time.Millisecond))
		r.judge(e, a.key(r.sc), late == 0, f, "%d %s request(s) arrived at or after the first %s (+%s)", late, a.Before, a.After, first.Sub(r.t0).Round(time.Millisecond))
	}
}

// NoneAfter holds when an After request was seen and no Requests request
// arrived after it.
type NoneAfter struct {
	Requests Selector `yaml:"requests" sc:"required"`
	After    Selector `yaml:"after" sc:"required"`
	Name     string   `yaml:"name,omitempty" sc:"name"`
}

func (a *NoneAfter) key(_ *Scenario) string {
	if a.Name != "" {
		return a.Name
	}
	return "none_after." + a.Requests.Key.String() + "." + a.After.Key.String()
}

func (a *NoneAfter) validate(c *checker, e *Expectation) error {
	if err := a.Requests.validate(c, e, "requests"); err != nil {
		return err
	}
	return a.After.validate(c, e, "after")
}

func (a *NoneAfter) evaluate(r *run, e *Expectation) {
	after := a.After.find(r)
	if len(after) == 0 {
		r.judge(e, a.key(r.sc), false, Figure{Unit: "requests", Bound: "== 0 after it"}, "no %s request seen", a.After)
		return
	}
	first := after[0].At
	late := 0
	for _, q := range a.Requests.find(r) {
		if q.At.After(first) {
			late++
		}
	}
	r.judge(e, a.key(r.sc), late == 0, Figure{Value: float64(late), Unit: "requests", Bound: "== 0 after the first " + a.After.String()},
		"%d %s request(s) after the first %s", late, a.Requests, a.After)
}

// GroupState bounds the broker's view of the consumer's group right after
// the timeline.
type GroupState struct {
	Consumer string `yaml:"consumer,omitempty" sc:"name"`
	Members  *int   `yaml:"members,omitempty"`
	State    string `yaml:"state,omitempty" sc:"name"`
}

func (a *GroupState) key(sc *Scenario) string { return "group" + sc.suffix(a.Consumer) }

func (a *GroupState) validate(c *checker, e *Expectation) error {
	if a.Members == nil && a.State == "" {
		return c.errf(e.Line, "group", "needs members or state")
	}
	return c.groupOf(e, a.Consumer)
}

func (a *GroupState) evaluate(r *run, e *Expectation) {
	g := r.member(a.Consumer).group
	gs := r.groupStates[g]
	key := a.key(r.sc)
	if gs.err != nil {
		r.judge(e, key, false, Figure{Unit: "members"}, "group %s: %v", g, gs.err)
		return
	}
	var want []string
	ok := true
	if a.Members != nil {
		want = append(want, fmt.Sprintf("%d members", *a.Members))
		ok = ok && len(gs.info.Members) == *a.Members
	}
	if a.State != "" {
		want = append(want, "state "+a.State)
		ok = ok && gs.info.State == a.State
	}
	r.judge(e, key, ok, Figure{Value: float64(len(gs.info.Members)), Unit: "members", Bound: strings.Join(want, ", "), Detail: "state " + gs.info.State},
		"group %s has %d members in state %q, want %s", g, len(gs.info.Members), gs.info.State, strings.Join(want, ", "))
}

// Committed bounds the group's committed offsets right after the timeline.
type Committed struct {
	Consumer  string `yaml:"consumer,omitempty" sc:"name"`
	Topic     string `yaml:"topic" sc:"required,name"`
	Partition *int32 `yaml:"partition,omitempty" sc:"max=partitions"`
	Offset    *int64 `yaml:"offset,omitempty"`
	Total     *int64 `yaml:"total,omitempty"`
}

func (a *Committed) key(sc *Scenario) string {
	k := "committed." + a.Topic
	if a.Partition != nil {
		k += fmt.Sprintf(".%d", *a.Partition)
	}
	return k + sc.suffix(a.Consumer)
}

func (a *Committed) validate(c *checker, e *Expectation) error {
	switch {
	case (a.Partition == nil) == (a.Total == nil):
		return c.errf(e.Line, "committed", "give partition with offset, or total")
	case a.Partition != nil && a.Offset == nil:
		return c.errf(e.Line, "offset", "partition needs offset")
	case a.Total != nil && a.Offset != nil:
		return c.errf(e.line("offset"), "offset", "offset goes with partition, not total")
	}
	if a.Partition != nil {
		if err := c.partition(e.line("partition"), "partition", a.Topic, *a.Partition); err != nil {
			return err
		}
	} else if _, err := c.topic(e.line("topic"), "topic", a.Topic); err != nil {
		return err
	}
	return c.groupOf(e, a.Consumer)
}

func (a *Committed) evaluate(r *run, e *Expectation) {
	g := r.member(a.Consumer).group
	gs := r.groupStates[g]
	key := a.key(r.sc)
	if gs.err != nil {
		r.judge(e, key, false, Figure{Unit: "offset"}, "group %s: %v", g, gs.err)
		return
	}
	if a.Partition != nil {
		tp := managers.TopicPartition{Topic: a.Topic, Partition: *a.Partition}
		got, has := gs.info.Commits[tp]
		r.judge(e, key, has && got == *a.Offset, Figure{Value: float64(got), Unit: "offset", Bound: fmt.Sprintf("== %d", *a.Offset)},
			"%s committed at %d (present: %v), want %d", tp, got, has, *a.Offset)
		return
	}
	var sum int64
	for tp, off := range gs.info.Commits {
		if tp.Topic == a.Topic && off > 0 {
			sum += off
		}
	}
	r.judge(e, key, sum == *a.Total, Figure{Value: float64(sum), Unit: "offsets", Bound: fmt.Sprintf("== %d over the partitions", *a.Total)},
		"the committed offsets of %s sum to %d, want %d", a.Topic, sum, *a.Total)
}

// CommitsWithinProcessed: no OffsetCommit seen at the broker exceeds what
// the application had finished processing at that moment (KAFKA-18641).
type CommitsWithinProcessed struct {
	Consumer string `yaml:"consumer,omitempty" sc:"name"`
}

// Keys a run can fail on besides the expectations' own.
const (
	// KeyCommitsPastProcessed is commits_within_processed's key: a commit
	// exceeded what the application had processed.
	KeyCommitsPastProcessed = "commits.past_processed"
	// KeyCommitsObserved is commits_within_processed's liveness key: no
	// OffsetCommit was observed at all.
	KeyCommitsObserved = "commits.observed"
	// KeyTimeline: a step could not be carried out; the run stopped there,
	// and expectations about what came later were not reached.
	KeyTimeline = harness.KeyTimeline
)

func (a *CommitsWithinProcessed) key(_ *Scenario) string       { return KeyCommitsPastProcessed }
func (a *CommitsWithinProcessed) extraKeys(*Scenario) []string { return []string{KeyCommitsObserved} }

func (a *CommitsWithinProcessed) validate(c *checker, e *Expectation) error {
	return c.groupOf(e, a.Consumer)
}

type commitSeen struct {
	at      time.Time
	tp      managers.TopicPartition // Topic "" until resolved from topicID
	topicID [16]byte                // OffsetCommit v10+ names topics by id
	offset  int64
	group   string
}

func (r *run) observeCommit(o harness.Observed) {
	req, ok := o.Req.(*kmsg.OffsetCommitRequest)
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			r.commits = append(r.commits, commitSeen{at: o.At, tp: managers.TopicPartition{Topic: t.Topic, Partition: p.Partition}, topicID: t.TopicID, offset: p.Offset, group: req.Group})
		}
	}
}

func (a *CommitsWithinProcessed) evaluate(r *run, e *Expectation) {
	m := r.member(a.Consumer)
	r.mu.Lock()
	var commits []commitSeen
	for _, c := range r.commits {
		if c.group == m.group {
			commits = append(commits, c)
		}
	}
	r.mu.Unlock()
	if err := r.resolveTopicIDs(commits); err != nil {
		r.fail(harness.KeyTimeline, "%s:%d: %s: %v", r.sc.File, e.Line, e.Kind, err)
		return
	}
	bad, judged, worst := 0, 0, int64(0)
	var first string
	for _, cm := range commits {
		pos, ok := m.processedAt(cm.tp, cm.at)
		if !ok {
			continue
		}
		judged++
		if cm.offset > pos {
			bad++
			worst = max(worst, cm.offset-pos)
			if first == "" {
				first = fmt.Sprintf("OffsetCommit of %s at %d while the application had processed up to %d", cm.tp, cm.offset, pos)
			}
		}
	}
	r.figure(Figure{Name: KeyCommitsObserved, Value: float64(judged), Unit: "partition commits", Bound: ">= 1", Pass: judged > 0})
	r.figure(Figure{Name: KeyCommitsPastProcessed, Value: float64(bad), Unit: "partition commits", Bound: "== 0", Pass: bad == 0})
	r.figure(Figure{Name: "commits.max_excess", Value: float64(worst), Unit: "records"})
	if judged == 0 {
		r.fail(KeyCommitsObserved, "%s:%d: %s: no OffsetCommit was observed: the scenario does not exercise auto-commit", r.sc.File, e.Line, e.Kind)
	} else if bad > 0 {
		r.fail(KeyCommitsPastProcessed, "%s:%d: %s: %d of %d partition commits exceeded what the application had processed; first: %s", r.sc.File, e.Line, e.Kind, bad, judged, first)
	}
}

// resolveTopicIDs names the topics of commits observed by id (OffsetCommit
// v10+), asking the cluster's metadata.
func (r *run) resolveTopicIDs(commits []commitSeen) error {
	if !slices.ContainsFunc(commits, func(c commitSeen) bool { return c.tp.Topic == "" }) {
		return nil
	}
	adm, err := kadm.NewOptClient(kgo.SeedBrokers(r.cl.Addrs()...), kgo.ClientID("kreactor-scenario-admin"))
	if err != nil {
		return err
	}
	defer adm.Close()
	ctx, cancel := context.WithTimeout(context.Background(), DefaultStepTimeout)
	defer cancel()
	topics, err := adm.ListTopics(ctx)
	if err != nil {
		return fmt.Errorf("resolve topic ids: %w", err)
	}
	names := map[[16]byte]string{}
	for _, t := range topics {
		names[t.ID] = t.Topic
	}
	for i := range commits {
		if commits[i].tp.Topic == "" {
			commits[i].tp.Topic = names[commits[i].topicID]
		}
	}
	return nil
}
