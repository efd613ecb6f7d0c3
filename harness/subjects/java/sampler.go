package java

import (
	"fmt"
	"math"
	"time"
)

// Names under which CPUTime reports the driver's threads (the harness's
// CPUSampler: the report plots each as a line and the CPU figures of specs
// name them).
const (
	// CPUBackground is the consumer's own background thread:
	// consumer_background_thread (the KIP-848 and share consumers' network
	// thread, ThreadBackground) or the classic consumer's heartbeat thread
	// (ThreadClassicHeartbeat).
	CPUBackground = "background"
	// CPUApplication is the driver's application thread (ThreadApplication,
	// "kreactor-app"): every consumer call, Java's poll loop included.
	CPUApplication = "application"
	// CPUOther is every other live JVM thread (JIT compiler, GC, the
	// driver's stdin reader, kafka-clients' other threads).
	CPUOther = "jvm-other"
)

// CPUTime is the driver process's cumulative CPU time (user + system, from
// /proc/<pid>/stat: every thread, exited ones too; 10 ms resolution) and
// the same per thread group (CPUBackground, CPUApplication, CPUOther;
// nanosecond resolution from /proc/<pid>/task/*/schedstat, live threads
// only). It is the harness's CPUSampler: the report plots it, and CPU
// windows (measure.CPUMeter) are differences of two readings. Errors: the
// process is gone.
func (b *base) CPUTime() (time.Duration, map[string]time.Duration, error) {
	s, err := b.CPU()
	if err != nil {
		return 0, nil, err
	}
	d := s.Sub(CPUSample{})
	bg, app := d.Background(), d.Application()
	return s.Process, map[string]time.Duration{
		CPUBackground:  bg,
		CPUApplication: app,
		CPUOther:       d.ThreadsTotal() - bg - app,
	}, nil
}

// ConsumerThreads are the thread groups of CPUTime that are the consumer's
// own work (measure.ConsumerThreads): the background thread and the
// application thread. The JVM's others (JIT compilation, GC) are shown, not
// bounded: right after a start they take hundreds of ms per second.
func (b *base) ConsumerThreads() []string { return []string{CPUBackground, CPUApplication} }

// SelectTotal is the client's own count of network selector polls since it
// started: the sum of every select-total metric the consumer reports
// (kafka-clients' Selector metric, one per network client: the background
// thread's and, for the classic consumer, the coordinator's). A spinning
// network thread raises it by hundreds of thousands per second while its
// request counts stay low. Any goroutine, also while a Poll blocks.
// Errors: the driver cannot answer; no select-total metric at all.
func (b *base) SelectTotal() (float64, error) {
	m, err := b.Metrics("select-total")
	if err != nil {
		return 0, err
	}
	sum, found := 0.0, false
	for _, x := range m {
		if x.Name == "select-total" && !math.IsNaN(x.Value) {
			sum += x.Value
			found = true
		}
	}
	if !found {
		return 0, fmt.Errorf("java subject: no select-total metric among %d", len(m))
	}
	return sum, nil
}

// NetworkThreadPoll reads the async consumer's
// time-between-network-thread-poll-avg and -max (ms; kafka-clients'
// consumer metrics, group consumer-metrics, over its sample windows).
// Errors: the metrics call failed, or the release or consumer kind
// (KafkaShareConsumer, ClassicKafkaConsumer) has no such metric.
func (b *base) NetworkThreadPoll() (avgMS, maxMS float64, err error) {
	const avgName, maxName = "time-between-network-thread-poll-avg", "time-between-network-thread-poll-max"
	m, err := b.Metrics(avgName, maxName)
	if err != nil {
		return 0, 0, err
	}
	avgMS, maxMS = math.NaN(), math.NaN()
	for _, x := range m {
		switch x.Name {
		case avgName:
			avgMS = x.Value
		case maxName:
			maxMS = x.Value
		}
	}
	if math.IsNaN(avgMS) || math.IsNaN(maxMS) {
		return 0, 0, fmt.Errorf("java subject: no %s / %s metric among %d", avgName, maxName, len(m))
	}
	return avgMS, maxMS, nil
}
