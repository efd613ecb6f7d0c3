package harness

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/consumer"
)

// Recorded wraps a target so every cluster it starts inside a running spec
// is recorded on the spec's timeline (timeline.go): its requests per API
// key and the fault windows installed through it. Outside a spec it starts
// clusters unchanged. MustSelect returns the selected target wrapped.
//
// It also remembers t as the suite's selected target for the run's
// provenance (SuiteSetup): the target's name and, when it implements
// Versioned, its versions (VersionKafkaImage for the kafka target).
func Recorded(t Target) Target {
	if r, ok := t.(recordedTarget); ok {
		t = r.Target
	}
	selectedTarget.Store(&t)
	return recordedTarget{t}
}

// selectedTarget is the target last wrapped by Recorded (set at suite
// variable initialisation, read by SuiteSetup).
var selectedTarget atomic.Pointer[Target]

// VersionKafkaImage is the Versioned key under which a target reports the
// Kafka image it runs (provenance's KafkaImage).
const VersionKafkaImage = "kafka-image"

// RecordedSubject wraps a subject so every consumer (and share consumer,
// when the subject has them) it builds inside a running spec is sampled on
// the spec's timeline: loop steps, application wakeups, CPU, call
// durations. Outside a spec consumers are built unchanged. The wrapper is a
// ShareSubject exactly when s is. MustSelect returns the selected subject
// wrapped.
func RecordedSubject(s Subject) Subject {
	switch s.(type) {
	case recordedSubject, recordedShareSubject:
		return s
	}
	if sh, ok := s.(ShareSubject); ok {
		return recordedShareSubject{recordedSubject{s}, sh}
	}
	return recordedSubject{s}
}

type recordedTarget struct{ Target }

// Unwrap returns the wrapped target.
func (t recordedTarget) Unwrap() Target { return t.Target }

func (t recordedTarget) Start(ctx context.Context, cfg TargetConfig) (Cluster, error) {
	cl, err := t.Target.Start(ctx, cfg)
	if err != nil {
		return cl, err
	}
	rec := specRecording()
	if rec == nil {
		return cl, nil
	}
	return wrapCluster(cl, rec), nil
}

type recordedSubject struct{ Subject }

// Unwrap returns the wrapped subject.
func (s recordedSubject) Unwrap() Subject { return s.Subject }

func (s recordedSubject) New(cfg consumer.Config) (Consumer, error) {
	c, err := s.Subject.New(cfg)
	if err != nil {
		return c, err
	}
	rec := specRecording()
	if rec == nil {
		return c, nil
	}
	return &recordedConsumer{Consumer: c, t: newTrack(rec, cfg.ClientID, "consumer", unwrap(c))}, nil
}

type recordedShareSubject struct {
	recordedSubject
	share ShareSubject
}

func (s recordedShareSubject) NewShare(cfg consumer.ShareConfig) (ShareConsumer, error) {
	c, err := s.share.NewShare(cfg)
	if err != nil {
		return c, err
	}
	rec := specRecording()
	if rec == nil {
		return c, nil
	}
	return &recordedShareConsumer{ShareConsumer: c, t: newTrack(rec, cfg.ClientID, "share", unwrapShare(c))}, nil
}

// recordedCluster timestamps faults and snapshots the recorder before the
// cluster closes.
type recordedCluster struct {
	Cluster
	rec      *recording
	snapOnce sync.Once
}

// clusterAbilities are the optional Cluster interfaces (abilities.go) the
// wrapper keeps: a wrapped cluster implements exactly those its inner
// cluster implements. A new ability must be added here and to wrapCluster
// (TestRecordedClusterKeepsAbilities fails until it is).
var clusterAbilities = []any{(*LogTrimmer)(nil), (*TopicCreator)(nil)}

type (
	clusterLT struct {
		*recordedCluster
		LogTrimmer
	}
	clusterTC struct {
		*recordedCluster
		TopicCreator
	}
	clusterLTTC struct {
		*recordedCluster
		LogTrimmer
		TopicCreator
	}
)

// wrapCluster wraps cl, keeping its optional abilities.
func wrapCluster(cl Cluster, rec *recording) Cluster {
	rc := &recordedCluster{Cluster: cl, rec: rec}
	rec.mu.Lock()
	rec.clusters = append(rec.clusters, rc)
	rec.mu.Unlock()
	lt, isLT := cl.(LogTrimmer)
	tc, isTC := cl.(TopicCreator)
	switch {
	case isLT && isTC:
		return clusterLTTC{rc, lt, tc}
	case isLT:
		return clusterLT{rc, lt}
	case isTC:
		return clusterTC{rc, tc}
	}
	return rc
}

// Unwrap returns the wrapped cluster.
func (c *recordedCluster) Unwrap() Cluster { return c.Cluster }

// snapshot copies the requests recorded since the spec's recording began;
// only the first call reads.
func (c *recordedCluster) snapshot() {
	c.snapOnce.Do(func() {
		reqs := c.Cluster.Recorder().Filter(RequestFilter{From: c.rec.start})
		c.rec.mu.Lock()
		c.rec.requests = append(c.rec.requests, reqs...)
		c.rec.mu.Unlock()
	})
}

func (c *recordedCluster) Close() error {
	c.snapshot()
	return c.Cluster.Close()
}

func (c *recordedCluster) CoordinatorUnavailable(ctx context.Context, group string) (Fault, error) {
	f, err := c.Cluster.CoordinatorUnavailable(ctx, group)
	return c.rec.addFault(f, err, "coordinator-unavailable", "group "+group)
}

func (c *recordedCluster) StopBroker(ctx context.Context, node int32) (Fault, error) {
	f, err := c.Cluster.StopBroker(ctx, node)
	return c.rec.addFault(f, err, "broker-stopped", fmt.Sprintf("node %d", node))
}

func (c *recordedCluster) Inject(ctx context.Context, spec FaultSpec) (Fault, error) {
	f, err := c.Cluster.Inject(ctx, spec)
	return c.rec.addFault(f, err, spec.Kind.String(), faultDetail(spec))
}

func (c *recordedCluster) Observe(ctx context.Context, key kmsg.Key, fn func(Observed)) (Fault, error) {
	f, err := c.Cluster.Observe(ctx, key, fn)
	return c.rec.addFault(f, err, "observe", key.Name())
}

// faultDetail names what a FaultSpec acts on, for the report.
func faultDetail(s FaultSpec) string {
	switch s.Kind {
	case FaultCoordinatorUnavailable:
		return "group " + s.Group
	case FaultBrokersDown:
		return "all brokers"
	}
	d := s.Key.Name()
	if s.Topic != "" {
		d += " topic " + s.Topic
	}
	if s.Err != nil {
		d += " " + s.Err.Message
	}
	if s.Delay > 0 {
		d += " " + s.Delay.String()
	}
	if s.When != nil {
		d += " (selected requests)"
	}
	return d
}
