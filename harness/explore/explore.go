package explore

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/sim"
	"github.com/kreactor/kreactor/harness/subjects"
	"github.com/kreactor/kreactor/reports"
)

// Options configures an exploration.
type Options struct {
	Subject   string
	FirstSeed uint64 // schedule seeds FirstSeed, FirstSeed+1, ...
	Seeds     int    // how many schedules at most
	// Budget bounds the time spent running schedules (no schedule starts
	// after it); shrinking and the replays of findings come after it. 0
	// means no bound.
	Budget time.Duration
	// Out is where findings are written (schedule JSON and scenario
	// file); "" writes nothing.
	Out string
	Gen GenOptions
	// ShrinkTime bounds each shrink (rapid's -rapid.shrinktime); 0 means
	// DefaultShrinkTime. Negative: no shrinking.
	ShrinkTime time.Duration
	// Parallel is how many schedules run at once on the wall clock
	// (process subjects, the baseline); 0 means runtime.NumCPU(). Bubble
	// runs are one at a time (synctest with GOMAXPROCS 1 and a
	// process-wide crypto/rand seed).
	Parallel int
	// Replays is how many times a finding's shrunk schedule is run again
	// for its reproduction rate; 0 means DefaultReplays, negative none.
	Replays int
	// Logf, if set, gets progress lines.
	Logf func(format string, args ...any)
}

// DefaultShrinkTime bounds one shrink.
const DefaultShrinkTime = 60 * time.Second

// ShrinkTries is how many times a candidate schedule is run in a bubble
// before the shrinker is told it does not show the anomaly: scheduling
// inside a bubble is not fully determined by the seed (the package sim's
// figures), and rapid gives up on a case that fails once and passes the
// next time.
const ShrinkTries = 3

// On the wall clock a candidate is run until its reproduction rate is
// clear (Wilson's 95% interval, reports.Wilson): kept once the interval's
// low end is above ShrinkRateFloor, dropped once its high end is below it
// or after ShrinkMaxReplays runs without the low end clearing it.
const (
	ShrinkRateFloor  = 0.1
	ShrinkMaxReplays = 10
)

// DefaultReplays is how many times a finding's shrunk schedule is replayed
// for the rate the findings page shows.
const DefaultReplays = 10

// Finding is one anomaly kind found on a seed, shrunk.
type Finding struct {
	Seed       uint64
	Anomaly    Anomaly  // as first found, on the original schedule
	Original   Schedule // Gen(...).Example(Seed)
	Shrunk     Schedule // the smallest schedule that still shows the anomaly
	ShrunkTo   Anomaly  // the anomaly on the shrunk schedule
	ShrinkRuns int      // runs the shrink took
	// Rate is how often the shrunk schedule showed the anomaly when run
	// again (Options.Replays runs).
	Rate  Rate
	Files []string // written files
}

// Rate is a reproduction rate over replays: Shown of Runs, with its 95%
// Wilson interval.
type Rate struct {
	Shown int     `json:"shown"`
	Runs  int     `json:"runs"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
}

func newRate(k, n int) Rate {
	lo, hi := reports.Wilson(k, n)
	return Rate{Shown: k, Runs: n, Low: lo, High: hi}
}

func (r Rate) String() string {
	if r.Runs == 0 {
		return "not replayed"
	}
	return fmt.Sprintf("%d/%d (95%% Wilson %.2f-%.2f)", r.Shown, r.Runs, r.Low, r.High)
}

// Summary is what an exploration did.
type Summary struct {
	Subject string
	// Release is the subject's version (kafka-clients, franz-go), when it
	// reports one.
	Release   string
	Budget    time.Duration // Options.Budget
	Parallel  int           // schedules run at once
	Schedules int           // schedules run (shrinking runs aside)
	RunWall   time.Duration // wall time of the running phase (shrinking aside)
	Wall      time.Duration // total wall time
	// Anomalies counts schedules showing each anomaly name.
	Anomalies map[string]int
	// FirstAt is, per anomaly name, the 1-based index of the first
	// schedule that showed it.
	FirstAt  map[string]int
	Findings []Finding
	// RunErrors counts schedules the harness could not run.
	RunErrors int
	// NotChecked names the detectors this exploration could not apply
	// (goroutine-leak with schedules in parallel or a process subject).
	NotChecked []string
}

// PerMinute is schedules per minute of running time.
func (s Summary) PerMinute() float64 {
	if s.RunWall <= 0 {
		return 0
	}
	return float64(s.Schedules) / s.RunWall.Minutes()
}

// AnomalyCount is how many schedules showed any anomaly (by name, each
// schedule once per name).
func (s Summary) AnomalyCount() int {
	n := 0
	for _, c := range s.Anomalies {
		n += c
	}
	return n
}

// parallelFor is how many schedules o runs at once.
func parallelFor(o Options) int {
	if !WallFor(o.Subject) {
		return 1
	}
	if o.Parallel > 0 {
		return o.Parallel
	}
	return runtime.NumCPU()
}

// outcome is one schedule's run, as the running phase hands it on.
type outcome struct {
	i    int
	seed uint64
	s    Schedule
	tr   *Trace
	err  error
}

// Explore runs schedules seed by seed on o.Subject (Parallel at a time on
// the wall clock), checks each, and shrinks the first schedule showing
// each anomaly name (one shrink per name), writing the findings to o.Out.
// t is the test the simulations run in (synctest needs it); Explore does
// not fail it for anomalies: they are the result.
func Explore(t *testing.T, o Options) (Summary, error) {
	e := newExplorer(t, o)
	if e.par == 1 {
		return e.sequential()
	}
	return e.parallel()
}

// explorer is one Explore call: the options, the generator, the summary
// being built and the first findings not yet shrunk and written. Only the
// goroutine running Explore touches it.
type explorer struct {
	t       *testing.T
	o       Options
	start   time.Time
	logf    func(string, ...any)
	par     int
	wall    bool
	noLeaks bool
	g       *rapid.Generator[Schedule]
	sum     Summary
	firsts  []Finding
}

func newExplorer(t *testing.T, o Options) *explorer {
	e := &explorer{t: t, o: o, start: time.Now(), logf: o.Logf, par: parallelFor(o), wall: WallFor(o.Subject)}
	if e.logf == nil {
		e.logf = func(string, ...any) {}
	}
	e.sum = Summary{Subject: o.Subject, Release: Release(o.Subject), Budget: o.Budget, Parallel: e.par, Anomalies: map[string]int{}, FirstAt: map[string]int{}}
	e.noLeaks = e.par > 1 || IsProcess(o.Subject)
	if e.noLeaks {
		e.sum.NotChecked = append(e.sum.NotChecked, AnomalyLeak)
	}
	e.g = Gen(o.Gen)
	return e
}

// overBudget reports, once the budget is spent, that no schedule after the
// i-th starts.
func (e *explorer) overBudget(i int) bool {
	if e.o.Budget > 0 && time.Since(e.start) > e.o.Budget {
		e.logf("budget %s spent after %d schedules", e.o.Budget, i)
		return true
	}
	return false
}

// sequential runs the schedules one at a time on the test's goroutine,
// each first finding shrunk and written at once: a later schedule that
// freezes its bubble ends the process, and what was found before it is
// kept.
func (e *explorer) sequential() (Summary, error) {
	for i := range e.o.Seeds {
		if e.overBudget(i) {
			break
		}
		w := time.Now()
		e.take(e.runOne(i))
		e.sum.RunWall += time.Since(w)
		if err := e.finishAll(); err != nil {
			return e.sum, err
		}
	}
	e.sum.Wall = time.Since(e.start)
	return e.sum, nil
}

// parallel runs e.par schedules at once (wall-clock subjects) and takes
// their outcomes in seed order (a reorder buffer), so the first schedule
// showing each anomaly is the same at any parallelism; the findings are
// shrunk after every schedule ran.
func (e *explorer) parallel() (Summary, error) {
	results := make(chan outcome, e.par)
	var wg sync.WaitGroup
	next := make(chan int)
	for range e.par {
		wg.Go(func() {
			for i := range next {
				results <- e.runOne(i)
			}
		})
	}
	go func() {
		defer close(next)
		for i := range e.o.Seeds {
			if e.overBudget(i) {
				return
			}
			next <- i
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	pending := map[int]outcome{}
	want := 0
	for r := range results {
		pending[r.i] = r
		for {
			x, ok := pending[want]
			if !ok {
				break
			}
			delete(pending, want)
			want++
			e.take(x)
		}
	}
	for _, i := range slices.Sorted(maps.Keys(pending)) { // after a budget stop, gaps cannot fill
		e.take(pending[i])
	}
	e.sum.RunWall = time.Since(e.start)
	if err := e.finishAll(); err != nil {
		return e.sum, err
	}
	e.sum.Wall = time.Since(e.start)
	return e.sum, nil
}

// runOne runs the i-th schedule.
func (e *explorer) runOne(i int) outcome {
	seed := e.o.FirstSeed + uint64(i)
	s := e.g.Example(int(seed))
	tr, err := Run(e.t, s, RunOptions{Subject: e.o.Subject, Wall: e.wall, Seed: seed, OnFrozen: frozenWriter(e.o, seed, s), StopOnSpin: true, NoLeakCheck: e.noLeaks})
	return outcome{i, seed, s, tr, err}
}

// take counts one schedule's outcome in the summary and keeps the first
// schedule showing each anomaly as a finding.
func (e *explorer) take(r outcome) {
	e.sum.Schedules++
	if r.tr == nil || r.tr.History == nil {
		e.sum.RunErrors++
		e.logf("seed %d: harness error: %v", r.seed, r.err)
		return
	}
	for _, op := range r.tr.Ops {
		if op.Kind == OpOther && op.What == "new" && op.Err != "" {
			// A member that could not be built (a driver that did not
			// start): the schedule did not run as drawn.
			e.sum.RunErrors++
			e.logf("seed %d: harness error: member %s not built: %s", r.seed, op.Member, op.Err)
			break
		}
	}
	seen := map[string]bool{}
	for _, a := range Check(r.tr) {
		if seen[a.Name] {
			continue
		}
		seen[a.Name] = true
		e.sum.Anomalies[a.Name]++
		if _, ok := e.sum.FirstAt[a.Name]; ok {
			continue
		}
		e.sum.FirstAt[a.Name] = r.i + 1
		e.logf("seed %d (schedule %d, %s): %s", r.seed, r.i+1, r.s, a)
		e.firsts = append(e.firsts, Finding{Seed: r.seed, Anomaly: a, Original: r.s, Shrunk: r.s, ShrunkTo: a})
	}
	if e.sum.Schedules%100 == 0 {
		e.logf("%d schedules in %s, %d with anomalies", e.sum.Schedules, time.Since(e.start).Round(time.Second), e.sum.AnomalyCount())
	}
}

// finishAll finishes every first finding taken so far.
func (e *explorer) finishAll() error {
	for _, f := range e.firsts {
		if err := e.finish(f); err != nil {
			return err
		}
	}
	e.firsts = nil
	return nil
}

// finish shrinks a first finding, replays it for its rate and writes it.
func (e *explorer) finish(f Finding) error {
	if e.o.ShrinkTime >= 0 {
		f = shrink(e.t, e.o, f, e.wall, e.par)
		e.logf("seed %d: %s shrunk from size %d to %d in %d runs: %s", f.Seed, f.Anomaly.Name, f.Original.Size(), f.Shrunk.Size(), f.ShrinkRuns, f.ShrunkTo)
	}
	if e.o.Replays >= 0 {
		n := e.o.Replays
		if n == 0 {
			n = DefaultReplays
		}
		f.Rate = replayRate(e.t, e.o.Subject, f.Shrunk, f.Seed, f.Anomaly.Name, n, e.par)
		e.logf("seed %d: %s shown by the shrunk schedule in %s", f.Seed, f.Anomaly.Name, f.Rate)
	}
	if e.o.Out != "" {
		files, err := writeFinding(e.o.Out, e.o.Subject, e.sum.Release, f)
		if err != nil {
			return err
		}
		f.Files = files
	}
	e.sum.Findings = append(e.sum.Findings, f)
	return nil
}

// Release is subject's version as its Versioned ability reports it
// (kafka-clients' release for java, franz-go's for kgo), or "".
func Release(subject string) string {
	subj, ok := subjects.Lookup(subject)
	if !ok {
		return ""
	}
	v, ok := subj.(harness.Versioned)
	if !ok {
		return ""
	}
	vs := v.Versions()
	for _, k := range []string{harness.VersionKafkaClients, "kgo"} {
		if vs[k] != "" {
			return k + " " + vs[k]
		}
	}
	return ""
}

// shows runs s on subject n times at most (par at a time) and counts the
// runs whose check names the anomaly; with stopWhenClear it stops as soon as
// the Wilson interval of the count so far is clear of ShrinkRateFloor.
func shows(t *testing.T, subject string, s Schedule, seed uint64, anomaly string, n, par int, stopWhenClear bool) (k, runs int) {
	wall := WallFor(subject)
	for runs < n {
		batch := min(par, n-runs)
		hits := make([]bool, batch)
		var wg sync.WaitGroup
		for j := range batch {
			run := func() {
				tr, _ := Run(t, s, RunOptions{Subject: subject, Wall: wall, Seed: seed, StopOnSpin: true, NoLeakCheck: par > 1 || IsProcess(subject)})
				if tr == nil || tr.History == nil {
					return
				}
				hits[j] = slices.ContainsFunc(Check(tr), func(a Anomaly) bool { return a.Name == anomaly })
			}
			if batch == 1 {
				run() // a bubble run stays on the test's goroutine
				continue
			}
			wg.Go(run)
		}
		wg.Wait()
		runs += batch
		for _, h := range hits {
			if h {
				k++
			}
		}
		if stopWhenClear {
			lo, hi := reports.Wilson(k, runs)
			if lo > ShrinkRateFloor || hi < ShrinkRateFloor {
				return k, runs
			}
		}
	}
	return k, runs
}

// replayRate runs s n times and returns how often it showed anomaly.
func replayRate(t *testing.T, subject string, s Schedule, seed uint64, anomaly string, n, par int) Rate {
	k, runs := shows(t, subject, s, seed, anomaly, n, par, false)
	return newRate(k, runs)
}

// rapidFlags serializes setting rapid's flags (process-wide).
var rapidFlags sync.Mutex

// shrink minimizes f.Original while it still shows f.Anomaly's name, with
// rapid's shrinker started from the same seed (its first test case is
// Gen().Example(seed)). A schedule that does not reproduce (scheduling in
// the bubble differs) ends the shrink; the smallest schedule that showed
// the anomaly is kept either way.
func shrink(t *testing.T, o Options, f Finding, wall bool, par int) Finding {
	began := time.Now()
	reproduces := func(s Schedule) bool {
		if !wall {
			k, _ := shows(t, o.Subject, s, f.Seed, f.Anomaly.Name, ShrinkTries, 1, false)
			return k > 0 // any run of a bubble: rapid gives up on a flaky case
		}
		// The wall clock: run until the rate is clear of the floor.
		k, n := shows(t, o.Subject, s, f.Seed, f.Anomaly.Name, ShrinkMaxReplays, par, true)
		lo, _ := reports.Wilson(k, n)
		return lo > ShrinkRateFloor
	}
	out := shrinkWith(o, f, reproduces)
	// rapid shrinks the bit stream the schedule was drawn from: deleting
	// one action shifts every later draw, so items that do not matter can
	// stay. One-item deletions on the value finish the job (bounded by a
	// second shrink time).
	var runs int
	out.Shrunk, runs = deleteItems(out.Shrunk, func(s Schedule) bool {
		return time.Since(began) < 2*shrinkBudget(o) && reproduces(s)
	})
	out.ShrinkRuns += runs
	if out.Shrunk.Size() < f.Original.Size() || out.Shrunk.Length < f.Original.Length {
		// The anomaly as the smallest schedule showed it: run it once more.
		out.ShrunkTo = f.ShrunkTo
		if tr, _ := Run(t, out.Shrunk, RunOptions{Subject: o.Subject, Wall: wall, Seed: f.Seed, StopOnSpin: true, NoLeakCheck: IsProcess(o.Subject)}); tr != nil && tr.History != nil {
			for _, a := range Check(tr) {
				if a.Name == f.Anomaly.Name {
					out.ShrunkTo = a
					break
				}
			}
		}
	}
	return out
}

// shrinkWith minimizes f.Original while shows holds, with rapid's shrinker
// started from f.Seed; it keeps the smallest schedule shows held for.
func shrinkWith(o Options, f Finding, shows func(Schedule) bool) (out Finding) {
	out = f
	shrinkTime := o.ShrinkTime
	if shrinkTime == 0 {
		shrinkTime = DefaultShrinkTime
	}
	// One check: the seed's own schedule, then shrinking. rapid divides
	// rapid.checks by 5 under -short, so 5 is what gives it one there.
	checks := "1"
	if testing.Short() {
		checks = "5"
	}
	rapidFlags.Lock()
	defer rapidFlags.Unlock()
	for name, v := range map[string]string{
		"rapid.seed": strconv.FormatUint(f.Seed, 10), "rapid.checks": checks, "rapid.nofailfile": "true",
		"rapid.shrinktime": shrinkTime.String(),
	} {
		old := flag.Lookup(name).Value.String()
		if err := flag.Set(name, v); err != nil {
			panic(fmt.Sprintf("explore: set %s: %v", name, err)) // rapid's own flags: cannot fail
		}
		defer func() { _ = flag.Set(name, old) }()
	}
	g := Gen(o.Gen)
	prop := func(rt *rapid.T) {
		s := g.Draw(rt, "schedule")
		out.ShrinkRuns++
		if !shows(s) {
			return
		}
		if s.Size() < out.Shrunk.Size() || (s.Size() == out.Shrunk.Size() && s.Length < out.Shrunk.Length) {
			out.Shrunk = s
		}
		rt.Fatalf("anomaly %s", f.Anomaly.Name) // one message and call site: rapid compares them
	}
	defer func() {
		if r := recover(); r != nil { // rapid panics when a shrunk case fails differently twice (scheduling)
			out.ShrinkRuns = max(out.ShrinkRuns, 1)
		}
	}()
	rapid.Check(&quietTB{name: "explore-" + f.Anomaly.Name}, prop)
	return out
}

// quietTB is the rapid.TB shrinking runs under: it keeps rapid's verdict
// to itself (the finding is the result, not a test failure).
type quietTB struct {
	name   string
	failed bool
}

func (q *quietTB) Helper()                  {}
func (q *quietTB) Name() string             { return q.name }
func (q *quietTB) Logf(string, ...any)      {}
func (q *quietTB) Log(...any)               {}
func (q *quietTB) Skipf(f string, a ...any) { panic(fmt.Sprintf(f, a...)) }
func (q *quietTB) Skip(a ...any)            { panic(fmt.Sprint(a...)) }
func (q *quietTB) SkipNow()                 { panic("skip") }
func (q *quietTB) Errorf(string, ...any)    { q.failed = true }
func (q *quietTB) Error(...any)             { q.failed = true }
func (q *quietTB) Fatalf(string, ...any)    { q.failed = true }
func (q *quietTB) Fatal(...any)             { q.failed = true }
func (q *quietTB) FailNow()                 { q.failed = true }
func (q *quietTB) Fail()                    { q.failed = true }
func (q *quietTB) Failed() bool             { return q.failed }

// frozenWriter writes the unshrunk schedule as a spin finding when the
// bubble's clock freezes (the process then panics: a frozen bubble cannot
// be recovered).
func frozenWriter(o Options, seed uint64, s Schedule) func(sim.Frozen) {
	return func(fr sim.Frozen) {
		if o.Out == "" {
			return
		}
		a := Anomaly{Name: AnomalySpin, At: fr.Virtual, Evidence: fmt.Sprintf("the bubble's clock froze at +%s: a goroutine never blocks", fr.Virtual)}
		_, _ = writeFinding(o.Out, o.Subject, Release(o.Subject), Finding{Seed: seed, Anomaly: a, Original: s, Shrunk: s, ShrunkTo: a})
	}
}

// writeFinding writes f as DIR/<subject>-<anomaly>-seed<N>.json (the
// shrunk schedule, replayable with -explore.replay) and .yaml (a scenario
// file), and returns their paths.
func writeFinding(dir, subject, release string, f Finding) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	base := filepath.Join(dir, fmt.Sprintf("%s-%s-seed%d", subject, f.Anomaly.Name, f.Seed))
	rep := Report{Seed: f.Seed, Subject: subject, Release: release, Anomaly: f.ShrunkTo.String(), OriginalSize: f.Original.Size(), Schedule: f.Shrunk}
	if f.Rate.Runs > 0 {
		rep.Rate = &f.Rate
	}
	if err := os.WriteFile(base+".json", rep.JSON(), 0o644); err != nil {
		return nil, err
	}
	files := []string{base + ".json"}
	if y, err := Scenario(f, subject); err == nil {
		if err := os.WriteFile(base+".yaml", y, 0o644); err != nil {
			return nil, err
		}
		files = append(files, base+".yaml")
	} else if err := os.WriteFile(base+".yaml.txt", []byte(err.Error()+"\n"), 0o644); err != nil {
		return nil, err
	}
	slices.Sort(files)
	return files, nil
}

// shrinkBudget is o's shrink time (DefaultShrinkTime when zero).
func shrinkBudget(o Options) time.Duration {
	if o.ShrinkTime > 0 {
		return o.ShrinkTime
	}
	return DefaultShrinkTime
}

// deleteItems removes one item at a time (a fault, a member, one of a
// member's actions; then the background producer and the records before
// the start) while shows still holds, until no single deletion keeps it;
// it returns the smaller schedule and how many runs it took.
func deleteItems(s Schedule, shows func(Schedule) bool) (Schedule, int) {
	runs := 0
	try := func(c Schedule) bool {
		runs++
		return c.Validate() == nil && shows(c)
	}
	for changed := true; changed; {
		changed = false
		for i := 0; i < len(s.Faults); i++ {
			c := s
			c.Faults = slices.Delete(slices.Clone(s.Faults), i, i+1)
			if try(c) {
				s, changed, i = c, true, i-1
			}
		}
		for i := 0; i < len(s.Members) && len(s.Members) > 1; i++ {
			c := s
			c.Members = slices.Delete(slices.Clone(s.Members), i, i+1)
			if try(c) {
				s, changed, i = c, true, i-1
			}
		}
		for m := range s.Members {
			for i := 0; i < len(s.Members[m].Actions); i++ {
				c := s
				c.Members = slices.Clone(s.Members)
				c.Members[m].Actions = slices.Delete(slices.Clone(s.Members[m].Actions), i, i+1)
				if try(c) {
					s, changed, i = c, true, i-1
				}
			}
		}
		if s.Produce.Batch > 0 {
			c := s
			c.Produce.Batch = 0
			if try(c) {
				s, changed = c, true
			}
		}
		if s.Produce.Initial > 0 {
			c := s
			c.Produce.Initial = 0
			if try(c) {
				s, changed = c, true
			}
		}
	}
	return s, runs
}
