package sim

import (
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/consumer/config"
	"github.com/kreactor/kreactor/fakebroker"
)

// Env is what a run function gets: the cluster, seeded configurations for
// its consumers, a seeded source for its own choices, and where to report
// what the application side saw. Its methods are safe for concurrent use,
// except Rand's (the run goroutine's own) and ConsumerConfig's order (see
// there).
type Env struct {
	// Broker is the fake cluster, on an in-memory network: clients reach
	// it only through Broker.Dial (ConsumerConfig sets it).
	Broker *fakebroker.Broker
	// Rand is the scenario's own seeded source (which fault, when, which
	// call): the run goroutine's, not safe for concurrent use.
	Rand *rand.Rand

	seed     uint64
	start    time.Time
	ctx      context.Context
	loopback bool // Config.Loopback: clients dial the brokers' TCP addresses themselves

	mu         sync.Mutex // guards the fields below
	perClient  map[string]uint64
	deliveries []Delivery
	events     []Event
	commits    []commitSeen
	defers     []func()
}

// commitSeen is one partition of an OffsetCommit as the broker read it;
// a topic id (v10+) is resolved to its name after the run (the observer
// may not call the cluster).
type commitSeen struct {
	c       CommitRequest // At set from at later; Topic "" when topicID names it
	at      time.Time
	topicID [16]byte
}

func newEnv(b *fakebroker.Broker, seed uint64, start time.Time, ctx context.Context) *Env {
	return &Env{
		Broker: b, Rand: rand.New(rand.NewPCG(seed, 0x5eed)),
		seed: seed, start: start, ctx: ctx, perClient: map[string]uint64{},
	}
}

// Context is done when the run's time budget (Config.MaxVirtual) ends:
// give it, or one derived from it, to every blocking call.
func (e *Env) Context() context.Context { return e.ctx }

// Seed is the run's seed.
func (e *Env) Seed() uint64 { return e.seed }

// Since is the time since the run's start (virtual in Run).
func (e *Env) Since() time.Duration { return time.Since(e.start) }

// ConsumerRand returns the seeded source for the n-th consumer (n from 0)
// with client id clientID: the same seed, client id and n give the same
// member id and jitter in every run.
func (e *Env) ConsumerRand(clientID string, n uint64) rand.Source {
	h := fnv.New64a()
	_, _ = h.Write([]byte(clientID))
	return rand.NewPCG(e.seed, h.Sum64()+n)
}

// ConsumerConfig is consumer.DefaultConfig pointed at the cluster: its
// bootstrap servers, its dialer (the in-memory network), client id
// clientID and a seeded Rand (ConsumerRand with n counting the configs
// made for clientID so far); with Config.Loopback, no dialer (the
// brokers are on TCP). Call it from one goroutine in a fixed order,
// or give each consumer its own client id, so each consumer gets the same
// source in every run.
func (e *Env) ConsumerConfig(clientID string) consumer.Config {
	cfg := consumer.DefaultConfig()
	cfg.ClientID = clientID
	e.connect(&cfg.Common, clientID)
	return cfg
}

// ShareConfig is ConsumerConfig for a share consumer
// (consumer.DefaultShareConfig).
func (e *Env) ShareConfig(clientID string) consumer.ShareConfig {
	cfg := consumer.DefaultShareConfig()
	cfg.ClientID = clientID
	e.connect(&cfg.Common, clientID)
	return cfg
}

// connect points the settings every consumer kind has at the cluster: its
// bootstrap servers, its dialer (none with Config.Loopback) and the next
// seeded Rand for clientID.
func (e *Env) connect(c *config.Common, clientID string) {
	c.BootstrapServers = e.Broker.Addrs()
	if !e.loopback {
		c.Dial = e.Broker.Dial
	}
	c.Rand = e.nextRand(clientID)
}

// Start is when the run started (Since's origin): a time a broker reports
// (a commit's acceptance time) is At.Sub(Start()) into the run.
func (e *Env) Start() time.Time { return e.start }

func (e *Env) nextRand(clientID string) rand.Source {
	e.mu.Lock()
	n := e.perClient[clientID]
	e.perClient[clientID]++
	e.mu.Unlock()
	return e.ConsumerRand(clientID, n)
}

// Delivered reports records a Poll of member returned, in the order
// returned.
func (e *Env) Delivered(member string, recs []consumer.Record) {
	at := e.Since()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, r := range recs {
		e.deliveries = append(e.deliveries, Delivery{At: at, Member: member, Topic: r.Topic, Partition: r.Partition, Offset: r.Offset})
	}
}

// Note reports an application-side event of member (a call and its
// outcome), formatted as fmt.Sprintf(format, args...).
func (e *Env) Note(member, format string, args ...any) {
	at := e.Since()
	what := fmt.Sprintf(format, args...)
	e.mu.Lock()
	e.events = append(e.events, Event{At: at, Member: member, What: what})
	e.mu.Unlock()
}

// Defer registers f to run after the run function returns, before the
// history is collected and the cluster closes; the last registered runs
// first. Register each consumer's Close here, so a run function that fails
// half-way leaves no goroutine behind (a goroutine left in a bubble fails
// the test).
func (e *Env) Defer(f func()) {
	e.mu.Lock()
	e.defers = append(e.defers, f)
	e.mu.Unlock()
}

// runDefers runs the registered functions, last first.
func (e *Env) runDefers() {
	for {
		e.mu.Lock()
		if len(e.defers) == 0 {
			e.mu.Unlock()
			return
		}
		f := e.defers[len(e.defers)-1]
		e.defers = e.defers[:len(e.defers)-1]
		e.mu.Unlock()
		f()
	}
}

// observeCommit is the broker's OffsetCommit observer (cluster goroutine:
// copies and returns).
func (e *Env) observeCommit(at time.Time, req kmsg.Request) {
	r, ok := req.(*kmsg.OffsetCommitRequest)
	if !ok {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			e.commits = append(e.commits, commitSeen{at: at, topicID: t.TopicID, c: CommitRequest{
				Group: r.Group, MemberID: r.MemberID, Epoch: r.Generation, Topic: t.Topic, Partition: p.Partition, Offset: p.Offset,
			}})
		}
	}
}

// history collects what e and the broker recorded. The cluster must still
// run (committed offsets are read from it).
func (e *Env) history() *History {
	b := e.Broker
	h := &History{Seed: e.seed}
	e.mu.Lock()
	h.Deliveries = slices.Clone(e.deliveries)
	h.Events = slices.Clone(e.events)
	commits := slices.Clone(e.commits)
	e.mu.Unlock()

	groups := map[string]bool{}
	for _, s := range commits {
		groups[s.c.Group] = true
		c := s.c
		c.At = s.at.Sub(e.start)
		if c.Topic == "" {
			if ti := b.Cluster().TopicIDInfo(s.topicID); ti != nil {
				c.Topic = ti.Topic
			} else {
				c.Topic = fmt.Sprintf("id:%x", s.topicID)
			}
		}
		h.CommitRequests = append(h.CommitRequests, c)
	}
	for _, g := range slices.Sorted(maps.Keys(groups)) {
		gi := b.GroupInfo(g)
		if gi == nil {
			continue
		}
		for _, t := range slices.Sorted(maps.Keys(gi.Commits)) {
			for _, p := range slices.Sorted(maps.Keys(gi.Commits[t])) {
				c := gi.Commits[t][p]
				h.Committed = append(h.Committed, Committed{Group: g, Topic: t, Partition: p, Offset: c.Offset, At: c.At.Sub(e.start)})
			}
		}
	}
	return h
}

// requests fills h's requests from the broker's recorder.
func (e *Env) requests(h *History) {
	rec := e.Broker.Recorder()
	for _, r := range rec.Requests() {
		h.Requests = append(h.Requests, Request{
			At: r.At.Sub(e.start), Key: r.Key, Version: r.Version, ClientID: r.ClientID,
			Node: r.Node, Conn: r.Conn, CorrelationID: r.CorrelationID, Size: r.Size,
		})
	}
	h.DroppedRequests = rec.Dropped()
}
