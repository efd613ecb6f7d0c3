package harness

import (
	"context"
	"fmt"
	"strings"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// ShareSubject builds share consumers (KIP-932) of one implementation under
// test. Reactor and Baseline implement it.
type ShareSubject interface {
	Name() string
	NewShare(cfg consumer.ShareConfig) (ShareConsumer, error)
}

// ShareConsumer is the share consumer surface specs drive plus its probes.
type ShareConsumer interface {
	Subscribe(topics ...string) error
	Poll(ctx context.Context) ([]consumer.ShareRecord, error)
	Acknowledge(r consumer.ShareRecord, typ consumer.AcknowledgeType) error
	CommitSync(ctx context.Context) (map[managers.TopicPartition]error, error)
	CommitAsync() error
	SetAcknowledgementCommitCallback(cb consumer.AcknowledgementCommitCallback)
	Wakeup()
	Close(ctx context.Context) error
	Assignment() []managers.TopicPartition

	Stats() reactor.Stats
	AppWakeups() uint64
	CommitReturns() (returns, early uint64)
	Decision() *reactor.Decision
	Diagnose() string
}

// NewShare calls consumer.NewShare.
func (Reactor) NewShare(cfg consumer.ShareConfig) (ShareConsumer, error) {
	c, err := consumer.NewShare(cfg)
	if err != nil {
		return nil, err
	}
	return shareConsumer{c}, nil
}

// NewShare calls consumer.NewShareBaseline.
func (Baseline) NewShare(cfg consumer.ShareConfig) (ShareConsumer, error) {
	c, err := consumer.NewShareBaseline(cfg)
	if err != nil {
		return nil, err
	}
	return shareConsumer{c}, nil
}

type shareConsumer struct{ *consumer.ShareConsumer }

func (s shareConsumer) Diagnose() string {
	return diagnose(s.Stats(), s.Trace(), s.Decision())
}

// diagnose renders counters and the last few decisions for failure
// messages.
func diagnose(st reactor.Stats, tr []*reactor.Decision, latest *reactor.Decision) string {
	var b strings.Builder
	fmt.Fprintf(&b, "stats %+v\n", st)
	if n := len(tr); n > 1 {
		b.WriteString("recent decisions (oldest first):\n")
		for _, d := range tr[max(0, n-diagnoseDecisions) : n-1] {
			b.WriteString(d.Diagnose())
			b.WriteString("\n")
		}
	}
	b.WriteString("latest decision:\n")
	b.WriteString(latest.Diagnose())
	return b.String()
}

// ShareConsumerConfig returns share consumer defaults pointed at cl.
func ShareConsumerConfig(cl Cluster, groupID, clientID string) consumer.ShareConfig {
	cfg := consumer.DefaultShareConfig()
	cfg.BootstrapServers = cl.Addrs()
	cfg.GroupID = groupID
	cfg.ClientID = clientID
	return cfg
}
