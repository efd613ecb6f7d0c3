package suite

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
)

// Recorded wraps a target so every cluster it starts inside a running spec
// is recorded on the spec's timeline (timeline.go): its requests per API
// key and the fault windows installed through it. Outside a spec it starts
// clusters unchanged. Selected returns the selected target wrapped.
//
// It also remembers t as the suite's selected target for the run's
// provenance (Setup): the target's name and, when it implements
// harness.Versioned, its versions (harness.VersionKafkaImage for the kafka
// target).
func Recorded(t harness.Target) harness.Target {
	if r, ok := t.(recordedTarget); ok {
		t = r.Target
	}
	selectedTarget.Store(&t)
	return recordedTarget{t}
}

// selectedTarget is the target last wrapped by Recorded (set at suite
// variable initialisation, read by Setup).
var selectedTarget atomic.Pointer[harness.Target]

// RecordedSubject wraps a subject so every consumer (and share consumer,
// when the subject has them) it builds inside a running spec is sampled on
// the spec's timeline: loop steps, application wakeups, CPU, call
// durations. Inside a spec it also records a harness error (a java driver's
// failure, subjects.IsHarnessError) returned by any call on the report, and
// validates the trace of what the reactor subject built against the
// protocol's model when the spec ends (ours.TraceOf). Outside a spec
// consumers are built unchanged. The wrapper is a harness.ShareSubject
// exactly when s is. Selected returns the selected subject wrapped.
func RecordedSubject(s harness.Subject) harness.Subject {
	switch s.(type) {
	case recordedSubject, recordedShareSubject:
		return s
	}
	if sh, ok := s.(harness.ShareSubject); ok {
		return recordedShareSubject{recordedSubject{s}, sh}
	}
	return recordedSubject{s}
}

type recordedTarget struct{ harness.Target }

// Unwrap returns the wrapped target.
func (t recordedTarget) Unwrap() harness.Target { return t.Target }

func (t recordedTarget) Start(ctx context.Context, cfg harness.TargetConfig) (harness.Cluster, error) {
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

type recordedSubject struct{ harness.Subject }

// Unwrap returns the wrapped subject.
func (s recordedSubject) Unwrap() harness.Subject { return s.Subject }

func (s recordedSubject) New(cfg consumer.Config) (harness.Consumer, error) {
	c, err := s.Subject.New(cfg)
	return record(c, err, func(rec *recording) harness.Consumer {
		return &recordedConsumer{Consumer: c, t: newTrack(rec, cfg.ClientID, "consumer", harness.Innermost(c))}
	})
}

// record finishes building c, a consumer or share consumer a subject just
// built (or failed to: err): it notes a harness error, registers the trace
// validation of what the reactor built, and, inside a spec, returns wrap's
// recorded consumer.
func record[C any](c C, err error, wrap func(*recording) C) (C, error) {
	if err != nil {
		return c, noteHarnessError(err)
	}
	validateAtSpecEnd(c)
	if rec := specRecording(); rec != nil {
		return wrap(rec), nil
	}
	return c, nil
}

type recordedShareSubject struct {
	recordedSubject
	share harness.ShareSubject
}

func (s recordedShareSubject) NewShare(cfg consumer.ShareConfig) (harness.ShareConsumer, error) {
	c, err := s.share.NewShare(cfg)
	return recordShare(c, err, cfg.ClientID)
}

// recordShare is record for a share consumer.
func recordShare(c harness.ShareConsumer, err error, client string) (harness.ShareConsumer, error) {
	return record(c, err, func(rec *recording) harness.ShareConsumer {
		return &recordedShareConsumer{ShareConsumer: c, t: newTrack(rec, client, "share", harness.Innermost(c))}
	})
}

// NewExplicitShare is NewShare in explicit acknowledgement mode where the
// wrapped subject has the ability (ExplicitShareSubject), else NewShare.
func (s recordedShareSubject) NewExplicitShare(cfg consumer.ShareConfig) (harness.ShareConsumer, error) {
	ex, ok := s.share.(harness.ExplicitShareSubject)
	if !ok {
		return s.NewShare(cfg)
	}
	c, err := ex.NewExplicitShare(cfg)
	return recordShare(c, err, cfg.ClientID)
}

// unwrapSubject looks through the subject wrapper (RecordedSubject).
func unwrapSubject(s harness.Subject) harness.Subject {
	for {
		w, ok := s.(interface{ Unwrap() harness.Subject })
		if !ok {
			return s
		}
		s = w.Unwrap()
	}
}

// recordedCluster timestamps faults and snapshots the recorder before the
// cluster closes.
type recordedCluster struct {
	harness.Cluster
	rec      *recording
	snapOnce sync.Once
}

// clusterAbilities are the optional Cluster interfaces (harness.LogTrimmer, harness.TopicCreator) the
// wrapper keeps: a wrapped cluster implements exactly those its inner
// cluster implements. A new ability must be added here and to wrapCluster
// (TestRecordedClusterKeepsAbilities fails until it is).
var clusterAbilities = []any{(*harness.LogTrimmer)(nil), (*harness.TopicCreator)(nil)}

type (
	clusterLT struct {
		*recordedCluster
		harness.LogTrimmer
	}
	clusterTC struct {
		*recordedCluster
		harness.TopicCreator
	}
	clusterLTTC struct {
		*recordedCluster
		harness.LogTrimmer
		harness.TopicCreator
	}
)

// wrapCluster wraps cl, keeping its optional abilities.
func wrapCluster(cl harness.Cluster, rec *recording) harness.Cluster {
	rc := &recordedCluster{Cluster: cl, rec: rec}
	rec.mu.Lock()
	rec.clusters = append(rec.clusters, rc)
	rec.mu.Unlock()
	lt, isLT := cl.(harness.LogTrimmer)
	tc, isTC := cl.(harness.TopicCreator)
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
func (c *recordedCluster) Unwrap() harness.Cluster { return c.Cluster }

// snapshot copies the requests recorded since the spec's recording began;
// only the first call reads.
func (c *recordedCluster) snapshot() {
	c.snapOnce.Do(func() {
		reqs := c.Cluster.Recorder().Filter(harness.RequestFilter{From: c.rec.start})
		c.rec.mu.Lock()
		c.rec.requests = append(c.rec.requests, reqs...)
		c.rec.mu.Unlock()
	})
}

func (c *recordedCluster) Close() error {
	c.snapshot()
	return c.Cluster.Close()
}

func (c *recordedCluster) CoordinatorUnavailable(ctx context.Context, group string) (harness.Fault, error) {
	f, err := c.Cluster.CoordinatorUnavailable(ctx, group)
	return c.rec.addFault(f, err, "coordinator-unavailable", "group "+group)
}

func (c *recordedCluster) StopBroker(ctx context.Context, node int32) (harness.Fault, error) {
	f, err := c.Cluster.StopBroker(ctx, node)
	return c.rec.addFault(f, err, "broker-stopped", fmt.Sprintf("node %d", node))
}

func (c *recordedCluster) Inject(ctx context.Context, spec harness.FaultSpec) (harness.Fault, error) {
	f, err := c.Cluster.Inject(ctx, spec)
	return c.rec.addFault(f, err, spec.Kind.String(), faultDetail(spec))
}

func (c *recordedCluster) Observe(ctx context.Context, key kmsg.Key, fn func(harness.Observed)) (harness.Fault, error) {
	f, err := c.Cluster.Observe(ctx, key, fn)
	return c.rec.addFault(f, err, "observe", key.Name())
}

// faultDetail names what a FaultSpec acts on, for the report.
func faultDetail(s harness.FaultSpec) string {
	switch s.Kind {
	case harness.FaultCoordinatorUnavailable:
		return "group " + s.Group
	case harness.FaultBrokersDown, harness.FaultBlackHole, harness.FaultRefuse:
		if len(s.Nodes) > 0 {
			return fmt.Sprintf("nodes %v", s.Nodes)
		}
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
