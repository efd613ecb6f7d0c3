package scenario

// The rebalance listener a regular consumer subscribes with, where the
// subject lets the harness give one (ours: consumer.RebalanceListener), and
// its record of the calls; a subject that records its own (java) reports
// them through harness.RebalanceReporter.

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/consume"
	"github.com/kreactor/kreactor/managers"
)

// listenerSubscriber is the ability of a consumer that subscribes with a
// rebalance listener (consumer.Consumer.SubscribeWithListener).
type listenerSubscriber interface {
	SubscribeWithListener(l consumer.RebalanceListener, topics ...string) error
}

// listenerLog records listener calls and whether each ran on the goroutine
// of the member's Poll (or Close) under way.
type listenerLog struct {
	pollG atomic.Int64 // goroutine of the Poll or Close under way, 0 none
	mu    sync.Mutex
	calls []harness.RebalanceCall
}

func (l *listenerLog) record(method string, tps []managers.TopicPartition) {
	g := l.pollG.Load()
	in := g != 0 && g == consume.GoroutineID()
	l.mu.Lock()
	l.calls = append(l.calls, harness.RebalanceCall{Method: method, Partitions: slices.Clone(tps), InPoll: in, At: time.Now()})
	l.mu.Unlock()
}

func (l *listenerLog) OnPartitionsRevoked(tps []managers.TopicPartition)  { l.record("revoked", tps) }
func (l *listenerLog) OnPartitionsAssigned(tps []managers.TopicPartition) { l.record("assigned", tps) }
func (l *listenerLog) OnPartitionsLost(tps []managers.TopicPartition)     { l.record("lost", tps) }

// polling marks the Poll (or Close) under way on the calling goroutine;
// the returned func ends it. A nil log does nothing.
func (l *listenerLog) polling() func() {
	if l == nil {
		return func() {}
	}
	l.pollG.Store(consume.GoroutineID())
	return func() { l.pollG.Store(0) }
}

// wantsListener reports whether a listener expectation of sc checks the
// consumer spec c: only then does the harness subscribe it with a listener
// (a listener is the application's choice, and with one a reconciliation
// waits for the application's next Poll, as Java's does).
func (sc *Scenario) wantsListener(c *ConsumerSpec) bool {
	for _, e := range sc.Expect {
		if l, ok := e.Args.(*Listener); ok && sc.consumerOf(l.Consumer) == c {
			return true
		}
	}
	return false
}

// subscribe subscribes m's regular consumer, with a recording listener when
// listen is set and it can take one.
func (m *member) subscribe(topics []string, listen bool) error {
	if ls, ok := ability[listenerSubscriber](m.c); ok && listen {
		m.mu.Lock()
		if m.listener == nil {
			m.listener = &listenerLog{}
		}
		l := m.listener
		m.mu.Unlock()
		return ls.SubscribeWithListener(l, topics...)
	}
	return m.c.Subscribe(topics...)
}

// rebalanceCalls returns m's listener calls and whether the subject
// reports them at all.
func (m *member) rebalanceCalls() ([]harness.RebalanceCall, bool) {
	m.mu.Lock()
	l := m.listener
	m.mu.Unlock()
	if l != nil {
		l.mu.Lock()
		defer l.mu.Unlock()
		return slices.Clone(l.calls), true
	}
	if rr, ok := ability[harness.RebalanceReporter](m.c); ok {
		return rr.RebalanceCalls(), true
	}
	return nil, false
}
