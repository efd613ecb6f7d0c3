package scenario

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/measure"
	"github.com/kreactor/kreactor/reactor"
)

// Figure is one measured number of a run and the bound it was held to.
type Figure struct {
	Name   string
	Value  float64
	Unit   string
	Bound  string // "" when the figure is informational (report only)
	Pass   bool
	Detail string // text that goes with the number (an error, callback outcomes)
	// NotApplicable is set on a figure the subject cannot show (a probe
	// of the loop on a black-box subject); Detail says why. Such a
	// figure is not measured and fails nothing.
	NotApplicable bool
}

// Outcome is the verdict of one run: failures (empty means pass), the
// figures, and the consumers' diagnosis at the end.
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
	// NotApplicable, when set, says why the file cannot run on the
	// subject (a share consumer on a subject without one, a step the
	// subject has no call for): nothing was judged, the spec is skipped
	// with this reason, never passed.
	NotApplicable string
	Diagnose      string
	Duration      time.Duration
}

// Passed reports whether every expectation held (false when not
// applicable: nothing was judged).
func (o *Outcome) Passed() bool { return len(o.Failures) == 0 && o.NotApplicable == "" }

// Verdict is "PASS", "FAIL" or "N/A".
func (o *Outcome) Verdict() string {
	switch {
	case o.NotApplicable != "":
		return "N/A"
	case len(o.Failures) == 0:
		return "PASS"
	}
	return "FAIL"
}

func (o *Outcome) failKey(key string) {
	if !slices.Contains(o.FailedKeys, key) {
		o.FailedKeys = append(o.FailedKeys, key)
	}
}

// DefaultStepTimeout is the timeout of consume, wait_assigned, commit_sync
// and close when the step gives none; DefaultPollEach is poll_for's Poll
// timeout.
const (
	DefaultStepTimeout = 10 * time.Second
	DefaultPollEach    = 100 * time.Millisecond
)

// naError says a step cannot run on the subject.
type naError struct{ why string }

func (e *naError) Error() string { return "n/a: " + e.why }

func notApplicable(format string, args ...any) error {
	return &naError{fmt.Sprintf(format, args...)}
}

// run is one run of a scenario. Fields after mu are guarded by it (timed and
// background steps run on their own goroutines).
type run struct {
	sc      *Scenario
	cl      harness.Cluster
	subject harness.Subject
	suffix  string
	members map[string]*member
	order   []*member
	marks   map[string]*mark // by step name
	t0      time.Time        // the timeline's start
	tEnd    time.Time        // the timeline's end (set before evaluation)
	begun   chan struct{}    // closed at t0
	seqDone chan struct{}    // closed when the sequence and background steps ended

	mu          sync.Mutex
	out         *Outcome
	windows     map[string]*window
	faults      map[string]harness.Fault
	commits     []commitSeen
	groupStates map[string]groupState   // broker state after the timeline, by group id
	callbacks   map[string]*callbackLog // commit_async callbacks by step name
	assignments assignmentReadings      // assignment steps' readings by step name
	offsets     offsetReadings          // position steps' readings by step name
	na          string

	// deadline is the run's deadline and deadlineWhy what set it: the
	// file's timeline bound plus RunSlack, or the caller's context (kreactor
	// run -timeout) when that ends first.
	deadline    time.Time
	deadlineWhy string
}

type window struct {
	from, to time.Time
	probes   map[string]*windowProbe // by consumer name
}

type windowProbe struct {
	s0, s1 reactor.Stats
	// pastInTrace is the harness's own count of past deadlines in the
	// window, from the decisions the probe's trace still held when the
	// window closed (a lower bound: the trace is a ring).
	pastInTrace int
	// cpu0, cpu1 are the consumer's CPU at the window's edges (cpu.go);
	// cpuRead is false when it had no consumer when the window opened,
	// cpuErr the first failed reading.
	cpu0, cpu1 measure.CPUReading
	cpuRead    bool
	cpuErr     error
}

type groupState struct {
	info harness.GroupInfo
	err  error
}

// Run runs sc once against a fresh cluster of target with consumers of
// subject. Failed expectations are in the Outcome; the error is for runs that
// could not be carried out (the cluster did not start, the run was
// canceled). The run is bounded by the file's timeline bound plus RunSlack.
func Run(ctx context.Context, sc *Scenario, subject harness.Subject, target harness.Target) (*Outcome, error) {
	start := time.Now()
	why := fmt.Sprintf("the file's timeline bound %s plus %s", sc.Bound(), RunSlack)
	if d, ok := ctx.Deadline(); ok && d.Before(start.Add(sc.Bound()+RunSlack)) {
		why = fmt.Sprintf("the caller's deadline, %s after the run's start (e.g. kreactor run -timeout)", d.Sub(start).Round(time.Millisecond))
	}
	ctx, cancel := context.WithTimeout(ctx, sc.Bound()+RunSlack)
	defer cancel()
	deadline, _ := ctx.Deadline()
	out := &Outcome{Scenario: sc, Subject: subject.Name(), Target: target.Name()}
	cl, err := target.Start(ctx, harness.TargetConfig{Topics: sc.Cluster.Topics, Brokers: sc.Cluster.brokers(),
		HeartbeatInterval: sc.Cluster.HeartbeatInterval.D(), SessionTimeout: sc.Cluster.SessionTimeout.D(), ShareLockDuration: sc.Cluster.ShareLockDuration.D()})
	if err != nil {
		return nil, fmt.Errorf("scenario %s: start %s cluster: %w", sc.ID, target.Name(), err)
	}
	defer cl.Close()
	r := &run{sc: sc, cl: cl, subject: subject, suffix: randSuffix(), members: map[string]*member{}, marks: map[string]*mark{},
		begun: make(chan struct{}), seqDone: make(chan struct{}), out: out, windows: map[string]*window{},
		faults: map[string]harness.Fault{}, groupStates: map[string]groupState{}, deadline: deadline, deadlineWhy: why}
	if err := r.setUp(ctx); err != nil {
		return nil, err
	}
	defer r.closeAll()
	if r.na == "" {
		r.timeline(ctx)
		r.captureGroups(ctx)
	}
	out.Diagnose = r.diagnose()
	r.closeAll()
	r.healAll()
	if r.na != "" {
		out.NotApplicable = r.na
		out.Failures, out.FailedKeys = nil, nil
		out.Duration = time.Since(start)
		return out, nil
	}
	if err := ctx.Err(); err != nil && errors.Is(err, context.Canceled) {
		return nil, fmt.Errorf("scenario %s: %w", sc.ID, err)
	}
	r.evaluate(ctx)
	out.Duration = time.Since(start)
	return out, nil
}

func randSuffix() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// groupID is the run's id of the file's group ref ("true": the run's group).
func (r *run) groupID(ref string) string {
	switch ref {
	case "":
		return ""
	case "true":
		return "g-" + r.sc.ID + "-" + r.suffix
	}
	return "g-" + r.sc.ID + "-" + r.suffix + "-" + ref
}

// setUp builds the members (consumers), sets group configs and starts the
// broker-side recording the expectations need.
func (r *run) setUp(ctx context.Context) error {
	sc := r.sc
	configs := map[string]map[string]string{}
	for _, cs := range sc.Consumers {
		g := r.groupID(cs.Group)
		if g == "" {
			continue
		}
		if configs[g] == nil {
			configs[g] = map[string]string{}
		}
		if cs.IsShare() {
			configs[g]["share.auto.offset.reset"] = "earliest"
		}
		maps.Copy(configs[g], cs.GroupConfigs)
	}
	for _, g := range slices.Sorted(maps.Keys(configs)) {
		if len(configs[g]) == 0 {
			continue
		}
		if err := r.cl.SetGroupConfigs(ctx, g, configs[g]); err != nil {
			return fmt.Errorf("scenario %s: set configs of group %s: %w", sc.ID, g, err)
		}
	}
	if keys := sc.bodyKeys(); len(keys) > 0 {
		kb, ok := r.cl.Recorder().(interface{ KeepBodies(...kmsg.Key) })
		if !ok {
			return fmt.Errorf("scenario %s: the %s target's recorder keeps no request bodies (where: needs them)", sc.ID, r.cl.Target())
		}
		kb.KeepBodies(keys...)
	}
	if sc.wants("commits_within_processed") {
		f, err := r.cl.Observe(ctx, kmsg.OffsetCommit, r.observeCommit)
		if err != nil {
			return fmt.Errorf("scenario %s: observe OffsetCommit: %w", sc.ID, err)
		}
		r.faults["observe OffsetCommit"] = f
	}
	for _, cs := range sc.Consumers {
		clientID := "sc-" + sc.ID + "-" + r.suffix
		if len(sc.Consumers) > 1 {
			clientID += "-" + cs.Name
		}
		m := newMember(cs, clientID, r.groupID(cs.Group))
		r.members[cs.Name] = m
		r.order = append(r.order, m)
		bootstrap := r.cl.Addrs()
		if cs.Bootstrap == "unreachable" {
			// A loopback port nothing listens on: connections are refused.
			bootstrap = []string{"127.0.0.1:1"}
		}
		var err error
		if cs.IsShare() {
			ss, ok := r.subject.(harness.ShareSubject)
			if !ok {
				r.na = fmt.Sprintf("subject %s has no share consumer (consumer %s is kind: share)", r.subject.Name(), cs.Name)
				return nil
			}
			cfg := cs.shareConfig(bootstrap, clientID, m.group)
			if ex, ok := r.subject.(harness.ExplicitShareSubject); ok && sc.acknowledgesExplicitly(cs.Name) {
				m.s, err = ex.NewExplicitShare(cfg)
			} else {
				m.s, err = ss.NewShare(cfg)
			}
			if err == nil {
				m.s.SetAcknowledgementCommitCallback(m.noteAck)
			}
		} else {
			m.c, err = r.subject.New(cs.regularConfig(bootstrap, clientID, m.group))
		}
		switch {
		case errors.Is(err, errors.ErrUnsupported):
			r.na = fmt.Sprintf("subject %s cannot build consumer %s: %v", r.subject.Name(), cs.Name, err)
			return nil
		case err != nil:
			m.rejected = err
			m.c, m.s = nil, nil
		}
	}
	return nil
}

// closeAll closes every live consumer a close step did not close. Each
// Close gets DefaultStepTimeout, but no more than CloseGrace past the run's
// deadline, so a run ends within its deadline plus CloseGrace per consumer.
func (r *run) closeAll() {
	for _, m := range r.order {
		if !m.live() || m.wasClosed() {
			continue
		}
		end := time.Now().Add(DefaultStepTimeout)
		if !r.deadline.IsZero() && r.deadline.Add(CloseGrace).Before(end) {
			end = r.deadline.Add(CloseGrace)
		}
		ctx, cancel := context.WithDeadline(context.Background(), end)
		_ = m.close(ctx)
		cancel()
	}
}

func (r *run) healAll() {
	r.mu.Lock()
	fs := slices.Collect(maps.Values(r.faults))
	r.mu.Unlock()
	for _, f := range fs {
		f.Heal()
	}
}

func (r *run) diagnose() string {
	var b strings.Builder
	for _, m := range r.order {
		if !m.live() {
			continue
		}
		if len(r.order) > 1 {
			fmt.Fprintf(&b, "consumer %s:\n", m.spec.Name)
		}
		b.WriteString(harness.Diagnose(m.handle()))
		b.WriteString("\n")
	}
	return strings.TrimSpace(b.String())
}

// captureGroups reads the broker's view of every group the expectations ask
// about, right after the timeline (before the remaining consumers close).
func (r *run) captureGroups(ctx context.Context) {
	for _, ref := range r.sc.groupRefs() {
		g := r.groupID(ref)
		gctx, cancel := context.WithTimeout(ctx, DefaultStepTimeout)
		info, err := r.cl.GroupInfo(gctx, g)
		cancel()
		r.mu.Lock()
		r.groupStates[g] = groupState{info, err}
		r.mu.Unlock()
	}
}

// fail records a failure of key.
func (r *run) fail(key, format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.out.Failures = append(r.out.Failures, fmt.Sprintf(format, args...))
	r.out.failKey(key)
}

// figure adds a figure.
func (r *run) figure(f Figure) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.out.Figures = append(r.out.Figures, f)
}

// member is the member a step or expectation names ("" the first).
func (r *run) member(name string) *member {
	if name == "" {
		return r.order[0]
	}
	return r.members[name]
}

// setNA marks the run not applicable (the first reason wins).
func (r *run) setNA(why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.na == "" {
		r.na = why
	}
}
