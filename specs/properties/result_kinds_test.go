package properties

// P2: a manager result says which of three things holds: requests can be
// sent now (Ready, with at least one request), progress is possible at a
// finite time (RetryAt), or progress needs a named enabling input (Await);
// Idle means no outstanding work. An empty result is never "poll me again
// now". Each entry drives the real managers of managers/ and managers/group,
// as the assembly seam builds them, on a reactor.Core with a fixed clock (no
// network, no loop goroutine): it builds their state through their own API
// and completions with hand-made kmsg responses, then checks the kind, the
// awaited inputs and the RetryAt time of one poll.

import (
	"errors"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness/suite"
	"github.com/kreactor/kreactor/internal/client"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/reactor"
)

const (
	rigGroup  = "result-kinds"
	rigTopic  = "t"
	rigBroker = "127.0.0.1:9092"
	// rigInterval is the heartbeat interval the rig's coordinator hands out.
	rigInterval = 250 * time.Millisecond
	// rigAutoCommit is auto.commit.interval.ms for the auto-commit entries.
	rigAutoCommit = time.Second
	// commitDeadline is how long a queued commit may take.
	commitDeadline = 5 * time.Second
	// longAfter is far past any backoff, interval or heartbeat timer.
	longAfter = 10 * time.Second
)

var (
	rigTP      = managers.TopicPartition{Topic: rigTopic, Partition: 0}
	rigTopicID = [16]byte{1, 2, 3, 4}
)

// rig holds one consumer's managers as the assembly seam builds them
// (internal/client: the code consumer.New and baseline.New run), polled by
// hand one manager at a time. Each poll and each completion is applied as an
// observation on a reactor.Core at the rig's fixed clock, so every manager
// gets the Tx the engine would give it. now is the time of the next poll.
type rig struct {
	now      time.Time
	g        *client.Group
	core     *reactor.Core[group.View]
	coord    *managers.Coordinator
	meta     *managers.Metadata
	member   *group.Membership
	fetch    *group.Fetch
	commit   *group.Commit
	offsets  *group.Offsets
	assigned []managers.TopicPartition // manual assignment (the member's own when nil)
}

func newRig(autoCommit bool) *rig {
	GinkgoHelper()
	cfg := consumer.DefaultConfig()
	cfg.BootstrapServers, cfg.GroupID, cfg.AutoOffsetReset = []string{rigBroker}, rigGroup, group.ResetEarliest
	cfg.EnableAutoCommit, cfg.AutoCommitInterval = autoCommit, rigAutoCommit
	cfg.FetchMaxBytes, cfg.MaxPartitionFetchBytes, cfg.MaxBufferedRecords = 1<<20, 1<<20, 100
	Expect(cfg.Validate()).To(Succeed())
	g := client.NewGroup(cfg)
	engine := g.EngineConfig(g.Fetch) // builds the commit manager, as consumer.New does
	core, err := reactor.NewCore(reactor.CoreConfig[group.View]{View: engine.View})
	Expect(err).NotTo(HaveOccurred())
	return &rig{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), g: g, core: core,
		coord: g.Coord, meta: g.Meta, member: g.Member, fetch: g.Fetch, commit: g.Commit, offsets: g.Offsets}
}

// do runs fn as the state owner at r.now: an application event applied on
// the rig's core (its effects wait there for a step the rig never takes).
func (r *rig) do(fn func(tx *reactor.Tx)) { r.core.Apply(r.now, reactor.Event("rig", fn)) }

// poll is m's answer to a poll at r.now with the current view.
func (r *rig) poll(m reactor.Manager[group.View]) reactor.Result { return r.pollView(m, r.view()) }

// pollView is m's answer to a poll at r.now with view v.
func (r *rig) pollView(m reactor.Manager[group.View], v group.View) (res reactor.Result) {
	r.do(func(tx *reactor.Tx) { res = m.Poll(tx, v) })
	return res
}

// pollCoordinator is the coordinator manager's answer, needed saying
// whether outstanding work needs the coordinator.
func (r *rig) pollCoordinator(needed bool) (res reactor.Result) {
	r.do(func(tx *reactor.Tx) { res = r.coord.Poll(tx, needed, r.meta.Addrs()) })
	return res
}

// pollMetadata is the metadata manager's answer for rigTopic.
func (r *rig) pollMetadata() (res reactor.Result) {
	r.do(func(tx *reactor.Tx) { res = r.meta.Poll(tx, []string{rigTopic}) })
	return res
}

func (r *rig) advance(d time.Duration) { r.now = r.now.Add(d) }

// view is the per-round view the assembly seam builds, with the rig's
// manual assignment (version 1) when set.
func (r *rig) view() group.View {
	v := r.g.View(r.now)
	if r.assigned != nil {
		v.Assignment, v.AssignmentVersion = r.assigned, 1
	}
	return v
}

// sent expects a Ready result with exactly one request and returns it.
func sent(res reactor.Result) *reactor.Request {
	GinkgoHelper()
	Expect(res.Kind).To(Equal(reactor.KindReady), "result %s", res)
	Expect(res.Requests).To(HaveLen(1), "result %s", res)
	return res.Requests[0]
}

// complete applies resp (or err) to req as the loop would, at r.now.
func (r *rig) complete(req *reactor.Request, resp kmsg.Response, err error) {
	var v any
	if resp != nil {
		v = resp
	}
	r.core.Apply(r.now, reactor.Completion(req, v, err))
}

// findCoordinator makes the coordinator known (node 0).
func (r *rig) findCoordinator() {
	GinkgoHelper()
	req := sent(r.pollCoordinator(true))
	resp := kmsg.NewPtrFindCoordinatorResponse()
	c := kmsg.NewFindCoordinatorResponseCoordinator()
	c.Key, c.NodeID, c.Host, c.Port = rigGroup, 0, "127.0.0.1", 9092
	resp.Coordinators = append(resp.Coordinators, c)
	r.complete(req, resp, nil)
	_, known := r.coord.Known()
	Expect(known).To(BeTrue(), "coordinator known after FindCoordinator")
}

// learnTopic answers a Metadata request: broker 0, rigTopic with one
// partition led by broker 0.
func (r *rig) learnTopic() {
	GinkgoHelper()
	req := sent(r.pollMetadata())
	resp := kmsg.NewPtrMetadataResponse()
	b := kmsg.NewMetadataResponseBroker()
	b.NodeID, b.Host, b.Port = 0, "127.0.0.1", 9092
	resp.Brokers = append(resp.Brokers, b)
	t := kmsg.NewMetadataResponseTopic()
	t.Topic, t.TopicID = kmsg.StringPtr(rigTopic), rigTopicID
	p := kmsg.NewMetadataResponseTopicPartition()
	p.Partition, p.Leader, p.LeaderEpoch = 0, 0, 1
	t.Partitions = append(t.Partitions, p)
	resp.Topics = append(resp.Topics, t)
	r.complete(req, resp, nil)
}

// join subscribes, polls (the join goes at the first Poll, as Java's) and
// answers the join heartbeat with epoch 1.
func (r *rig) join() {
	GinkgoHelper()
	r.member.Subscribe([]string{rigTopic})
	r.member.OnPoll(r.now)
	req := sent(r.poll(r.member))
	resp := kmsg.NewPtrConsumerGroupHeartbeatResponse()
	resp.MemberID = kmsg.StringPtr(r.member.MemberID())
	resp.MemberEpoch = 1
	resp.HeartbeatIntervalMillis = int32(rigInterval.Milliseconds())
	r.complete(req, resp, nil)
	Expect(r.member.State()).To(Equal(managers.MemberStable), "member state after the join response")
}

// assignWithPosition assigns rigTP manually and gives it position 0.
func (r *rig) assignWithPosition() {
	GinkgoHelper()
	r.assigned = []managers.TopicPartition{rigTP}
	r.poll(r.fetch) // adopt the assignment
	needs := r.fetch.NeedingPosition()
	Expect(needs).To(HaveLen(1))
	Expect(r.fetch.SetPosition(rigTP, managers.Position{Offset: 0, LeaderEpoch: -1}, needs[0].Gen)).To(BeTrue())
}

// enqueueCommit queues a commit of offset 10 on rigTP with no callback.
func (r *rig) enqueueCommit() {
	r.do(func(tx *reactor.Tx) {
		r.commit.Enqueue(tx, map[managers.TopicPartition]managers.Position{rigTP: {Offset: 10, LeaderEpoch: -1}}, r.now.Add(commitDeadline), nil)
	})
}

// want is what one poll must return. AtMin / AtMax bound the RetryAt time or
// Await deadline relative to the poll's time; zero AtMax means "no time".
type want struct {
	Kind         reactor.Kind
	Inputs       reactor.Input
	AtMin, AtMax time.Duration
}

// step is one entry: it drives the rig and returns the result of the poll
// under test and the time it was taken at.
type step func(r *rig) reactor.Result

var _ = Describe("Request manager results", func() {
	BeforeEach(func() { suite.OnReferenceOnly(subject, "the managers on a core of the spec's own") })

	// Entries cover P2 only: each checks one manager poll, which is the
	// shape a Jira named in its text had, not the end-to-end regression.
	entry := func(name, id string, s step, w want) TableEntry {
		return Entry(name, suite.Spec("result-kinds."+id, []string{"P2"}, subject.Name(), target.Name()), s, w)
	}

	DescribeTable("say what enables progress: Ready with requests, RetryAt a finite time, Await named inputs, or Idle",
		func(s step, w want) {
			r := newRig(false)
			res := s(r)
			suite.Note("result", res.String())
			wait := time.Duration(0)
			if !res.At.IsZero() {
				wait = res.At.Sub(r.now)
			}
			suite.Figure("requests", float64(len(res.Requests)), "requests", "")
			suite.Figure("wait", float64(wait.Milliseconds()), "ms", boundText(w))

			// The contract every result keeps, whatever the entry.
			switch res.Kind {
			case reactor.KindReady:
				Expect(res.Requests).NotTo(BeEmpty(), "Ready without a request (invariant 1)")
			case reactor.KindRetryAt:
				Expect(res.At.After(r.now)).To(BeTrue(), "RetryAt %s is not after the poll time: a zero wait", wait)
			case reactor.KindAwait:
				Expect(res.Inputs.Valid()).To(BeTrue(), "Await names no known input: %s", res)
				Expect(res.At.IsZero() || res.At.After(r.now)).To(BeTrue(), "Await deadline %s already passed", wait)
			case reactor.KindIdle:
			default:
				Fail(fmt.Sprintf("invalid result kind %s", res.Kind))
			}
			Expect(res.Reason).NotTo(BeEmpty(), "result without a reason (P6: diagnosable)")

			Expect(res.Kind).To(Equal(w.Kind), "result %s", res)
			if w.Kind == reactor.KindAwait {
				Expect(res.Inputs).To(Equal(w.Inputs), "awaited inputs of %s", res)
			}
			if w.AtMax == 0 {
				Expect(res.At.IsZero()).To(BeTrue(), "result %s carries a time; want none", res)
			} else {
				Expect(wait).To(BeNumerically(">=", w.AtMin), "time of %s", res)
				Expect(wait).To(BeNumerically("<=", w.AtMax), "time of %s", res)
			}
		},

		// Commit (managers/group/commit.go).
		entry("a pending commit with the coordinator unknown awaits the coordinator until its deadline (KAFKA-20253)",
			"commit-coordinator-unknown",
			func(r *rig) reactor.Result {
				r.enqueueCommit()
				r.advance(time.Second)
				return r.poll(r.commit)
			},
			want{Kind: reactor.KindAwait, Inputs: reactor.InputCoordinator, AtMin: commitDeadline - time.Second, AtMax: commitDeadline - time.Second}),
		entry("a commit answered with a retriable error retries at its backoff",
			"commit-retry-backoff",
			func(r *rig) reactor.Result {
				r.findCoordinator()
				r.enqueueCommit()
				req := sent(r.poll(r.commit))
				resp := kmsg.NewPtrOffsetCommitResponse()
				t := kmsg.NewOffsetCommitResponseTopic()
				t.Topic = rigTopic
				p := kmsg.NewOffsetCommitResponseTopicPartition()
				p.Partition, p.ErrorCode = 0, kerr.CoordinatorLoadInProgress.Code
				t.Partitions = append(t.Partitions, p)
				resp.Topics = append(resp.Topics, t)
				r.complete(req, resp, nil)
				return r.poll(r.commit)
			},
			want{Kind: reactor.KindRetryAt, AtMin: 80 * time.Millisecond, AtMax: 120 * time.Millisecond}),
		entry("a commit in flight awaits its response, even long after it was sent",
			"commit-in-flight",
			func(r *rig) reactor.Result {
				r.findCoordinator()
				r.enqueueCommit()
				sent(r.poll(r.commit))
				r.advance(time.Second)
				return r.poll(r.commit)
			},
			want{Kind: reactor.KindAwait, Inputs: reactor.InputResponse, AtMin: commitDeadline - time.Second, AtMax: commitDeadline - time.Second}),
		entry("with no commit pending and auto-commit off the commit manager is idle",
			"commit-idle",
			func(r *rig) reactor.Result { return r.poll(r.commit) },
			want{Kind: reactor.KindIdle}),
		entry("an auto-commit that fell due with the coordinator unknown awaits the coordinator, not a zero wait (KAFKA-20970)",
			"commit-auto-due-coordinator-unknown",
			func(r *rig) reactor.Result {
				*r = *newRig(true)
				r.assignWithPosition()
				r.fetch.MarkConsumed(map[managers.TopicPartition]managers.Position{rigTP: {Offset: 5, LeaderEpoch: -1}})
				Expect(r.poll(r.commit).Kind).To(Equal(reactor.KindRetryAt), "auto-commit timer armed")
				r.advance(rigAutoCommit + time.Millisecond)
				return r.poll(r.commit)
			},
			want{Kind: reactor.KindAwait, Inputs: reactor.InputCoordinator, AtMin: time.Second, AtMax: 10 * time.Second}),

		// Coordinator discovery (managers/coordinator.go).
		entry("a FindCoordinator in flight past its backoff awaits its response (KAFKA-20253)",
			"coordinator-in-flight-past-backoff",
			func(r *rig) reactor.Result {
				req := sent(r.pollCoordinator(true))
				r.complete(req, nil, errors.New("connection reset"))
				r.advance(200 * time.Millisecond) // past the first backoff
				sent(r.pollCoordinator(true))
				r.advance(longAfter)
				return r.pollCoordinator(true)
			},
			want{Kind: reactor.KindAwait, Inputs: reactor.InputResponse}),
		entry("a failed FindCoordinator retries at its backoff",
			"coordinator-retry-backoff",
			func(r *rig) reactor.Result {
				req := sent(r.pollCoordinator(true))
				resp := kmsg.NewPtrFindCoordinatorResponse()
				c := kmsg.NewFindCoordinatorResponseCoordinator()
				c.Key, c.NodeID, c.ErrorCode = rigGroup, -1, kerr.CoordinatorNotAvailable.Code
				resp.Coordinators = append(resp.Coordinators, c)
				r.complete(req, resp, nil)
				return r.pollCoordinator(true)
			},
			want{Kind: reactor.KindRetryAt, AtMin: 80 * time.Millisecond, AtMax: 120 * time.Millisecond}),
		entry("an unknown coordinator that nothing needs is not looked for (KAFKA-18569)",
			"coordinator-not-needed",
			func(r *rig) reactor.Result { return r.pollCoordinator(false) },
			want{Kind: reactor.KindIdle}),

		// Membership (managers/group/membership.go).
		entry("an unsubscribed member is idle, never a heartbeat due at zero (KAFKA-20426)",
			"membership-unsubscribed",
			func(r *rig) reactor.Result { return r.poll(r.member) },
			want{Kind: reactor.KindIdle}),
		entry("a heartbeat in flight after its interval elapsed awaits its response (KAFKA-21031)",
			"membership-heartbeat-in-flight",
			func(r *rig) reactor.Result {
				r.findCoordinator()
				r.join()
				r.advance(rigInterval)
				sent(r.poll(r.member))
				r.advance(longAfter)
				return r.poll(r.member)
			},
			// The Await carries the max.poll.interval.ms expiry (CONTRACT-*):
			// the member leaves then even with a heartbeat in flight.
			want{Kind: reactor.KindAwait, Inputs: reactor.InputResponse,
				AtMin: consumer.DefaultConfig().MaxPollInterval - longAfter - rigInterval - time.Second, AtMax: consumer.DefaultConfig().MaxPollInterval}),
		entry("a subscribed member with the coordinator unknown awaits the coordinator (KAFKA-20253)",
			"membership-coordinator-unknown",
			func(r *rig) reactor.Result {
				r.member.Subscribe([]string{rigTopic})
				r.member.OnPoll(r.now) // the join goes at the first Poll
				return r.poll(r.member)
			},
			want{Kind: reactor.KindAwait, Inputs: reactor.InputCoordinator}),
		entry("a stable member retries at its heartbeat interval",
			"membership-stable",
			func(r *rig) reactor.Result {
				r.findCoordinator()
				r.join()
				r.advance(time.Millisecond)
				return r.poll(r.member)
			},
			want{Kind: reactor.KindRetryAt, AtMin: rigInterval - time.Millisecond, AtMax: rigInterval - time.Millisecond}),

		// Fetch (managers/group/fetch.go).
		entry("partitions without positions await positions (KAFKA-20854)",
			"fetch-positions-unknown",
			func(r *rig) reactor.Result {
				r.assigned = []managers.TopicPartition{rigTP}
				return r.poll(r.fetch)
			},
			want{Kind: reactor.KindAwait, Inputs: reactor.InputPositions}),
		entry("a partition whose leader is unknown awaits metadata (KAFKA-20854)",
			"fetch-leader-unknown",
			func(r *rig) reactor.Result {
				r.assignWithPosition()
				return r.poll(r.fetch)
			},
			want{Kind: reactor.KindAwait, Inputs: reactor.InputMetadata}),
		entry("a partition whose Fetch is in flight awaits the response (KAFKA-20854)",
			"fetch-in-flight",
			func(r *rig) reactor.Result {
				r.learnTopic()
				r.assignWithPosition()
				sent(r.poll(r.fetch))
				r.advance(longAfter)
				return r.poll(r.fetch)
			},
			want{Kind: reactor.KindAwait, Inputs: reactor.InputResponse}),
		entry("with no assignment the fetch manager is idle",
			"fetch-idle",
			func(r *rig) reactor.Result { return r.poll(r.fetch) },
			want{Kind: reactor.KindIdle}),

		// Metadata (managers/metadata.go) and offsets (managers/group/offsets.go).
		entry("a Metadata request in flight awaits its response",
			"metadata-in-flight",
			func(r *rig) reactor.Result {
				sent(r.pollMetadata())
				r.advance(longAfter)
				return r.pollMetadata()
			},
			want{Kind: reactor.KindAwait, Inputs: reactor.InputResponse}),
		entry("committed offsets needed with the coordinator unknown await the coordinator (KAFKA-20253)",
			"offsets-coordinator-unknown",
			func(r *rig) reactor.Result {
				r.assigned = []managers.TopicPartition{rigTP}
				r.poll(r.fetch)
				return r.poll(r.offsets)
			},
			// Until default.api.timeout.ms: the look-up then gives way to
			// auto.offset.reset (every retry ends).
			want{Kind: reactor.KindAwait, Inputs: reactor.InputCoordinator,
				AtMin: consumer.DefaultConfig().DefaultAPITimeout, AtMax: consumer.DefaultConfig().DefaultAPITimeout}),
	)
})

// boundText states an entry's expected time for the report.
func boundText(w want) string {
	switch {
	case w.AtMax == 0:
		return "no time"
	case w.AtMin == w.AtMax:
		return fmt.Sprintf("== %d ms", w.AtMax.Milliseconds())
	}
	return fmt.Sprintf("%d..%d ms", w.AtMin.Milliseconds(), w.AtMax.Milliseconds())
}
