package sim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/baseline"
	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/fakebroker"
)

// The outage scenario the tests run: one consumer in group "g" reads topic
// "t" (3 partitions), commits, lives through a coordinator outage and a
// held Fetch, and closes.
const (
	scenarioTopic      = "t"
	scenarioPartitions = 3
	scenarioGroup      = "g"
	scenarioMember     = "c1"
	firstBatch         = 300 // records produced before the consumer subscribes
	secondBatch        = 60  // records produced while Fetch is held
	outageFor          = 3 * time.Second
	holdFor            = 2 * time.Second
	pollTimeout        = 200 * time.Millisecond
)

// scenarioCluster is the cluster the scenario needs.
func scenarioCluster() fakebroker.Config {
	return fakebroker.Config{Topics: map[string]int32{scenarioTopic: scenarioPartitions}}
}

// scenarioLogger, if set, gets the scenario consumer's logs (debugging).
var scenarioLogger *slog.Logger

// subject is the application API the scenario drives (consumer.Consumer
// and baseline.Consumer have it).
type subject interface {
	Subscribe(topics ...string) error
	Poll(ctx context.Context) ([]consumer.Record, error)
	CommitSync(ctx context.Context) error
	Close(ctx context.Context) error
}

func newReactor(cfg consumer.Config) (subject, error) { return consumer.New(cfg) }

func newBaseline(cfg consumer.Config) (subject, error) { return baseline.New(cfg) }

// window is when a fault was in place, since the run's start.
type window struct{ from, to time.Duration }

// scenarioMarks are the times the scenario installed and removed its
// faults, for the assertions.
type scenarioMarks struct {
	outage, hold window
	holdHits     int
}

// outageScenario returns the run function: produce firstBatch, subscribe,
// poll them all, CommitSync; make the coordinator unavailable for outageFor
// while polling; hold every Fetch for holdFor while secondBatch is
// produced; release, poll the rest, CommitSync, Close. With offFaults,
// each fault starts and ends up to 1 ms (drawn from Env.Rand, in ns) later
// than its round time, off the consumer's periodic timers (heartbeat
// 250 ms, fetch.max.wait.ms 500 ms).
func outageScenario(newSubject func(consumer.Config) (subject, error), marks *scenarioMarks) func(env *Env) error {
	return scenarioRun(newSubject, false, marks)
}

func scenarioRun(newSubject func(consumer.Config) (subject, error), offFaults bool, marks *scenarioMarks) func(env *Env) error {
	return func(env *Env) error {
		off := func() time.Duration {
			if !offFaults {
				return 0
			}
			return time.Duration(env.Rand.Int64N(int64(time.Millisecond)))
		}
		ctx := env.Context()
		b := env.Broker
		if _, err := b.Produce(ctx, scenarioTopic, firstBatch, nil); err != nil {
			return err
		}
		cfg := env.ConsumerConfig(scenarioMember)
		cfg.GroupID = scenarioGroup
		cfg.AutoOffsetReset = "earliest"
		cfg.EnableAutoCommit = false
		if scenarioLogger != nil {
			cfg.Logger = scenarioLogger
		}
		c, err := newSubject(cfg)
		if err != nil {
			return err
		}
		env.Defer(func() { _ = c.Close(context.Background()) }) // ErrClosed after the scenario's own Close
		if err := c.Subscribe(scenarioTopic); err != nil {
			return err
		}
		got := 0
		poll := func() error {
			pctx, cancel := context.WithTimeout(ctx, pollTimeout)
			defer cancel()
			recs, err := c.Poll(pctx)
			if err != nil {
				env.Note(scenarioMember, "poll: %v", err)
				return err
			}
			env.Delivered(scenarioMember, recs)
			got += len(recs)
			return nil
		}
		pollUntil := func(n int) error {
			for got < n {
				if err := ctx.Err(); err != nil {
					return fmt.Errorf("%d of %d records by the time budget: %w", got, n, err)
				}
				if err := poll(); err != nil {
					return err
				}
			}
			env.Note(scenarioMember, "polled %d records", got)
			return nil
		}
		pollFor := func(d time.Duration) error {
			for end := env.Since() + d; env.Since() < end; {
				if err := poll(); err != nil {
					return err
				}
			}
			return nil
		}
		commit := func() error {
			err := c.CommitSync(ctx)
			env.Note(scenarioMember, "commit sync: %v", err)
			return err
		}

		if err := pollUntil(firstBatch); err != nil {
			return err
		}
		if err := commit(); err != nil {
			return err
		}

		time.Sleep(off())
		h, err := b.CoordinatorUnavailable(scenarioGroup)
		if err != nil {
			return err
		}
		marks.outage.from = env.Since()
		if err := pollFor(outageFor + off()); err != nil {
			return err
		}
		h.Heal()
		marks.outage.to = env.Since()

		time.Sleep(off())
		hold, err := b.HoldKey(kmsg.Fetch)
		if err != nil {
			return err
		}
		marks.hold.from = env.Since()
		if _, err := b.Produce(ctx, scenarioTopic, secondBatch, nil); err != nil {
			return err
		}
		if err := pollFor(holdFor + off()); err != nil {
			return err
		}
		hold.Release()
		marks.hold.to = env.Since()
		marks.holdHits = hold.Hits()
		env.Note(scenarioMember, "fetch hold released after %d held", marks.holdHits)

		if err := pollUntil(firstBatch + secondBatch); err != nil {
			return err
		}
		if err := commit(); err != nil {
			return err
		}
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		err = c.Close(cctx)
		env.Note(scenarioMember, "close: %v", err)
		if err != nil && !errors.Is(err, consumer.ErrClosed) {
			return err
		}
		return nil
	}
}
