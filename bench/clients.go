package bench

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	franz "github.com/twmb/franz-go/pkg/kgo"

	"github.com/kreactor/kreactor/baseline"
	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness/subjects/java"
	kgosubject "github.com/kreactor/kreactor/harness/subjects/kgo"
	"github.com/kreactor/kreactor/managers"
)

// client is one subject's consumer as a job drives it.
type client interface {
	// await returns once the member owns n partitions, polling meanwhile
	// where the subject needs polls to complete its assignment; it
	// returns how many records those polls received.
	await(ctx context.Context, n int) (untimed int, err error)
	// poll returns the next records (none when ctx's deadline passed),
	// calling visit with each value.
	poll(ctx context.Context, visit func(value []byte)) (int, error)
	close()
}

// stepper is a client whose loop steps can be read (reactor, baseline).
type stepper interface{ steps() uint64 }

// awaitPoll is the timeout of each Poll that waits for the assignment.
const awaitPoll = 100 * time.Millisecond

// config is the consumer configuration every subject is given: Java's
// defaults, a fresh group reading from the start, no auto-commit.
func config(j Job) consumer.Config {
	cfg := consumer.DefaultConfig()
	cfg.BootstrapServers = j.Addrs
	cfg.GroupID = j.Group
	cfg.ClientID = "bench-" + j.Subject
	cfg.AutoOffsetReset = "earliest"
	cfg.EnableAutoCommit = false
	cfg.MaxPollRecords = j.MaxPollRecords
	return cfg
}

// newClient starts j's subject; in the latency job the Go subjects' connections
// tick a readClock (readClocked).
func newClient(j Job) (client, error) {
	cfg := config(j)
	var clock *readClock
	if j.stamped() && j.Subject != SubjectJavaDriver {
		clock = &readClock{}
		cfg.Dial = clock.wrap(cfg.Dial)
	}
	switch j.Subject {
	case SubjectReactor:
		c, err := consumer.New(cfg)
		if err != nil {
			return nil, err
		}
		return &ours{c: c, clock: clock}, c.Subscribe(j.Topic)
	case SubjectBaseline:
		c, err := baseline.New(cfg)
		if err != nil {
			return nil, err
		}
		return &ours{c: c, clock: clock}, c.Subscribe(j.Topic)
	case SubjectKgo, SubjectKgoTwin:
		k, err := newRawKgo(cfg, j.Topic, j.Partitions)
		if k != nil {
			k.clock = clock
		}
		return k, err
	case SubjectJavaDriver:
		c, err := newJava(cfg)
		if err != nil {
			return nil, err
		}
		return &javaDriver{c: c}, c.Subscribe(j.Topic)
	}
	return nil, fmt.Errorf("bench: subject %q has no poll client", j.Subject)
}

// ourConsumer is what ours needs of the reactor and baseline consumers.
type ourConsumer interface {
	Poll(ctx context.Context) ([]consumer.Record, error)
	Assignment() []managers.TopicPartition
	Diagnostics() consumer.Diagnostics
	Close(ctx context.Context) error
}

// ours drives the reactor consumer or the baseline model's.
type ours struct {
	c     ourConsumer
	clock *readClock // latency job only
}

func (o *ours) readClock() *readClock { return o.clock }

func (o *ours) await(ctx context.Context, n int) (int, error) {
	return pollUntilAssigned(ctx, n, func() int { return len(o.c.Assignment()) }, func(ctx context.Context) (int, error) {
		recs, err := o.c.Poll(ctx)
		return len(recs), err
	})
}

func (o *ours) poll(ctx context.Context, visit func([]byte)) (int, error) {
	recs, err := o.c.Poll(ctx)
	for i := range recs {
		visit(recs[i].Value)
	}
	return len(recs), err
}

func (o *ours) steps() uint64 { return o.c.Diagnostics().Stats().Steps }

func (o *ours) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = o.c.Close(ctx)
}

// rawKgo is a franz-go client with the kgo subject's options, polled with
// PollRecords(max.poll.records).
type rawKgo struct {
	cl       *franz.Client
	max      int
	assigned chan struct{}
	clock    *readClock // latency job only
}

func (k *rawKgo) readClock() *readClock { return k.clock }

func newRawKgo(cfg consumer.Config, topic string, partitions int) (*rawKgo, error) {
	opts, err := kgosubject.RawGroupOpts(cfg, kgosubject.ProtocolConsumer)
	if err != nil {
		return nil, err
	}
	k := &rawKgo{max: cfg.MaxPollRecords, assigned: make(chan struct{})}
	var got atomic.Int32
	opts = append(opts, franz.ConsumeTopics(topic), franz.OnPartitionsAssigned(func(_ context.Context, _ *franz.Client, m map[string][]int32) {
		if got.Add(int32(len(m[topic]))) == int32(partitions) {
			close(k.assigned)
		}
	}))
	if k.cl, err = franz.NewClient(opts...); err != nil {
		return nil, err
	}
	return k, nil
}

func (k *rawKgo) await(ctx context.Context, n int) (int, error) {
	select {
	case <-k.assigned:
		return 0, nil
	case <-ctx.Done():
		return 0, fmt.Errorf("assignment of %d partitions: %w", n, ctx.Err())
	}
}

func (k *rawKgo) poll(ctx context.Context, visit func([]byte)) (int, error) {
	fs := k.cl.PollRecords(ctx, k.max)
	if err := fs.Err0(); err != nil && err != context.DeadlineExceeded {
		return 0, err
	}
	n := 0
	fs.EachRecord(func(r *franz.Record) {
		n++
		visit(r.Value)
	})
	return n, nil
}

func (k *rawKgo) close() { k.cl.Close() }

// newJava starts Java's KafkaConsumer in a driver process with the JVM's
// default ergonomics (the driver's own defaults pin a serial collector and a
// small heap for CPU attribution in specs; a benchmark runs Java as it is
// usually run).
func newJava(cfg consumer.Config) (*java.Consumer, error) {
	s := java.Subject{Options: java.DefaultOptions()}
	s.Options.JVMArgs = []string{"-XX:-UsePerfData"}
	return s.New(cfg)
}

// javaDriver polls Java's consumer through the driver: one poll command per
// Poll, the records returned as JSON.
type javaDriver struct{ c *java.Consumer }

func (d *javaDriver) await(ctx context.Context, n int) (int, error) {
	return pollUntilAssigned(ctx, n, func() int { return len(d.c.Assignment()) }, func(ctx context.Context) (int, error) {
		recs, err := d.c.Poll(ctx)
		return len(recs), err
	})
}

// pollUntilAssigned polls in awaitPoll steps until assigned reports n
// partitions: consumers that join inside Poll, as Java's and ours do, are
// never assigned by waiting alone. It returns the records those polls
// returned (untimed: they arrived before the measurement starts).
func pollUntilAssigned(ctx context.Context, n int, assigned func() int, poll func(context.Context) (int, error)) (int, error) {
	untimed := 0
	for assigned() < n {
		if err := ctx.Err(); err != nil {
			return untimed, fmt.Errorf("assignment of %d partitions: %w", n, err)
		}
		pctx, cancel := context.WithTimeout(ctx, awaitPoll)
		got, err := poll(pctx)
		cancel()
		if err != nil && pctx.Err() == nil {
			return untimed, err
		}
		untimed += got
	}
	return untimed, nil
}

func (d *javaDriver) poll(ctx context.Context, visit func([]byte)) (int, error) {
	recs, err := d.c.Poll(ctx)
	for i := range recs {
		visit(recs[i].Value)
	}
	return len(recs), err
}

func (d *javaDriver) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = d.c.Close(ctx)
}
