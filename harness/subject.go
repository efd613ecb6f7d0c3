package harness

import (
	"context"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// Subject builds consumers of one implementation under test. The baseline
// model of today's execution (reactor/baseline) will be a second Subject
// with the same Consumer surface, so every spec runs against both.
type Subject interface {
	// Name is the subject's name in `subject:` labels and reports
	// ("reactor").
	Name() string
	// New builds a consumer from cfg. The caller must Close it.
	New(cfg consumer.Config) (Consumer, error)
}

// Consumer is the application surface specs drive plus the probes they read.
// Application methods follow consumer.Consumer's contract: one application
// goroutine at a time, except Wakeup.
type Consumer interface {
	Subscribe(topics ...string) error
	// Poll returns (nil, nil) when ctx's deadline passes with no records.
	Poll(ctx context.Context) ([]consumer.Record, error)
	CommitSync(ctx context.Context) error
	// CommitAsync's cb runs on the application goroutine during a later
	// Poll, CommitSync or Close.
	CommitAsync(cb func(error))
	Wakeup()
	Close(ctx context.Context) error
	Assignment() []managers.TopicPartition
	// Assign takes partitions manually (Java's assign).
	Assign(partitions ...managers.TopicPartition) error
	// Pause and Resume stop and restart fetching of assigned partitions.
	Pause(partitions ...managers.TopicPartition) error
	Resume(partitions ...managers.TopicPartition) error
	// CommitReturns counts CommitSync returns and the early ones (before
	// the decision containing the completion was published: P4).
	CommitReturns() (returns, early uint64)

	// Stats are the loop's counters (steps, wakes, contract violations).
	Stats() reactor.Stats
	// AppWakeups counts the times an application call woke from a
	// blocking wait: once per call when every wake carries a reason,
	// many per call when the application side spins or ping-pongs.
	AppWakeups() uint64
	// Decision is the latest published timing decision.
	Decision() *reactor.Decision
	// Diagnose renders the latest decision and the few before it, for
	// failure messages.
	Diagnose() string
}

// Reactor is the subject "reactor": the KIP-1371 consumer in package
// consumer.
type Reactor struct{}

// Name is "reactor".
func (Reactor) Name() string { return "reactor" }

// New calls consumer.New.
func (Reactor) New(cfg consumer.Config) (Consumer, error) {
	c, err := consumer.New(cfg)
	if err != nil {
		return nil, err
	}
	return reactorConsumer{c}, nil
}

// Baseline is the subject "baseline": the same managers on
// reactor/baseline, modelling today's execution (consumer.NewBaseline). It
// is the negative control: regression specs are expected to fail on it.
type Baseline struct{}

// Name is "baseline".
func (Baseline) Name() string { return "baseline" }

// New calls consumer.NewBaseline.
func (Baseline) New(cfg consumer.Config) (Consumer, error) {
	c, err := consumer.NewBaseline(cfg)
	if err != nil {
		return nil, err
	}
	return reactorConsumer{c}, nil
}

// reactorConsumer adds Diagnose to *consumer.Consumer.
type reactorConsumer struct{ *consumer.Consumer }

// diagnoseDecisions is how many recent decisions Diagnose renders.
const diagnoseDecisions = 6

func (r reactorConsumer) Diagnose() string {
	return diagnose(r.Stats(), r.Trace(), r.Decision())
}
