package properties

// P6, "bounded": the engine keeps a bounded trace of recent decisions
// (Config.TraceCapacity, default 256) and a bounded inbox
// (Config.InboxCapacity): Submit blocks while the inbox is full and the
// loop busy, until its context ends, so back-pressure reaches the caller
// instead of memory growing. And a consumer that consumes continuously keeps
// a steady heap: sampled after a forced GC once a second after a warm-up,
// the last sample is at most heapGrowthBound times the first plus
// heapSlackBytes (buffers still filling), and (with a probe) the live heap
// grows beyond heapSlackBytes by at most heapBytesPerStep per loop step
// between the first and the last sample. The consumer polls with a short
// timeout (heapPollTimeout), so the loop takes many steps (at least
// heapMinSteps between the samples on the reactor): memory kept per step
// (a decision retained past the trace's capacity) shows as growth. The broker's
// log is trimmed behind the consumer as it goes (harness.LogTrimmer), since
// kfake keeps every record in this process and would otherwise be the trend.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/measure"
	"github.com/kreactor/kreactor/harness/suite"
	"github.com/kreactor/kreactor/harness/targets/kfake"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

const (
	// defaultTraceCapacity is Config.TraceCapacity's documented default.
	defaultTraceCapacity = 256
	// traceSteps is how many steps the trace spec drives: several times
	// the capacity.
	traceSteps = 3*defaultTraceCapacity + 17
	// tinyInbox is the inbox capacity of the back-pressure spec.
	tinyInbox = 2
	// submitBlockWait is the deadline of the Submit that must block.
	submitBlockWait = 100 * time.Millisecond

	// heapRun is how long the memory spec consumes; heapWarmup how long
	// before the first sample; heapSampleEvery the sampling period.
	heapRun = 10 * time.Second
	// heapMaxRun bounds the memory spec's run when the loop needs longer
	// than heapRun to take heapMinSteps steps (a loaded machine, -race).
	heapMaxRun      = 40 * time.Second
	heapWarmup      = 2 * time.Second
	heapSampleEvery = time.Second
	// heapGrowthBound is the largest last/first ratio of the heap samples,
	// over heapSlackBytes.
	heapGrowthBound = 1.5
	// heapSlackBytes is growth both heap checks forgive: the consumer's own
	// bounded buffers may still be filling when it falls behind the
	// producer (on Kafka it consumed 8,200 of 8,700 records/s produced and
	// its live heap went 1.8 -> 3.9 MiB): one Fetch answer per partition
	// (max.partition.fetch.bytes 1 MiB x 3 partitions) plus
	// MaxBufferedRecords records. A leak outgrows it within the run: the
	// decision-retention mutant kept about 12 MiB over 16,000 steps.
	heapSlackBytes = 4 << 20
	// heapPollTimeout is each Poll's timeout in the memory spec: short, so
	// the loop takes thousands of steps a second (a 100 ms poll gave about
	// 400 steps in 10 s, too few for per-step retention to show; 50 µs gave
	// 21,000-29,000 on a loaded 2-core machine).
	heapPollTimeout = 50 * time.Microsecond
	// heapTrimEvery is how often the memory spec trims the log.
	heapTrimEvery = 100 * time.Millisecond
	// heapMinSteps is the fewest loop steps the memory spec must see
	// between its first and last sample (on subjects with a probe): the
	// run goes on past heapRun, up to heapMaxRun, until it has them (a
	// count, not a speed: under -race the reactor took about 8,000 steps
	// in the 8 s after the warm-up).
	heapMinSteps = 10_000
	// heapBytesPerStep bounds the live heap's growth per loop step between
	// the first and last sample: generous (the reactor measured 0-27
	// bytes/step, noise; a decision retained per step measured about 740),
	// so allocator noise spread over heapMinSteps steps stays under it.
	heapBytesPerStep = 200
	// produceBatch records of produceValueBytes each are produced every
	// produceEvery while the memory spec runs.
	produceBatch      = 1000
	produceValueBytes = 200
	produceEvery      = 100 * time.Millisecond
	// segmentBytes is the topic's segment.bytes in the memory spec.
	segmentBytes = 256 << 10
)

// idleManager is a synthetic manager with nothing to do, except that after
// an event sets block it blocks its next poll until release is closed
// (entered is closed when it starts blocking). Engine goroutine only.
type idleManager struct {
	block   bool
	entered chan struct{}
	release chan struct{}
}

func (m *idleManager) Name() string { return "idle" }

func (m *idleManager) Poll(*reactor.Tx, synthView) reactor.Result {
	if m.block {
		m.block = false
		close(m.entered)
		<-m.release // the "busy" loop the spec controls
	}
	return reactor.Idle("nothing to do")
}

func noTransport() reactor.Transport {
	return reactor.TransportFunc(func(*reactor.Request, func(any, error)) {
		Fail("the synthetic manager sent a request")
	})
}

var _ = Describe("Bounded memory", func() {
	It("keeps the decision trace at its capacity however many steps the loop takes",
		suite.Spec("bounded.trace", []string{"P6"}, subject.Name(), target.Name()),
		SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			eng := newEngine(suite.EngineOf(subject), []reactor.Manager[synthView]{&idleManager{}}, noTransport(), 0)
			eng.Start()
			DeferCleanup(eng.Stop)
			for range traceSteps {
				done := make(chan struct{})
				Expect(eng.Submit(ctx, "step", func(tx *reactor.Tx) { tx.Effect(func() { close(done) }) })).To(Succeed())
				select {
				case <-done:
				case <-ctx.Done():
					Fail("the event's effect never ran")
				}
			}
			Eventually(ctx, func() uint64 { return eng.Stats().Steps }).WithTimeout(harness.WaitTimeout).Should(BeNumerically(">=", traceSteps))
			tr := eng.Trace()
			steps := eng.Stats().Steps
			suite.Figure("steps", float64(steps), "steps", fmt.Sprintf(">= %d", traceSteps))
			suite.Figure("trace_length", float64(len(tr)), "decisions", fmt.Sprintf("== %d (default TraceCapacity)", defaultTraceCapacity))
			Expect(len(tr)).To(Equal(defaultTraceCapacity), "decisions retained after %d steps: the trace must hold exactly TraceCapacity (default %d)", steps, defaultTraceCapacity)
			for i := 1; i < len(tr); i++ {
				Expect(tr[i].Step).To(Equal(tr[i-1].Step+1), "trace steps are consecutive, oldest first")
			}
			Expect(tr[len(tr)-1].Step).To(BeNumerically(">=", uint64(traceSteps)), "the trace keeps the newest decisions")
		})

	It("blocks Submit while the inbox is full and the loop busy, until the caller's deadline",
		suite.Spec("bounded.inbox", []string{"P6"}, subject.Name(), target.Name()),
		SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			m := &idleManager{entered: make(chan struct{}), release: make(chan struct{})}
			eng := newEngine(suite.EngineOf(subject), []reactor.Manager[synthView]{m}, noTransport(), tinyInbox)
			eng.Start()
			released := false
			DeferCleanup(func() {
				if !released {
					close(m.release)
				}
				eng.Stop()
			})
			noop := func(*reactor.Tx) {}

			By("making the loop busy: a poll that blocks until released")
			Expect(eng.Submit(ctx, "block", func(*reactor.Tx) { m.block = true })).To(Succeed())
			Eventually(ctx, m.entered).WithTimeout(harness.WaitTimeout).Should(BeClosed(), "the loop entered the blocking poll")

			By(fmt.Sprintf("filling the inbox (capacity %d)", tinyInbox))
			for i := range tinyInbox {
				sctx, cancel := context.WithTimeout(ctx, harness.WaitTimeout)
				err := eng.Submit(sctx, "fill", noop)
				cancel()
				Expect(err).NotTo(HaveOccurred(), "Submit %d of %d into a non-full inbox", i+1, tinyInbox)
			}

			By(fmt.Sprintf("submitting one more with a %s deadline: it must block until the deadline", submitBlockWait))
			sctx, cancel := context.WithTimeout(ctx, submitBlockWait)
			start := time.Now()
			err := eng.Submit(sctx, "overflow", noop)
			blocked := time.Since(start)
			cancel()
			suite.Figure("inbox_capacity", tinyInbox, "observations", "")
			suite.Figure("submit_blocked_for", float64(blocked.Milliseconds()), "ms", fmt.Sprintf(">= %d ms (its deadline)", submitBlockWait.Milliseconds()))
			Expect(errors.Is(err, context.DeadlineExceeded)).To(BeTrue(), "Submit into a full inbox of a busy loop returned %v, want context.DeadlineExceeded after submitBlockWait (%s)", err, submitBlockWait)
			Expect(blocked).To(BeNumerically(">=", submitBlockWait), "Submit returned before its deadline (submitBlockWait %s)", submitBlockWait)

			By("releasing the loop: Submit is accepted again")
			close(m.release)
			released = true
			sctx, cancel = context.WithTimeout(ctx, harness.WaitTimeout)
			defer cancel()
			Expect(eng.Submit(sctx, "after", noop)).To(Succeed(), "Submit after the loop drained its inbox")
		})

	It("keeps a steady heap while consuming continuously for 10 s",
		suite.Spec("bounded.steady-heap", []string{"P6"}, subject.Name(), target.Name()), suite.Alone(suite.JudgesTiming),
		SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			const topic = "telemetry"
			cl := suite.StartCluster(ctx, target, harness.TargetConfig{Brokers: 1})
			trimmer, ok := cl.(harness.LogTrimmer)
			creator, ok2 := cl.(harness.TopicCreator)
			if !ok || !ok2 {
				Skip("target " + target.Name() + " cannot trim its log: its own memory would be the trend")
			}
			// Small segments, so trimming behind the consumer frees the
			// broker's memory as the run goes (kfake frees whole segments).
			topicConfigs := map[string]string{"segment.bytes": strconv.Itoa(segmentBytes)}
			if target.Name() != kfake.Name {
				// A real broker's memory is not this process's, and it
				// refuses segments this small: its defaults do.
				topicConfigs = nil
			}
			Expect(creator.CreateTopic(ctx, topic, 3, topicConfigs)).To(Succeed())
			groupID, clientID := suite.UniqueName("p6-heap"), suite.UniqueName("p6-heap-client")
			c := suite.NewConsumer(subject, suite.ConsumerConfig(cl, groupID, clientID))
			Expect(c.Subscribe(topic)).To(Succeed())

			By(fmt.Sprintf("producing %d records of %d bytes every %s", produceBatch, produceValueBytes, produceEvery))
			value := make([]byte, produceValueBytes)
			var produced atomic.Int64
			var produceErr error
			// quiet is held by the producer while it produces a batch and
			// by the sampler while it samples: the producer's in-flight
			// batch (records, and the compressor's megabyte-sized tables)
			// is not the consumer's memory.
			var quiet sync.Mutex
			pctx, stopProducing := context.WithCancel(ctx)
			var wg sync.WaitGroup
			wg.Go(func() {
				t := time.NewTicker(produceEvery)
				defer t.Stop()
				for {
					quiet.Lock()
					counts, err := cl.Produce(pctx, topic, produceBatch, func(int) ([]byte, []byte) { return nil, value })
					quiet.Unlock()
					for _, n := range counts {
						produced.Add(int64(n))
					}
					if err != nil {
						if pctx.Err() == nil {
							produceErr = err
						}
						return
					}
					select {
					case <-t.C:
					case <-pctx.Done():
						return
					}
				}
			})
			DeferCleanup(func() { stopProducing(); wg.Wait() })

			By(fmt.Sprintf("consuming for %s (longer, up to %s, until the loop took %d steps after the first sample), trimming the log behind the consumer, sampling the heap every %s after %s", heapRun, heapMaxRun, heapMinSteps, heapSampleEvery, heapWarmup))
			probe, hasProbe := harness.ProbeOf(c)
			next := map[managers.TopicPartition]int64{}
			outOfOrder := 0
			consumed := 0
			var samples []measure.HeapSample
			var sampleSteps []uint64 // the loop's steps at each sample (with a probe)
			start := time.Now()
			nextSample := start.Add(heapWarmup)
			nextTrim := start
			enough := func() bool {
				if time.Since(start) < heapRun {
					return false
				}
				if !hasProbe || len(sampleSteps) == 0 || time.Since(start) >= heapMaxRun {
					return true
				}
				return sampleSteps[len(sampleSteps)-1]-sampleSteps[0] >= heapMinSteps
			}
			for !enough() && ctx.Err() == nil {
				pctx, cancel := context.WithTimeout(ctx, heapPollTimeout)
				recs, err := c.Poll(pctx)
				cancel()
				Expect(err).NotTo(HaveOccurred(), "Poll while consuming\n%s", harness.Diagnose(c))
				for _, r := range recs {
					tp := managers.TopicPartition{Topic: r.Topic, Partition: r.Partition}
					if want, seen := next[tp]; seen && r.Offset != want {
						outOfOrder++
					}
					next[tp] = r.Offset + 1
				}
				consumed += len(recs)
				if now := time.Now(); !now.Before(nextTrim) {
					for tp, off := range next {
						Expect(trimmer.DeleteRecords(ctx, tp.Topic, tp.Partition, off)).To(Succeed(), "trimming %s below %d", tp, off)
					}
					nextTrim = now.Add(heapTrimEvery)
				}
				if now := time.Now(); !now.Before(nextSample) {
					quiet.Lock()
					samples = append(samples, measure.SampleHeap())
					if hasProbe {
						sampleSteps = append(sampleSteps, probe.Stats().Steps)
					}
					quiet.Unlock()
					nextSample = nextSample.Add(heapSampleEvery)
				}
			}
			stopProducing()
			wg.Wait()
			Expect(produceErr).NotTo(HaveOccurred(), "producing")

			growth := measure.HeapGrowth(samples)
			var peak uint64
			for _, s := range samples {
				peak = max(peak, s.HeapInuse)
			}
			mb := func(b uint64) float64 { return float64(b) / (1 << 20) }
			took := time.Since(start)
			suite.Figure("records_produced", float64(produced.Load()), "records", "")
			suite.Figure("records_consumed", float64(consumed), "records", "> 0")
			suite.Figure("consume_rate", float64(consumed)/took.Seconds(), "records/s", "")
			suite.Figure("heap_samples", float64(len(samples)), "samples", "")
			if len(samples) > 0 {
				suite.Figure("heap_inuse_first", mb(samples[0].HeapInuse), "MiB", "")
				suite.Figure("heap_inuse_last", mb(samples[len(samples)-1].HeapInuse), "MiB", "")
				suite.Figure("heap_inuse_peak", mb(peak), "MiB", "")
				suite.Figure("heap_live_first", mb(samples[0].HeapAlloc), "MiB", "")
				suite.Figure("heap_live_last", mb(samples[len(samples)-1].HeapAlloc), "MiB", "")
			}
			suite.Figure("heap_growth", growth, "x", fmt.Sprintf("<= %.1f (last / first) over %d MiB", heapGrowthBound, heapSlackBytes>>20))
			Expect(len(samples)).To(BeNumerically(">=", int((heapRun-heapWarmup)/heapSampleEvery)), "heap samples taken")
			var steps uint64
			perStep := 0.0
			if probe, ok := suite.RequireProbe(c, "loop_steps"); ok {
				suite.Figure("loop_steps", float64(probe.Stats().Steps), "steps", "")
				steps = sampleSteps[len(sampleSteps)-1] - sampleSteps[0]
				grown := float64(samples[len(samples)-1].HeapAlloc) - float64(samples[0].HeapAlloc) - heapSlackBytes
				perStep = max(grown, 0) / float64(max(steps, 1))
				suite.Figure("loop_steps_sampled", float64(steps), "steps", fmt.Sprintf(">= %d (between the first and last sample)", heapMinSteps))
				suite.Figure("heap_live_per_step", perStep, "bytes/step", fmt.Sprintf("<= %d (growth beyond %d MiB of buffers)", heapBytesPerStep, heapSlackBytes>>20))
			}
			Expect(consumed).To(BeNumerically(">", 0), "records consumed\n%s", harness.Diagnose(c))
			Expect(outOfOrder).To(BeZero(), "records delivered out of offset order or with gaps")
			if hasProbe {
				Expect(steps).To(BeNumerically(">=", heapMinSteps), "loop steps between the first and last heap sample in %s (heapMaxRun): too few for per-step retention to show", heapMaxRun)
				Expect(perStep).To(BeNumerically("<=", heapBytesPerStep), "the live heap grew %.0f bytes per loop step over %d steps: memory is kept per step (heapBytesPerStep %d)", perStep, steps, heapBytesPerStep)
			}
			if len(samples) > 1 {
				first, last := samples[0].HeapInuse, samples[len(samples)-1].HeapInuse
				allowed := heapGrowthBound*float64(first) + heapSlackBytes
				suite.Figure("heap_inuse_allowed", mb(uint64(allowed)), "MiB", fmt.Sprintf("%.1f x first + %d MiB", heapGrowthBound, heapSlackBytes>>20))
				Expect(float64(last)).To(BeNumerically("<=", allowed), "heap in use grew %.2fx between the first and the last sample (%.1f -> %.1f MiB): more than heapGrowthBound (%.1fx) plus heapSlackBytes (%d MiB)", growth, mb(first), mb(last), heapGrowthBound, heapSlackBytes>>20)
			}
		})
})
