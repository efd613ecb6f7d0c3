// Package testrig drives request managers for their unit tests
// (managers, managers/group, managers/share) the way the reactor loop does:
// on a reactor.Core with a fixed clock. A Rig steps the core at its Now,
// hands the test each manager's result from the Decision and the requests
// of the step, applies the answers the test gives as completions, and runs
// the step's effects after the decision, as the loop does; time moves only
// when a test moves it. It also turns the error table into test cases, one
// per row. Tests only.
package testrig

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// The cluster every rig pretends to talk to.
const (
	Node    = int32(1) // the coordinator and every partition's leader
	Topic   = "t"      // 3 partitions
	GroupID = "g"
)

// TopicID is Topic's id.
var TopicID = [16]byte{1, 2, 3}

// ErrTransport stands for a request that got no answer.
var ErrTransport = errors.New("read tcp 127.0.0.1:9092: connection reset by peer")

// Named is a manager as the rig finds it in a Decision: by its name.
type Named interface{ Name() string }

// Rig holds the clock, a known coordinator and metadata for Topic, and,
// after Start, the core the managers under test run on. Back has no
// jitter, so every wait is exact.
//
// The core polls, in this order (the consumers' order, with the probe in
// the application manager's place): Probe, the coordinator (through an
// adapter: needed per NeedsCoordinator, addresses from Meta), the metadata
// manager (through an adapter: topics {Topic}), then the managers given to
// Start. Every mutation a test makes goes in as an observation (Do, Answer,
// Complete) between steps, as on the loop.
type Rig[V any] struct {
	T     *testing.T
	Now   time.Time
	Back  managers.Backoff
	Coord *managers.Coordinator
	Meta  *managers.Metadata
	// NeedsCoordinator says, per view, whether outstanding work needs the
	// coordinator (the coordinator adapter's needed; KAFKA-18569). Nil:
	// always, since every manager under test works with the coordinator.
	// Read at every poll, so a test may change it between steps.
	NeedsCoordinator func(v V) bool
	// Probe is the core's first manager.
	Probe *Probe[V]

	core *reactor.Core[V]
}

// Probe is a manager in the application manager's place: polled first in
// every round that polls every manager (the first round of a step, and
// one more per Tx.Repoll), never with work of its own (Idle). Its state is
// its own (P1): set what it does with OnPoll, read its count with Polls.
type Probe[V any] struct {
	onPoll func(tx *reactor.Tx, v V) // run at each poll; nil: nothing
	polls  int                       // polls so far
}

// OnPoll sets fn to run at each poll: e.g. taking the errors owed to the
// application, as a waiting application Poll does. nil runs nothing.
func (p *Probe[V]) OnPoll(fn func(tx *reactor.Tx, v V)) { p.onPoll = fn }

// Polls is the number of polls so far.
func (p *Probe[V]) Polls() int { return p.polls }

// Name is "probe".
func (p *Probe[V]) Name() string { return "probe" }

// Poll counts the poll, runs the OnPoll function, and is Idle.
func (p *Probe[V]) Poll(tx *reactor.Tx, v V) reactor.Result {
	p.polls++
	if p.onPoll != nil {
		p.onPoll(tx, v)
	}
	return reactor.Idle("probe")
}

// coordinatorManager adapts Coordinator.Poll(tx, needed, addrs) to a
// reactor.Manager[V].
type coordinatorManager[V any] struct {
	coord  *managers.Coordinator
	meta   *managers.Metadata
	needed func(v V) bool // nil: always
}

func (a coordinatorManager[V]) Name() string { return a.coord.Name() }
func (a coordinatorManager[V]) Poll(tx *reactor.Tx, v V) reactor.Result {
	return a.coord.Poll(tx, a.needed == nil || a.needed(v), a.meta.Addrs())
}

// metadataManager adapts Metadata.Poll(tx, topics) to a
// reactor.Manager[V] that must know Topic.
type metadataManager[V any] struct{ meta *managers.Metadata }

func (a metadataManager[V]) Name() string { return a.meta.Name() }
func (a metadataManager[V]) Poll(tx *reactor.Tx, _ V) reactor.Result {
	return a.meta.Poll(tx, []string{Topic})
}

// New returns a rig whose coordinator (key type keyType) is Node and whose
// metadata knows Topic: both found at the rig's start time on a discovery
// core of their own (the coordinator and metadata adapters alone), so the
// managers under test are first polled with both known, by the core Start
// builds.
func New[V any](t *testing.T, keyType int8) *Rig[V] {
	t.Helper()
	r := &Rig[V]{T: t, Now: time.Unix(1_000_000, 0), Probe: &Probe[V]{},
		Back: managers.Backoff{Initial: 100 * time.Millisecond, Max: time.Second}}
	r.Coord = managers.NewCoordinator(GroupID, keyType, r.Back)
	r.Meta = managers.NewMetadata([]string{"127.0.0.1:9092"}, time.Hour, r.Back)
	disc, err := reactor.NewCore(reactor.CoreConfig[struct{}]{
		Managers: []reactor.Manager[struct{}]{coordinatorManager[struct{}]{coord: r.Coord, meta: r.Meta}, metadataManager[struct{}]{r.Meta}},
		View:     func(time.Time) struct{} { return struct{}{} },
	})
	if err != nil {
		t.Fatal(err)
	}
	st := disc.Step(r.Now)
	disc.Advance()
	if len(st.Requests) != 2 {
		t.Fatalf("discovery core sent %d requests, want FindCoordinator and Metadata:\n%s", len(st.Requests), st.Decision.Diagnose())
	}
	for _, req := range st.Requests {
		if API(req) == kmsg.FindCoordinator {
			disc.Apply(r.Now, reactor.Completion(req, FindAnswer(nil), nil))
		} else {
			disc.Apply(r.Now, reactor.Completion(req, MetadataAnswer(), nil))
		}
	}
	if _, known := r.Coord.Known(); !known {
		t.Fatal("coordinator unknown after discovery")
	}
	if _, ok := r.Meta.Leader(managers.TopicPartition{Topic: Topic}); !ok {
		t.Fatalf("%s/0 has no leader after the Metadata answer", Topic)
	}
	return r
}

// Elapse moves the clock d later. (The core's own Advance, after each
// step, is Step's.)
func (r *Rig[V]) Elapse(d time.Duration) { r.Now = r.Now.Add(d) }

// Start builds the core over the probe, the coordinator and metadata
// adapters and ms, with view as its view. Call it once, before Step.
func (r *Rig[V]) Start(view func(now time.Time) V, ms ...reactor.Manager[V]) {
	r.T.Helper()
	if r.core != nil {
		r.T.Fatal("testrig: Start called twice")
	}
	all := append([]reactor.Manager[V]{r.Probe, coordinatorManager[V]{r.Coord, r.Meta, func(v V) bool {
		return r.NeedsCoordinator == nil || r.NeedsCoordinator(v)
	}}, metadataManager[V]{r.Meta}}, ms...)
	core, err := reactor.NewCore(reactor.CoreConfig[V]{Managers: all, View: view})
	if err != nil {
		r.T.Fatal(err)
	}
	r.core = core
}

// Step is one step of the rig's core: the reactor.Step (Decision,
// Requests; its Effects have run) and the rounds that polled every
// manager.
type Step struct {
	reactor.Step
	// Rounds counts the rounds of the step that polled every manager: 1,
	// plus one for each round a Tx.Repoll asked for.
	Rounds int
}

// Step steps the core at Now, as the loop does: the decision is taken (the
// test reads it), the step's effects run in order, then Advance. A Ready
// without a request (invariant 1), a RetryAt or deadline not after now, or
// a step that ran out of rounds fails the test.
func (r *Rig[V]) Step() Step {
	r.T.Helper()
	if r.core == nil {
		r.T.Fatal("testrig: Step before Start")
	}
	polls := r.Probe.Polls()
	st := r.core.Step(r.Now)
	st.RunEffects()
	r.core.Advance()
	if st.ReadyWithoutRequest > 0 || st.PastDeadline > 0 || st.RoundLimit {
		r.T.Fatalf("step %d: %d Ready without request, %d deadlines not after now, round limit %v:\n%s",
			st.Decision.Step, st.ReadyWithoutRequest, st.PastDeadline, st.RoundLimit, st.Decision.Diagnose())
	}
	return Step{Step: st, Rounds: r.Probe.Polls() - polls}
}

// Do applies the application event name at Now (Subscribe, Leave, a
// commit enqueued, records taken, ...): fn runs on the state owner with a
// Tx, as on the loop.
func (r *Rig[V]) Do(name string, fn func(tx *reactor.Tx)) {
	r.core.Apply(r.Now, reactor.Event(name, fn))
}

// Answer applies req's completion with resp or err at Now.
func (r *Rig[V]) Answer(req *reactor.Request, resp any, err error) {
	r.core.Apply(r.Now, reactor.Completion(req, resp, err))
}

// Complete answers req with case c: a transport failure, or answer(code).
func (r *Rig[V]) Complete(req *reactor.Request, c ErrorCase, answer func(code int16) any) {
	if code, transport := c.Code(); transport {
		r.Answer(req, nil, c.Err)
	} else {
		r.Answer(req, answer(code), nil)
	}
}

// Result returns m's final result in st, failing the test when st has
// none.
func (r *Rig[V]) Result(st Step, m Named) reactor.ManagerResult {
	r.T.Helper()
	res, ok := st.Decision.Result(m.Name())
	if !ok {
		r.T.Fatalf("no result of %s in step %d", m.Name(), st.Decision.Step)
	}
	return res
}

// Sent returns the requests m handed to the transport in st, in order.
func (r *Rig[V]) Sent(st Step, m Named) []*reactor.Request {
	var out []*reactor.Request
	for _, req := range st.Requests {
		if req.Manager == m.Name() {
			out = append(out, req)
		}
	}
	return out
}

// Only returns the one request m sent in st (the step's Ready result for
// m carried exactly one), failing the test otherwise.
func (r *Rig[V]) Only(st Step, m Named) *reactor.Request {
	r.T.Helper()
	reqs := r.Sent(st, m)
	if len(reqs) != 1 {
		r.T.Fatalf("%s sent %d requests in step %d, want 1:\n%s", m.Name(), len(reqs), st.Decision.Step, st.Decision.Diagnose())
	}
	return reqs[0]
}

// Request steps the core and returns the one request m sent in that step.
func (r *Rig[V]) Request(m Named) *reactor.Request {
	r.T.Helper()
	return r.Only(r.Step(), m)
}

// FindCoordinator steps the core and answers the FindCoordinator the
// coordinator sent in that step with err (nil: Node).
func (r *Rig[V]) FindCoordinator(err *kerr.Error) {
	r.T.Helper()
	r.Answer(r.Request(r.Coord), FindAnswer(err), nil)
}

// FindAnswer is a FindCoordinator answer naming Node, or failing with err.
func FindAnswer(err *kerr.Error) *kmsg.FindCoordinatorResponse {
	resp := kmsg.NewPtrFindCoordinatorResponse()
	c := kmsg.NewFindCoordinatorResponseCoordinator()
	c.Key, c.NodeID, c.Host, c.Port = GroupID, Node, "127.0.0.1", 9092
	if err != nil {
		c.ErrorCode, c.NodeID, c.Host, c.Port = err.Code, -1, "", -1
	}
	resp.Coordinators = append(resp.Coordinators, c)
	return resp
}

// MetadataAnswer knows Node as the only broker and Topic with 3 partitions
// led by it.
func MetadataAnswer() *kmsg.MetadataResponse {
	resp := kmsg.NewPtrMetadataResponse()
	b := kmsg.NewMetadataResponseBroker()
	b.NodeID, b.Host, b.Port = Node, "127.0.0.1", 9092
	resp.Brokers = append(resp.Brokers, b)
	mt := kmsg.NewMetadataResponseTopic()
	mt.Topic, mt.TopicID = kmsg.StringPtr(Topic), TopicID
	for p := range int32(3) {
		mp := kmsg.NewMetadataResponseTopicPartition()
		mp.Partition, mp.Leader = p, Node
		mt.Partitions = append(mt.Partitions, mp)
	}
	resp.Topics = append(resp.Topics, mt)
	return resp
}

// ExpectRetry fails the test unless m retries one backoff step from Now in
// st and, for a metadata error, the step sent a Metadata refresh (the
// error asked for one). The refresh is answered (MetadataAnswer), so
// metadata is current again for the rest of the test.
func (r *Rig[V]) ExpectRetry(st Step, m Named, class managers.ErrorClass) {
	r.T.Helper()
	if res := r.Result(st, m); res.Kind != reactor.KindRetryAt || !res.At.Equal(r.Now.Add(r.Back.Delay(1))) {
		r.T.Fatalf("%s %s, want RetryAt(+%s)", m.Name(), Describe(res, r.Now), r.Back.Delay(1))
	}
	if class != managers.ClassMetadata {
		return
	}
	refresh := r.Sent(st, r.Meta)
	if len(refresh) != 1 {
		r.T.Fatalf("a metadata error sent %d Metadata refreshes in the next step, want 1:\n%s", len(refresh), st.Decision.Diagnose())
	}
	r.Answer(refresh[0], MetadataAnswer(), nil)
}

// ExpectOwed fails the test unless owed, the errors a manager owes the
// application after an answer with c's error, are what c's class says:
// one wrapping c.Err for a class the application hears of (authorization,
// failed), also matching target (errors.As) when target is not nil; none
// for a retried one.
func (r *Rig[V]) ExpectOwed(c ErrorCase, owed []error, target any) {
	r.T.Helper()
	switch c.Row.Class {
	case managers.ClassAuthorization, managers.ClassFailed:
		if len(owed) != 1 || !errors.Is(owed[0], c.Err) || (target != nil && !errors.As(owed[0], target)) {
			r.T.Fatalf("owed %v, want one error with %v", owed, c.Err)
		}
	default:
		if len(owed) != 0 {
			r.T.Fatalf("owed %v for a retried error", owed)
		}
	}
}

// Describe renders a manager's result with times relative to now, e.g.
// "retry-at(+100ms): OffsetCommit backoff (sent 0)".
func Describe(res reactor.ManagerResult, now time.Time) string {
	var s string
	switch res.Kind {
	case reactor.KindRetryAt:
		s = fmt.Sprintf("retry-at(+%s)", res.At.Sub(now))
	case reactor.KindAwait:
		s = fmt.Sprintf("await(%s)", res.Inputs)
		if !res.At.IsZero() {
			s += fmt.Sprintf(" until +%s", res.At.Sub(now))
		}
	default:
		s = res.Kind.String()
	}
	return fmt.Sprintf("%s: %s (sent %d)", s, res.Reason, res.Sent)
}

// API is the Kafka API a request carries.
func API(req *reactor.Request) kmsg.Key { return kmsg.Key(req.Payload.(*managers.Call).Req.Key()) }

// ErrorCase is one way an API can fail at a scope: Row is the error table's
// row for it, Err what the manager is answered with.
type ErrorCase struct {
	Row managers.Row
	Err error
}

// Code is the error code to answer with, or transport=true for a request
// that gets no answer (Err itself).
func (c ErrorCase) Code() (code int16, transport bool) {
	var ke *kerr.Error
	if errors.As(c.Err, &ke) {
		return ke.Code, false
	}
	return 0, true
}

// Name names the case for t.Run.
func (c ErrorCase) Name() string { return c.Row.ErrorName() + "/" + c.Err.Error() }

// ErrorCases are the cases for api at scope: one per row of the error
// table (a code row's own code; for the other-code rows, a code the scope
// does not name with the row's retriability; ErrTransport for the
// transport row).
func ErrorCases(t *testing.T, api kmsg.Key, scope managers.Scope) []ErrorCase {
	t.Helper()
	named := map[int16]bool{}
	var out []ErrorCase
	for _, row := range managers.ErrorTable() {
		if row.API != api {
			continue
		}
		switch {
		case row.Match == managers.MatchTransport: // at every scope: a request can always go unanswered
			out = append(out, ErrorCase{row, ErrTransport})
		case row.Scope != scope:
		case row.Match == managers.MatchCode:
			named[row.Code()] = true
			out = append(out, ErrorCase{row, row.Err})
		}
	}
	for _, row := range managers.ErrorTable() {
		if row.API != api || row.Scope != scope || row.Match == managers.MatchCode || row.Match == managers.MatchTransport {
			continue
		}
		for code := int16(1); code < 200; code++ {
			e := kerr.TypedErrorForCode(code)
			if e == nil || e == kerr.UnknownServerError || named[code] || e.Retriable != (row.Match == managers.MatchOtherRetriable) {
				continue
			}
			out = append(out, ErrorCase{row, e})
			break
		}
	}
	if len(out) < 3 {
		t.Fatalf("%s %s: only %d error cases", kmsg.NameForKey(int16(api)), scope, len(out))
	}
	return out
}
