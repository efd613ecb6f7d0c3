package scenario

import (
	"context"
	"fmt"
	"time"
)

// Produce writes Count records to Topic through the cluster's producer
// (client id harness.ProducerClientID), record i to partition i mod P. With
// Rate (records/s) it writes them paced, in batches of a multiple of P
// records every few tens of milliseconds, over Count/Rate; with background:
// true the sequence goes on meanwhile (a producer at a rate in the
// background).
type Produce struct {
	Topic string `yaml:"topic" sc:"required,name"`
	Count int    `yaml:"count" sc:"required,min=1,max=produce"`
	Rate  int    `yaml:"rate,omitempty" sc:"min=1,max=rate"`
}

func (a *Produce) validate(c *checker, st *Step) error {
	_, err := c.topic(st.line("topic"), "topic", a.Topic)
	return err
}

// produceTick is how often a paced producer writes a batch.
const produceTick = 50 * time.Millisecond

func (a *Produce) bound(_ *Scenario, _ *Step) time.Duration {
	if a.Rate > 0 {
		return time.Duration(float64(a.Count)/float64(a.Rate)*float64(time.Second)) + DefaultStepTimeout
	}
	return DefaultStepTimeout
}

func (a *Produce) run(ctx context.Context, r *run, st *Step) error {
	if a.Rate == 0 {
		pctx, cancel := context.WithTimeout(ctx, DefaultStepTimeout)
		defer cancel()
		_, err := r.cl.Produce(pctx, a.Topic, a.Count, nil)
		return err
	}
	parts := int(r.sc.Cluster.Topics[a.Topic])
	// A batch of a multiple of the partition count keeps the spread
	// even (record i of a batch goes to partition i mod P).
	batch := max(parts, int(float64(a.Rate)*produceTick.Seconds())/parts*parts)
	every := time.Duration(float64(batch) / float64(a.Rate) * float64(time.Second))
	start, sent := time.Now(), 0
	for sent < a.Count {
		n := min(batch, a.Count-sent)
		base := sent
		pctx, cancel := context.WithTimeout(ctx, DefaultStepTimeout)
		_, err := r.cl.Produce(pctx, a.Topic, n, func(i int) ([]byte, []byte) {
			return nil, fmt.Appendf(nil, "record-%d", base+i)
		})
		cancel()
		if err != nil {
			return fmt.Errorf("after %d of %d records: %w", sent, a.Count, err)
		}
		sent += n
		if sent < a.Count {
			sleepCtx(ctx, time.Until(start.Add(time.Duration(sent/batch)*every)))
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	return nil
}
