package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Options configure Run. Start from DefaultOptions.
type Options struct {
	Targets  []string // TargetKfake, TargetKafka
	Subjects []string // of Subjects
	Kinds    []string // of Kinds
	// Rounds of the throughput job per subject and target, interleaved:
	// round r runs every subject once, starting with subject r mod n.
	Rounds int
	// Throughput and backlog workload: Records of ValueBytes bytes over
	// Partitions partitions, max.poll.records MaxPollRecords, values as
	// Values says (ValuesRandom, ValuesZero).
	Records, Partitions, ValueBytes, MaxPollRecords int
	Values                                          string
	// Latency workload: LatencyRate records/s for LatencyDuration, in
	// LatencyRounds rounds (subjects rotated), after an untimed warm-up.
	LatencyRate     int
	LatencyDuration time.Duration
	LatencyRounds   int
	// AlternateEvery is the length of one subject's turn in the
	// alternating latency job (KindAlternating), which runs LatencyRounds
	// rounds of LatencyDuration per subject at LatencyRate.
	AlternateEvery time.Duration
	// Backlog workload: BacklogRecords waiting; memory read after Settle
	// without polling.
	BacklogRecords int
	Settle         time.Duration
	// IdleWindow is the idle job's measured time; IdleRounds how many
	// times every subject is measured idle (the subjects of one round
	// together). One window's spread between runs is as large as the
	// differences between clients.
	IdleWindow time.Duration
	IdleRounds int
	// JobTimeout bounds each job's consumption (a child that exceeds it
	// by a minute is killed).
	JobTimeout time.Duration
	// Exe is the binary a child runs as `Exe bench -job JSON`: kreactor.
	Exe string
	// ProfileDir, if set, receives a CPU and an allocation profile of each
	// Go subject's throughput job (<target>-<subject>-r<k>.cpu.pprof,
	// .allocs.pprof) and latency jobs (<target>-<subject>-latency-r<k>
	// .cpu.pprof, .allocs.pprof; alternating: -latency-alternating-r<k>,
	// spanning the other subjects' turns), and a CPU profile of its idle job
	// (<target>-<subject>-idle-r<k>.cpu.pprof); the latency and idle CPU
	// profiles are sampled at lowCPUProfileHz. An allocation profile
	// counts from the child's start, the join included.
	ProfileDir string
	// TraceDir, if set, receives a runtime execution trace of each Go
	// subject's latency jobs but the warm-up
	// (<target>-<subject>-<kind>-r<k>.trace), for `kreactor tracepath`. The
	// tracer adds to every scheduling event: the traced run's latency
	// figures compare with other traced runs only.
	TraceDir string
	// Bench receives the benchmark lines; Log the progress (nil: discard).
	Bench, Log io.Writer
}

// DefaultOptions is the workload: 300,000 records of 100 B on
// 3 partitions, 5 rounds (make bench: 6), max.poll.records 500 (Java's default); latency at
// 1,000 records/s for 10 s in 4 rounds (alternating: turns of 1 s);
// 1,000,000 records of backlog; 30 s idle in 3 rounds.
func DefaultOptions() Options {
	return Options{
		Targets: slices.Clone(Targets), Subjects: slices.Clone(DefaultSubjects), Kinds: slices.Clone(Kinds), Rounds: 5,
		Records: 300_000, Partitions: 3, ValueBytes: 100, MaxPollRecords: 500, Values: ValuesRandom,
		LatencyRate: 1000, LatencyDuration: 10 * time.Second, LatencyRounds: 4, AlternateEvery: time.Second,
		BacklogRecords: 1_000_000, Settle: 3 * time.Second,
		IdleWindow: 30 * time.Second, IdleRounds: 3, JobTimeout: 3 * time.Minute,
	}
}

func (o Options) validate() error {
	for _, t := range o.Targets {
		if !slices.Contains(Targets, t) {
			return fmt.Errorf("bench: target %q: want one of %v", t, Targets)
		}
	}
	for _, s := range o.Subjects {
		if !slices.Contains(Subjects, s) {
			return fmt.Errorf("bench: subject %q: want one of %v", s, Subjects)
		}
	}
	for _, k := range o.Kinds {
		if !slices.Contains(Kinds, k) {
			return fmt.Errorf("bench: kind %q: want one of %v", k, Kinds)
		}
	}
	switch {
	case len(o.Targets) == 0 || len(o.Subjects) == 0 || len(o.Kinds) == 0:
		return fmt.Errorf("bench: targets %v, subjects %v and kinds %v must not be empty", o.Targets, o.Subjects, o.Kinds)
	case o.Rounds < 1:
		return fmt.Errorf("bench: rounds %d: want >= 1", o.Rounds)
	case o.Records < 1 || o.Partitions < 1 || o.ValueBytes < 8 || o.MaxPollRecords < 1:
		return fmt.Errorf("bench: records %d, partitions %d, value bytes %d (>= 8: the latency stamp), max.poll.records %d: want positive",
			o.Records, o.Partitions, o.ValueBytes, o.MaxPollRecords)
	case o.LatencyRate < 1 || o.LatencyDuration <= 0 || o.LatencyRounds < 1 || o.BacklogRecords < 1 || o.IdleWindow <= 0 || o.IdleRounds < 1 || o.JobTimeout <= 0:
		return fmt.Errorf("bench: latency rate %d for %s in %d rounds, backlog %d, idle window %s in %d rounds, job timeout %s: want positive",
			o.LatencyRate, o.LatencyDuration, o.LatencyRounds, o.BacklogRecords, o.IdleWindow, o.IdleRounds, o.JobTimeout)
	case o.LatencyRate > maxLatencyRate:
		return fmt.Errorf("bench: latency rate %d records/s: want at most %d (the producer paces one record at a time)", o.LatencyRate, maxLatencyRate)
	case (slices.Contains(o.Kinds, KindLatency) || slices.Contains(o.Kinds, KindAlternating)) && o.latencyRecords() < 1:
		return fmt.Errorf("bench: latency rate %d records/s for %s: fewer than one record", o.LatencyRate, o.LatencyDuration)
	case slices.Contains(o.Kinds, KindAlternating) && (o.turnRecords() < 1 || o.AlternateEvery >= o.LatencyDuration):
		return fmt.Errorf("bench: alternate every %s: want at least one record's time at %d records/s and less than the latency duration %s",
			o.AlternateEvery, o.LatencyRate, o.LatencyDuration)
	case o.Exe == "":
		return errors.New("bench: Options.Exe (the kreactor binary children run) is required")
	}
	return nil
}

// maxLatencyRate bounds Options.LatencyRate (records/s): the stamped
// producer sleeps until each record's time, and a job keeps every
// record's latency.
const maxLatencyRate = 100_000

// latencyRecords is how many records one subject's latency job reads.
func (o Options) latencyRecords() int {
	return int(float64(o.LatencyRate) * o.LatencyDuration.Seconds())
}

// turnRecords is how many records one turn of the alternating job holds.
func (o Options) turnRecords() int { return int(float64(o.LatencyRate) * o.AlternateEvery.Seconds()) }

// Run measures every kind on every target for every subject and returns
// the results in the order they were measured; each is also written to
// o.Bench as it arrives. A job that fails is returned with its Err (and
// written as a comment line); Run goes on with the others.
func Run(ctx context.Context, o Options) ([]Result, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	if o.Bench == nil {
		o.Bench = io.Discard
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	for _, dir := range []string{o.ProfileDir, o.TraceDir} {
		if dir == "" {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	r := &runner{o: o, log: slog.New(slog.NewTextHandler(o.Log, nil))}
	r.header()
	for _, t := range o.Targets {
		if err := r.target(ctx, t); err != nil {
			return r.results, fmt.Errorf("target %s: %w", t, err)
		}
	}
	return r.results, nil
}

type runner struct {
	o       Options
	log     *slog.Logger
	mu      sync.Mutex // guards results and writes to o.Bench (idle jobs run together)
	results []Result
}

// Topic names on every target.
const (
	topicConsume = "bench-consume"
	topicBacklog = "bench-backlog"
)

func topicLatency(subject string, round int) string {
	return fmt.Sprintf("bench-latency-%s-r%d", subject, round)
}

func topicAlternating(subject string, round int) string {
	return fmt.Sprintf("bench-alternating-%s-r%d", subject, round)
}

// topicLatencyWarmup is the latency warm-up's topic; latencyWarmup its
// length.
const (
	topicLatencyWarmup = "bench-latency-warmup"
	latencyWarmup      = 10 * time.Second
)

// lowCPUProfileHz is the CPU profile rate of the latency and idle jobs:
// an idle consumer uses a few ms of CPU a second, which the default 100 Hz
// samples a handful of times in a window.
const lowCPUProfileHz = 1000

func topicIdle(subject string) string { return "bench-idle-" + subject }

func (r *runner) has(kind string) bool { return slices.Contains(r.o.Kinds, kind) }

// target starts target name with the topics the kinds need and runs the
// kinds asked for on it, in order: throughput, latency, backlog, idle.
func (r *runner) target(ctx context.Context, name string) error {
	r.log.Info("starting target", "target", name)
	cl, err := startTarget(ctx, name, r.topics(), r.log)
	if err != nil {
		return err
	}
	defer cl.close()
	o := r.o
	base := Job{Target: name, Addrs: cl.addrs, Partitions: o.Partitions, MaxPollRecords: o.MaxPollRecords, Timeout: o.JobTimeout, StampAt: -1}
	if r.has(KindThroughput) {
		if err := r.throughput(ctx, cl, base); err != nil {
			return err
		}
	}
	if r.has(KindLatency) || r.has(KindAlternating) {
		r.latencyWarmup(ctx, cl, base)
	}
	if r.has(KindLatency) {
		r.latency(ctx, cl, base)
	}
	if r.has(KindAlternating) {
		r.alternating(ctx, cl, base)
	}
	if r.has(KindBacklog) {
		if err := r.backlog(ctx, cl, base); err != nil {
			return err
		}
	}
	if r.has(KindIdle) {
		r.idle(ctx, base)
	}
	return nil
}

// topics are the topics the kinds run need, each with the configured
// partitions.
func (r *runner) topics() map[string]int32 {
	o := r.o
	parts := int32(o.Partitions)
	topics := map[string]int32{}
	if r.has(KindThroughput) {
		topics[topicConsume] = parts
	}
	if r.has(KindBacklog) {
		topics[topicBacklog] = parts
	}
	if r.has(KindLatency) || r.has(KindAlternating) {
		topics[topicLatencyWarmup] = parts
	}
	for _, s := range o.Subjects {
		for round := range o.LatencyRounds {
			if r.has(KindLatency) {
				topics[topicLatency(s, round+1)] = parts
			}
			if r.has(KindAlternating) {
				topics[topicAlternating(s, round+1)] = parts
			}
		}
		if r.has(KindIdle) {
			topics[topicIdle(s)] = parts
		}
	}
	return topics
}

// throughput produces the records, reads them once untimed (warming the
// broker: page cache, JIT on Kafka), then reads them with every subject
// for every round, in rotated order.
func (r *runner) throughput(ctx context.Context, cl *cluster, base Job) error {
	o, name := r.o, base.Target
	r.log.Info("producing", "target", name, "topic", topicConsume, "records", o.Records)
	if err := produce(ctx, cl.addrs, topicConsume, int32(o.Partitions), o.Records, o.ValueBytes, o.Values); err != nil {
		return err
	}
	warm := base
	warm.Kind, warm.Subject, warm.Topic, warm.Records, warm.Group = KindThroughput, SubjectKgo, topicConsume, o.Records, "bench-warmup"
	if res := r.child(ctx, warm, nil); res.Err != "" {
		r.log.Warn("warm-up failed", "error", res.Err)
	}
	n := len(o.Subjects)
	for round := range o.Rounds {
		for i := range n {
			s := o.Subjects[(round+i)%n]
			j := base
			j.Kind, j.Subject, j.Topic, j.Records, j.Round = KindThroughput, s, topicConsume, o.Records, round+1
			j.Group = fmt.Sprintf("bench-%s-consume-%s-r%d", name, s, round+1)
			if o.ProfileDir != "" && !isJava(s) {
				stem := filepath.Join(o.ProfileDir, fmt.Sprintf("%s-%s-r%d", name, s, round+1))
				j.CPUProfile, j.MemProfile = stem+".cpu.pprof", stem+".allocs.pprof"
			}
			r.record(r.child(ctx, j, nil))
		}
	}
	return nil
}

// latencyJob is subject s's latency job of kind (KindLatency,
// KindAlternating) in round on topic: records records, profiled if asked
// (not the warm-up's, round 0).
func (r *runner) latencyJob(base Job, kind, s, topic string, round, records int) Job {
	o := r.o
	j := base
	j.Kind, j.Subject, j.Topic, j.StampAt, j.Round, j.Records = kind, s, topic, 0, round, records
	j.Group = fmt.Sprintf("bench-%s-%s-%s-r%d", base.Target, kind, s, round)
	if o.ProfileDir != "" && !isJava(s) && round > 0 {
		stem := filepath.Join(o.ProfileDir, fmt.Sprintf("%s-%s-%s-r%d", base.Target, s, kind, round))
		j.CPUProfile, j.MemProfile = stem+".cpu.pprof", stem+".allocs.pprof"
		j.CPUProfileHz = lowCPUProfileHz
	}
	if o.TraceDir != "" && !isJava(s) && round > 0 {
		j.Trace = filepath.Join(o.TraceDir, fmt.Sprintf("%s-%s-%s-r%d.trace", base.Target, s, kind, round))
	}
	return j
}

// produceStamped produces records stamped records to each of topics at
// LatencyRate on cl, in turns of every records (turns).
func (r *runner) produceStamped(ctx context.Context, cl *cluster, topics []string, records, every int) error {
	p, err := newStampedProducer(cl.addrs)
	if err != nil {
		return err
	}
	defer p.close()
	_, err = p.runTurns(ctx, turns(topics, records, every), int32(r.o.Partitions), r.o.LatencyRate, r.o.ValueBytes)
	return err
}

// latencySubjects are the subjects the latency kinds measure: all but
// the warm Java one (throughput only).
func (r *runner) latencySubjects() []string {
	var out []string
	for _, s := range r.o.Subjects {
		if s != SubjectJavaWarm {
			out = append(out, s)
		}
	}
	return out
}

// latencyWarmup runs an untimed latency job: the broker's first stream of
// small produces and fetches is slower (JIT, new segments).
func (r *runner) latencyWarmup(ctx context.Context, cl *cluster, base Job) {
	j := r.latencyJob(base, KindLatency, SubjectKgo, topicLatencyWarmup, 0, int(float64(r.o.LatencyRate)*latencyWarmup.Seconds()))
	res := r.child(ctx, j, func() error { return r.produceStamped(ctx, cl, []string{j.Topic}, j.Records, j.Records) })
	if res.Err != "" {
		r.log.Warn("latency warm-up failed", "error", res.Err)
	}
}

// latency measures produce-to-Poll latency one subject at a time, in
// rotated order, so none is always first.
func (r *runner) latency(ctx context.Context, cl *cluster, base Job) {
	o := r.o
	records := o.latencyRecords()
	subjects := r.latencySubjects()
	for round := range o.LatencyRounds {
		for i := range subjects {
			s := subjects[(round+i)%len(subjects)]
			j := r.latencyJob(base, KindLatency, s, topicLatency(s, round+1), round+1, records)
			r.record(r.child(ctx, j, func() error { return r.produceStamped(ctx, cl, []string{j.Topic}, j.Records, j.Records) }))
		}
	}
}

// alternating measures produce-to-Poll latency with every subject's
// consumer running at once (KindAlternating): each round starts one child
// per subject on its own topic, waits until every one owns its partitions
// and fetches, then produces LatencyDuration's records to each topic in
// turns of AlternateEvery (turns), the subjects in the round's order
// (turnOrder).
func (r *runner) alternating(ctx context.Context, cl *cluster, base Job) {
	o := r.o
	subjects := r.latencySubjects()
	for round := range o.LatencyRounds {
		if ctx.Err() != nil {
			return
		}
		jobs := make([]Job, len(subjects))
		topics := make([]string, len(subjects))
		for i, s := range turnOrder(subjects, round) {
			topics[i] = topicAlternating(s, round+1)
			jobs[i] = r.latencyJob(base, KindAlternating, s, topics[i], round+1, o.latencyRecords())
			// Every subject's records are produced while the others' are.
			jobs[i].Timeout += time.Duration(len(subjects)) * o.LatencyDuration
		}
		produce := func() error {
			return r.produceStamped(ctx, cl, topics, o.latencyRecords(), o.turnRecords())
		}
		for _, res := range r.together(ctx, jobs, produce) {
			r.record(res)
		}
	}
}

// turnOrder is the order of the subjects' turns in round (from 0): the
// subjects rotated by one every two rounds, and reversed in odd rounds.
// Turns repeat in a cycle (a b c a b c ...), so with rotation alone each
// subject would always follow the same one, and whatever one subject's
// turn leaves behind (its process's work as it goes idle) would weigh on
// the next subject's figures in every round: the A/A control (kgo-twin)
// would always follow kgo, the reactor always follow the twin. Reversing
// every other round has each subject follow each of its two neighbours in
// as many rounds; with three subjects, six rounds take all six orders,
// each subject first in two.
func turnOrder(subjects []string, round int) []string {
	n := len(subjects)
	out := make([]string, n)
	for i := range out {
		out[i] = subjects[(round/2+i)%n]
	}
	if round%2 == 1 {
		slices.Reverse(out)
	}
	return out
}

// together runs jobs in children at once and, once every one is ready,
// run; each child's ready callback returns run's error (failing its job).
// If a child ends before it is ready, or ctx ends first, run does not
// start. If that or run fails, the children still running are stopped
// (they would wait out their timeouts for records that never come) and
// every job fails with the error. The results are in jobs' order.
func (r *runner) together(ctx context.Context, jobs []Job, run func() error) []Result {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n := len(jobs)
	ready, ended := make(chan int, n), make(chan int, n)
	done := make(chan struct{})
	var runErr error
	results := make([]Result, n)
	var wg sync.WaitGroup
	for i, j := range jobs {
		var once sync.Once // a child that writes its ready line again is counted once
		wg.Go(func() {
			results[i] = r.child(ctx, j, func() error {
				once.Do(func() { ready <- i })
				<-done
				return runErr
			})
			ended <- i
		})
	}
	isReady, culprit := make([]bool, n), -1
	for waiting := n; waiting > 0 && runErr == nil; {
		select {
		case i := <-ready:
			isReady[i] = true
			waiting--
		case i := <-ended:
			switch {
			case isReady[i]:
			case parent.Err() != nil:
				runErr = fmt.Errorf("round stopped before every subject was ready: %w", parent.Err())
			default:
				runErr = fmt.Errorf("nothing produced: %s (%s) ended before it was ready", jobs[i].Subject, jobs[i].Group)
				culprit = i
			}
		case <-parent.Done():
			runErr = fmt.Errorf("round stopped before every subject was ready: %w", parent.Err())
		}
	}
	if runErr == nil {
		runErr = run()
	}
	if runErr != nil {
		cancel()
	}
	close(done)
	wg.Wait()
	for i := range results {
		switch {
		case runErr == nil || strings.Contains(results[i].Err, runErr.Error()):
		case i == culprit && results[i].Err == "":
			results[i].Err = "ended before its ready line without an error"
		case i != culprit:
			// Stopped before its ready line: its own error is the kill.
			results[i].Err = fmt.Sprintf("round stopped: %v (%s)", runErr, results[i].Err)
		}
	}
	return results
}

// backlog produces the backlog and measures each subject's memory reading
// it (not the driver's Java columns: the same JVM consumer as java, and the
// driver would add its JSON buffers).
func (r *runner) backlog(ctx context.Context, cl *cluster, base Job) error {
	o := r.o
	r.log.Info("producing", "target", base.Target, "topic", topicBacklog, "records", o.BacklogRecords)
	if err := produce(ctx, cl.addrs, topicBacklog, int32(o.Partitions), o.BacklogRecords, o.ValueBytes, o.Values); err != nil {
		return err
	}
	for _, s := range o.Subjects {
		if s == SubjectJavaDriver || s == SubjectJavaWarm {
			continue
		}
		j := base
		j.Kind, j.Subject, j.Topic, j.Records, j.Settle, j.Round = KindBacklog, s, topicBacklog, o.BacklogRecords, o.Settle, 1
		j.Group = fmt.Sprintf("bench-%s-backlog-%s", base.Target, s)
		r.record(r.child(ctx, j, nil))
	}
	return nil
}

// idle measures idle consumers, which barely run, together: each in its
// own process, group and topic (not the driver's Java columns: the same
// JVM consumer as java; one poll command a second adds little), in
// IdleRounds rounds, each with fresh consumers and groups.
func (r *runner) idle(ctx context.Context, base Job) {
	o := r.o
	for round := range o.IdleRounds {
		var wg sync.WaitGroup
		for _, s := range o.Subjects {
			if s == SubjectJavaDriver || s == SubjectJavaWarm {
				continue
			}
			j := base
			j.Kind, j.Subject, j.Topic, j.Window, j.Round = KindIdle, s, topicIdle(s), o.IdleWindow, round+1
			j.Timeout = idleSettle + o.IdleWindow + o.JobTimeout
			j.Group = fmt.Sprintf("bench-%s-idle-%s-r%d", base.Target, s, round+1)
			if o.ProfileDir != "" && !isJava(s) {
				j.CPUProfile = filepath.Join(o.ProfileDir, fmt.Sprintf("%s-%s-idle-r%d.cpu.pprof", base.Target, s, round+1))
				j.CPUProfileHz = lowCPUProfileHz
			}
			wg.Go(func() { r.record(r.child(ctx, j, nil)) })
		}
		wg.Wait()
	}
}

// childLine is one line a child writes on stdout.
type childLine struct {
	Ready  *Ready  `json:"ready_line,omitempty"`
	Result *Result `json:"result,omitempty"`
}

// child runs j in a child process. onReady, if set, runs once the child's
// member owns every partition, and the child's result is awaited after it
// returns (its error fails the job).
func (r *runner) child(ctx context.Context, j Job, onReady func() error) Result {
	res := Result{Job: j}
	spec, err := json.Marshal(j)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	r.log.Info("job", "kind", j.Kind, "target", j.Target, "subject", j.Subject, "round", j.Round)
	cctx, cancel := context.WithTimeout(ctx, j.Timeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, r.o.Exe, "bench", "-job", string(spec))
	cmd.Stderr = r.o.Log
	out, err := cmd.StdoutPipe()
	if err != nil {
		res.Err = err.Error()
		return res
	}
	if err := cmd.Start(); err != nil {
		res.Err = err.Error()
		return res
	}
	var got *Result
	var readyErr error
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var l childLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			fmt.Fprintf(r.o.Log, "[child stdout] %s\n", sc.Bytes())
			continue
		}
		if l.Ready != nil && onReady != nil {
			readyErr = onReady()
		}
		if l.Result != nil {
			got = l.Result
		}
	}
	werr := cmd.Wait()
	switch {
	case got == nil && readyErr != nil:
		res.Err = fmt.Sprintf("producer: %v; child stopped (exit: %v)", readyErr, werr)
		return res
	case got == nil:
		res.Err = fmt.Sprintf("child wrote no result (exit: %v)", werr)
		return res
	case readyErr != nil && got.Err == "":
		got.Err = "producer: " + readyErr.Error()
	}
	return *got
}

func (r *runner) record(res Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.results = append(r.results, res)
	if res.Err != "" {
		r.log.Error("job failed", "kind", res.Job.Kind, "target", res.Job.Target, "subject", res.Job.Subject, "error", res.Err)
	}
	writeLine(r.o.Bench, res)
}

// ServeJob is the child side: it runs the job given as JSON and writes the
// ready line and the result to w.
func ServeJob(ctx context.Context, spec string, w io.Writer) error {
	var j Job
	dec := json.NewDecoder(strings.NewReader(spec))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("bench: job %q: %w", spec, err)
	}
	enc := json.NewEncoder(w)
	res := RunJob(ctx, j, func(rd Ready) { _ = enc.Encode(childLine{Ready: &rd}) })
	return enc.Encode(childLine{Result: &res})
}
