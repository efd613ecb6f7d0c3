package scenario

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// Figure is one measured number of a run and the bound it was held to.
type Figure struct {
	Name   string
	Value  float64
	Unit   string
	Bound  string // "" when the figure is informational
	Pass   bool
	Detail string // text that goes with the number (an error, callback outcomes)
	// NotApplicable is set on a figure the subject cannot show (a probe
	// of the loop on a black-box subject); Detail says why. Such a
	// figure is not measured and fails nothing.
	NotApplicable bool
}

// Outcome is the verdict of one run: failures (empty means pass), the
// figures, and the consumer's diagnosis at the end.
type Outcome struct {
	Scenario *Scenario
	Subject  string
	Target   string
	Figures  []Figure
	Failures []string
	// FailedKeys are the keys of the failed expectations (Expectation.Key,
	// KeyCommitsObserved, KeyTimeline), each once, in order of failure:
	// what the report compares with the scenario's Signals and Liveness.
	FailedKeys []string
	Diagnose   string
	Duration   time.Duration
}

// Passed reports whether every expectation held.
func (o *Outcome) Passed() bool { return len(o.Failures) == 0 }

func (o *Outcome) failKey(key string) {
	if !slices.Contains(o.FailedKeys, key) {
		o.FailedKeys = append(o.FailedKeys, key)
	}
}

// Defaults for steps that leave a value out.
const (
	DefaultStepTimeout = 10 * time.Second       // consume, wait_assigned, commit_sync, close
	DefaultPollEach    = 100 * time.Millisecond // poll_for: one Poll's timeout
)

type window struct {
	from, to time.Time
	probed   bool // the subject has a probe: s0, s1 are set
	s0, s1   reactor.Stats
	// pastInTrace is the harness's own count of past deadlines in the
	// window, from the decisions the probe's trace still held when the
	// window closed (a lower bound: the trace is a ring).
	pastInTrace int
	// cpu0, cpu1 are the consumer's CPU at the window's edges, read when
	// a cpu expectation names the window (cpu.go); cpuErr why not.
	cpuWanted  bool
	cpu0, cpu1 harness.CPUReading
	cpuErr     error
}

type stepResult struct {
	start, end time.Time
	err        error
	records    int
}

type callbackResult struct {
	errs []error // one per callback run
}

type processedMark struct {
	at  time.Time
	tp  managers.TopicPartition
	pos int64 // next offset to process
}

type commitSeen struct {
	at      time.Time
	tp      managers.TopicPartition // Topic "" until resolved from topicID
	topicID [16]byte                // OffsetCommit v10+ names topics by id
	offset  int64
}

type run struct {
	sc       *Scenario
	cl       harness.Cluster
	c        harness.Consumer
	cfg      consumer.Config
	group    string
	clientID string

	windows   map[string]*window
	results   map[string]*stepResult
	callbacks map[string]*callbackResult
	faults    map[string]harness.Fault

	lastOffset map[managers.TopicPartition]int64
	unique     int
	violations []string
	firstPos   map[managers.TopicPartition]int64
	processed  []processedMark
	pollErrors int

	commitsMu sync.Mutex
	commits   []commitSeen

	rejected error // construction error checked by config_rejected
}

// Run runs sc once against a fresh cluster of target with a consumer of
// subject. Failed expectations are in the Outcome; the error is for runs that
// could not be carried out (the cluster did not start, a step could not be
// executed).
func Run(ctx context.Context, sc *Scenario, subject harness.Subject, target harness.Target) (*Outcome, error) {
	start := time.Now()
	out := &Outcome{Scenario: sc, Subject: subject.Name(), Target: target.Name()}
	cl, err := target.Start(ctx, harness.TargetConfig{Topics: sc.Cluster.Topics, Brokers: sc.Cluster.Brokers, HeartbeatInterval: sc.Cluster.HeartbeatInterval})
	if err != nil {
		return nil, fmt.Errorf("scenario %s: start %s cluster: %w", sc.ID, target.Name(), err)
	}
	defer cl.Close()
	r := &run{sc: sc, cl: cl, windows: map[string]*window{}, results: map[string]*stepResult{},
		callbacks: map[string]*callbackResult{}, faults: map[string]harness.Fault{},
		lastOffset: map[managers.TopicPartition]int64{}, firstPos: map[managers.TopicPartition]int64{}}
	suffix := randSuffix()
	r.clientID = "sc-" + sc.ID + "-" + suffix
	if sc.Client.Group {
		r.group = "g-" + sc.ID + "-" + suffix
	}
	r.cfg = r.config()
	if r.wants("commits_within_processed") {
		f, err := cl.Observe(ctx, kmsg.OffsetCommit, r.observeCommit)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: observe OffsetCommit: %w", sc.ID, err)
		}
		defer f.Heal()
	}
	c, err := subject.New(r.cfg)
	if err != nil {
		r.rejected = err
	} else {
		r.c = c
		defer func() { // a scenario without a close step still closes
			cctx, cancel := context.WithTimeout(context.Background(), DefaultStepTimeout)
			defer cancel()
			_ = c.Close(cctx)
		}()
		if err := r.steps(ctx, out); err != nil {
			out.Diagnose = harness.Diagnose(c)
			return nil, err
		}
		out.Diagnose = harness.Diagnose(c)
	}
	for _, f := range r.faults {
		f.Heal()
	}
	r.evaluate(out)
	out.Duration = time.Since(start)
	return out, nil
}

func randSuffix() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (r *run) wants(kind string) bool {
	return slices.ContainsFunc(r.sc.Expect, func(e Expectation) bool { return e.Kind == kind })
}

// config applies the file's consumer section to Java's defaults.
func (r *run) config() consumer.Config {
	cs := r.sc.Client
	cfg := consumer.DefaultConfig()
	cfg.BootstrapServers = r.cl.Addrs()
	if cs.Bootstrap == "unreachable" {
		// A loopback port nothing listens on: connections are refused.
		cfg.BootstrapServers = []string{"127.0.0.1:1"}
	}
	cfg.ClientID = r.clientID
	cfg.GroupID = r.group
	cfg.AutoOffsetReset = "earliest"
	cfg.EnableAutoCommit = false
	if cs.AutoOffsetReset != "" {
		cfg.AutoOffsetReset = cs.AutoOffsetReset
	}
	set := func(dst *time.Duration, v *time.Duration) {
		if v != nil {
			*dst = *v
		}
	}
	if cs.EnableAutoCommit != nil {
		cfg.EnableAutoCommit = *cs.EnableAutoCommit
	}
	set(&cfg.AutoCommitInterval, cs.AutoCommitInterval)
	set(&cfg.RetryBackoff, cs.RetryBackoff)
	set(&cfg.RetryBackoffMax, cs.RetryBackoffMax)
	set(&cfg.ReconnectBackoff, cs.ReconnectBackoff)
	set(&cfg.ReconnectBackoffMax, cs.ReconnectBackoffMax)
	set(&cfg.SocketConnectionSetupTimeout, cs.SocketConnectionSetupTimeout)
	set(&cfg.SocketConnectionSetupTimeoutMax, cs.SocketConnectionSetupTimeoutMax)
	set(&cfg.DefaultAPITimeout, cs.DefaultAPITimeout)
	set(&cfg.MaxPollInterval, cs.MaxPollInterval)
	set(&cfg.RequestTimeout, cs.RequestTimeout)
	set(&cfg.MetadataMaxAge, cs.MetadataMaxAge)
	set(&cfg.FetchMaxWait, cs.FetchMaxWait)
	if cs.MaxPollRecords != nil {
		cfg.MaxPollRecords = *cs.MaxPollRecords
	}
	return cfg
}

func (r *run) observeCommit(o harness.Observed) {
	req, ok := o.Req.(*kmsg.OffsetCommitRequest)
	if !ok || req.Group != r.group {
		return
	}
	r.commitsMu.Lock()
	defer r.commitsMu.Unlock()
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			r.commits = append(r.commits, commitSeen{at: o.At, tp: managers.TopicPartition{Topic: t.Topic, Partition: p.Partition}, topicID: t.TopicID, offset: p.Offset})
		}
	}
}

// steps runs the timeline. A step that cannot be carried out (a consume
// that never gets its records, a fault the cluster refuses) stops the
// timeline there: the failure is recorded on KeyTimeline and the
// expectations are still evaluated, so a run shows what it measured before
// it stopped (a consumer that makes no progress fails its liveness keys,
// not the spec as a whole). The error is for a run that was canceled.
func (r *run) steps(ctx context.Context, out *Outcome) error {
	for _, st := range r.sc.Steps {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%s:%d: %s: %w", r.sc.File, st.Line, st.Kind, err)
		}
		if err := r.step(ctx, st); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%s:%d: %s: %w", r.sc.File, st.Line, st.Kind, err)
			}
			out.Failures = append(out.Failures, fmt.Sprintf("%s:%d: %s: %v (the timeline stopped here)", r.sc.File, st.Line, st.Kind, err))
			out.failKey(KeyTimeline)
			break
		}
	}
	for _, w := range r.windows {
		if w.to.IsZero() {
			r.closeWindow(w)
		}
	}
	return nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

func (r *run) step(ctx context.Context, st Step) error {
	c := r.c
	switch st.Kind {
	case "produce":
		_, err := r.cl.Produce(ctx, st.Topic, st.Count, nil)
		return err
	case "subscribe":
		return c.Subscribe(st.Topics...)
	case "assign":
		var tps []managers.TopicPartition
		for t, ps := range st.Assign {
			for _, p := range ps {
				tps = append(tps, managers.TopicPartition{Topic: t, Partition: p})
			}
		}
		return c.Assign(tps...)
	case "wait_assigned":
		deadline := time.Now().Add(orDefault(st.Timeout, DefaultStepTimeout))
		for len(c.Assignment()) == 0 {
			if time.Now().After(deadline) {
				return fmt.Errorf("no assignment after %s\n%s", orDefault(st.Timeout, DefaultStepTimeout), harness.Diagnose(c))
			}
			r.pollOnce(ctx, harness.PollSlice, 0)
		}
		return nil
	case "consume":
		deadline := time.Now().Add(orDefault(st.Timeout, DefaultStepTimeout))
		target := r.unique + st.Records
		for r.unique < target {
			if time.Now().After(deadline) {
				return fmt.Errorf("%d of %d records after %s\n%s", r.unique-(target-st.Records), st.Records, orDefault(st.Timeout, DefaultStepTimeout), harness.Diagnose(c))
			}
			if _, err := r.pollOnce(ctx, harness.PollSlice, 0); err != nil {
				return fmt.Errorf("poll: %w", err)
			}
		}
		return nil
	case "poll":
		res := &stepResult{start: time.Now()}
		res.records, res.err = r.pollOnce(ctx, st.Timeout, 0)
		res.end = time.Now()
		r.remember(st.As, res)
		return nil
	case "poll_for":
		end := time.Now().Add(st.Duration)
		for time.Now().Before(end) && ctx.Err() == nil {
			if _, err := r.pollOnce(ctx, min(orDefault(st.Each, DefaultPollEach), time.Until(end)), st.Process); err != nil {
				r.pollErrors++
			}
		}
		return nil
	case "commit_sync":
		cctx, cancel := context.WithTimeout(ctx, orDefault(st.Timeout, DefaultStepTimeout))
		defer cancel()
		res := &stepResult{start: time.Now()}
		res.err = c.CommitSync(cctx)
		res.end = time.Now()
		r.remember(st.As, res)
		return nil
	case "commit_async":
		cb := &callbackResult{}
		if st.As != "" {
			r.callbacks[st.As] = cb
		}
		c.CommitAsync(func(err error) { cb.errs = append(cb.errs, err) })
		return nil
	case "pause_all", "resume_all":
		tps := c.Assignment()
		if len(tps) == 0 {
			return errors.New("no partitions assigned")
		}
		if st.Kind == "pause_all" {
			return c.Pause(tps...)
		}
		return c.Resume(tps...)
	case "fault":
		spec := st.Fault
		if spec.Kind == harness.FaultCoordinatorUnavailable {
			spec.Group = r.group
		}
		if st.When == "leave-heartbeat" {
			group := r.group
			spec.When = func(req kmsg.Request) bool {
				hb, ok := req.(*kmsg.ConsumerGroupHeartbeatRequest)
				return ok && hb.Group == group && hb.MemberEpoch == -1
			}
		}
		f, err := r.cl.Inject(ctx, spec)
		if err != nil {
			return err
		}
		name := st.As
		if name == "" {
			name = fmt.Sprintf("fault@%d", st.Line)
		}
		r.faults[name] = f
		return nil
	case "heal":
		r.faults[st.Name].Heal()
		return nil
	case "sleep":
		// Scenario time passing (the consumer works on its own meanwhile);
		// not a synchronisation.
		select {
		case <-time.After(st.Duration):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	case "window":
		w := &window{from: time.Now()}
		if p, ok := harness.ProbeOf(c); ok {
			w.probed, w.s0 = true, p.Stats()
		}
		r.windows[st.Name] = w
		w.cpuWanted = r.wantsCPU(st.Name)
		r.readCPU(w, true)
		return nil
	case "end_window":
		r.closeWindow(r.windows[st.Name])
		return nil
	case "close":
		cctx, cancel := context.WithTimeout(ctx, orDefault(st.Timeout, DefaultStepTimeout))
		defer cancel()
		res := &stepResult{start: time.Now()}
		res.err = c.Close(cctx)
		res.end = time.Now()
		r.remember(st.As, res)
		return nil
	}
	return fmt.Errorf("unknown step kind %q", st.Kind)
}

func (r *run) remember(as string, res *stepResult) {
	if as != "" {
		r.results[as] = res
	}
}

func (r *run) closeWindow(w *window) {
	if w == nil || !w.to.IsZero() {
		return
	}
	w.to = time.Now()
	r.readCPU(w, false)
	if p, ok := harness.ProbeOf(r.c); ok && w.probed {
		w.s1 = p.Stats()
		w.pastInTrace = harness.PastDeadlinesIn(p.Trace(), w.from, w.to)
	}
}

// pollOnce calls Poll with timeout d, tracks delivery, and after a
// non-empty batch "processes" it for process before marking it processed.
func (r *run) pollOnce(ctx context.Context, d, process time.Duration) (int, error) {
	pctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	recs, err := r.c.Poll(pctx)
	if len(recs) == 0 {
		return 0, err
	}
	next := map[managers.TopicPartition]int64{}
	for _, rec := range recs {
		tp := managers.TopicPartition{Topic: rec.Topic, Partition: rec.Partition}
		if _, ok := r.firstPos[tp]; !ok {
			r.firstPos[tp] = rec.Offset
		}
		if last, ok := r.lastOffset[tp]; ok && rec.Offset <= last {
			if len(r.violations) < 10 {
				r.violations = append(r.violations, fmt.Sprintf("%s offset %d after %d (duplicate or out of order)", tp, rec.Offset, last))
			}
		} else {
			r.unique++
		}
		r.lastOffset[tp] = max(r.lastOffset[tp], rec.Offset)
		next[tp] = rec.Offset + 1
	}
	if process > 0 {
		time.Sleep(process) // the application processing the batch
	}
	now := time.Now()
	for tp, pos := range next {
		r.processed = append(r.processed, processedMark{at: now, tp: tp, pos: pos})
	}
	return len(recs), err
}

// processedAt is the next offset to process of tp as of t (the application
// finished every record before it), or the first offset delivered.
func (r *run) processedAt(tp managers.TopicPartition, t time.Time) (int64, bool) {
	pos, ok := r.firstPos[tp]
	for _, m := range r.processed {
		if m.tp == tp && !m.at.After(t) {
			pos = max(pos, m.pos)
		}
	}
	return pos, ok
}

// resolveTopicIDs names the topics of commits observed by id (OffsetCommit
// v10+), asking the cluster's metadata.
func (r *run) resolveTopicIDs(ctx context.Context, commits []commitSeen) error {
	need := false
	for _, c := range commits {
		need = need || c.tp.Topic == ""
	}
	if !need {
		return nil
	}
	adm, err := kadm.NewOptClient(kgo.SeedBrokers(r.cl.Addrs()...), kgo.ClientID("kreactor-scenario-admin"))
	if err != nil {
		return err
	}
	defer adm.Close()
	topics, err := adm.ListTopics(ctx)
	if err != nil {
		return fmt.Errorf("resolve topic ids: %w", err)
	}
	names := map[[16]byte]string{}
	for _, t := range topics {
		names[t.ID] = t.Topic
	}
	for i := range commits {
		if commits[i].tp.Topic == "" {
			commits[i].tp.Topic = names[commits[i].topicID]
		}
	}
	return nil
}
