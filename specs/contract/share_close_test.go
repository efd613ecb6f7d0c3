package contract

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/measure"
	"github.com/kreactor/kreactor/harness/suite"
	"github.com/kreactor/kreactor/managers"
)

const (
	// shareCloseRecords is what each close run delivers (10 per partition).
	shareCloseRecords = 30
	// shareCloseBudget is each run's Close deadline (the original
	// share-close-brokers-down spec's), and shareCloseSlack what Close may
	// take beyond it (the share suite's closeSlack).
	shareCloseBudget = 500 * time.Millisecond
	shareCloseSlack  = 300 * time.Millisecond
	// shareCloseRunsTimeout bounds the whole spec: every run delivers,
	// closes and waits out its delay.
	shareCloseRunsTimeout = 4 * harness.SpecTimeout
	// shareCloseFetchWait is fetch.max.wait.ms in the runs: how long a
	// broker may hold a ShareFetch with nothing to return (a long poll).
	// With Java's 500 ms a fetch sent by the last Poll is still held when
	// the acknowledgements' phase of a 500 ms Close ends, whatever the
	// delay, and one request per share session at a time (as Java's
	// ShareConsumeRequestManager) keeps everything behind it; at 100 ms
	// the delays below decide which side of the deadline the answer
	// falls on.
	shareCloseFetchWait = 100 * time.Millisecond
)

// shareCloseDelays are the delays the broker answers the requests carrying
// acknowledgements with: answered well before the acknowledgements' phase
// ends (3/4 of the budget), around it, after it, and after the whole
// deadline, so every run puts the answer on a different side of the
// deadline (CONTRACT-7: 10 of 30 offsets were lost when a ShareFetch
// carrying them was still in flight at the deadline).
var shareCloseDelays = []time.Duration{0, 150 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}

// shareCloseShape is where the acknowledgements are when Close starts.
type shareCloseShape struct {
	name string
	key  kmsg.Key // the API delayed
	// explicit: acknowledge each record, then CommitAsync (a
	// ShareAcknowledge carries them); otherwise implicit mode and one more
	// Poll (the ShareFetch it sends carries the last batch's).
	explicit bool
	down     bool // every broker drops new requests before Close
}

var shareCloseShapes = []shareCloseShape{
	{name: "share-fetch", key: kmsg.ShareFetch},
	{name: "share-fetch-brokers-down", key: kmsg.ShareFetch, down: true},
	{name: "share-acknowledge", key: kmsg.ShareAcknowledge, explicit: true},
}

var _ = Describe("Closing a share consumer", func() {
	It("accounts for every acknowledgement, accepted or reported failed exactly once, wherever the close deadline falls against the requests carrying them",
		suite.Spec("contract-7-share-close-accounts-every-ack", []string{"CONTRACT-7", "SHARE-4"}, subject.Name(), target.Name()),
		SpecTimeout(shareCloseRunsTimeout),
		func(ctx SpecContext) {
			const topic = "orders"
			cl := suite.StartCluster(ctx, target, harness.TargetConfig{Brokers: 3, Topics: map[string]int32{topic: 3}})
			_, err := cl.Produce(ctx, topic, shareCloseRecords, nil)
			Expect(err).NotTo(HaveOccurred())
			type run struct {
				shape shareCloseShape
				delay time.Duration
			}
			var runs []run
			for _, s := range shareCloseShapes {
				for _, d := range shareCloseDelays {
					runs = append(runs, run{s, d})
				}
			}
			seed := uint64(GinkgoRandomSeed())
			rng := rand.New(rand.NewPCG(seed, seed))
			rng.Shuffle(len(runs), func(i, j int) { runs[i], runs[j] = runs[j], runs[i] })
			suite.Note("run_order", fmt.Sprintf("seed %d: %v", seed, runs))

			var accepted, failed, withFailures, slowest int
			for i, r := range runs {
				By(fmt.Sprintf("run %d: %s, answers delayed %s", i+1, r.shape.name, r.delay))
				a, f, took := shareCloseRun(ctx, cl, topic, r.shape, r.delay)
				accepted += a
				failed += f
				if f > 0 {
					withFailures++
				}
				slowest = max(slowest, int(took.Milliseconds()))
			}
			suite.Figure("runs", float64(len(runs)), "runs", "")
			suite.Figure("offsets_accounted", float64(accepted+failed), "offsets", fmt.Sprintf("== %d (every delivered offset of every run, once)", len(runs)*shareCloseRecords))
			suite.Figure("offsets_accepted", float64(accepted), "offsets", "")
			suite.Figure("offsets_failed", float64(failed), "offsets", "")
			suite.Figure("runs_with_failed_acks", float64(withFailures), "runs", "")
			suite.Figure("close_duration_max", float64(slowest), "ms", fmt.Sprintf("<= %d ms", (shareCloseBudget+shareCloseSlack).Milliseconds()))
		})
})

// shareCloseRun delivers the topic's records to a new share group's
// consumer, leaves their acknowledgements in a request the broker answers
// only after delay (per shape), closes with shareCloseBudget and checks that
// every delivered offset was reported exactly once and Close kept its
// deadline. It returns the offsets reported accepted and failed, and how
// long Close took.
func shareCloseRun(ctx context.Context, cl harness.Cluster, topic string, shape shareCloseShape, delay time.Duration) (accepted, failed int, took time.Duration) {
	GinkgoHelper()
	group := suite.UniqueName("share-close")
	Expect(cl.SetGroupConfigs(ctx, group, map[string]string{"share.auto.offset.reset": "earliest"})).To(Succeed())
	cfg := suite.ShareConsumerConfig(cl, group, suite.UniqueName("share-close-client"))
	cfg.FetchMaxWait = shareCloseFetchWait
	var c harness.ShareConsumer
	if shape.explicit {
		c = suite.NewExplicitShareConsumer(subject, cfg)
	} else {
		c = suite.NewShareConsumer(subject, cfg)
	}
	acks := suite.NewAckLog(c)
	Expect(c.Subscribe(topic)).To(Succeed())
	var ack func(consumer.ShareRecord)
	if shape.explicit {
		ack = func(r consumer.ShareRecord) { Expect(c.Acknowledge(r, consumer.Accept)).To(Succeed()) }
	}
	recs := suite.PollShare(ctx, c, shareCloseRecords, ack)
	delivered := map[managers.TopicPartition][]int64{}
	for _, r := range recs {
		tp := managers.TopicPartition{Topic: r.Topic, Partition: r.Partition}
		delivered[tp] = append(delivered[tp], r.Offset)
	}
	var fault harness.Fault
	if delay > 0 {
		f, err := cl.Inject(ctx, harness.FaultSpec{Kind: harness.FaultDelay, Key: shape.key, Delay: delay})
		Expect(err).NotTo(HaveOccurred())
		fault = f
	} else {
		fault = noFault{}
	}
	defer fault.Heal()
	if shape.explicit {
		Expect(c.CommitAsync()).To(Succeed()) // a ShareAcknowledge per broker carries them
	} else {
		pctx, cancel := context.WithTimeout(ctx, harness.PollSlice)
		more, err := c.Poll(pctx) // accepts the last batch: the ShareFetch it sends carries the acknowledgements
		cancel()
		Expect(err).NotTo(HaveOccurred(), harness.Diagnose(c))
		Expect(more).To(BeEmpty(), "records after all %d were delivered", shareCloseRecords)
	}
	if shape.down {
		down, err := cl.Inject(ctx, harness.FaultSpec{Kind: harness.FaultBrokersDown})
		Expect(err).NotTo(HaveOccurred())
		defer down.Heal()
	}
	cctx, cancel := context.WithTimeout(ctx, shareCloseBudget)
	defer cancel()
	start := time.Now()
	_ = c.Close(cctx) // an error naming what was left is expected in the slow runs
	// The client's own close, not a java driver's exit after it.
	took = measure.CallTime(c, "close", time.Since(start))
	Expect(took).To(BeNumerically("<=", shareCloseBudget+shareCloseSlack), "%s, delay %s: Close took %s", shape.name, delay, took)
	accepted, failed, problems := acks.Account(delivered)
	slices.Sort(problems)
	GinkgoWriter.Printf("%s, delay %s: %d accepted, %d failed (%v), Close %s\n", shape.name, delay, accepted, failed, acks.Errors(), took.Round(time.Millisecond))
	Expect(problems).To(BeEmpty(), "%s, delay %s: %d accepted, %d failed of %d delivered offsets (failures %v); not accounted for exactly once:\n%v",
		shape.name, delay, accepted, failed, len(recs), acks.Errors(), problems)
	return accepted, failed, took
}

// noFault is the fault of a run without delay.
type noFault struct{}

func (noFault) Heal()     {}
func (noFault) Hits() int { return 0 }
