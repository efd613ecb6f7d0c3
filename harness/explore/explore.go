package explore

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/kreactor/kreactor/harness/sim"
)

// Options configures an exploration.
type Options struct {
	Subject   string
	FirstSeed uint64 // schedule seeds FirstSeed, FirstSeed+1, ...
	Seeds     int    // how many schedules at most
	// Budget bounds the whole exploration's wall time (shrinking
	// included); 0 means no bound.
	Budget time.Duration
	// Out is where findings are written (schedule JSON and scenario
	// file); "" writes nothing.
	Out string
	Gen GenOptions
	// ShrinkTime bounds each shrink (rapid's -rapid.shrinktime); 0 means
	// DefaultShrinkTime. Negative: no shrinking.
	ShrinkTime time.Duration
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

// Finding is one anomaly kind found on a seed, shrunk.
type Finding struct {
	Seed       uint64
	Anomaly    Anomaly  // as first found, on the original schedule
	Original   Schedule // Gen(...).Example(Seed)
	Shrunk     Schedule // the smallest schedule that still shows the anomaly
	ShrunkTo   Anomaly  // the anomaly on the shrunk schedule
	ShrinkRuns int      // runs the shrink took
	Files      []string // written files
}

// Summary is what an exploration did.
type Summary struct {
	Subject   string
	Schedules int           // schedules run (shrinking runs aside)
	RunWall   time.Duration // wall time spent running schedules (shrinking aside)
	Wall      time.Duration // total wall time
	// Anomalies counts schedules showing each anomaly name.
	Anomalies map[string]int
	// FirstAt is, per anomaly name, the 1-based index of the first
	// schedule that showed it.
	FirstAt  map[string]int
	Findings []Finding
	// RunErrors counts schedules the harness could not run.
	RunErrors int
}

// PerMinute is schedules per minute of running time.
func (s Summary) PerMinute() float64 {
	if s.RunWall <= 0 {
		return 0
	}
	return float64(s.Schedules) / s.RunWall.Minutes()
}

// Explore runs schedules seed by seed on o.Subject, checks each, and
// shrinks the first schedule showing each anomaly name (one shrink per
// name), writing the findings to o.Out. t is the test the simulations run
// in (synctest needs it); Explore does not fail it for anomalies: they are
// the result.
func Explore(t *testing.T, o Options) (Summary, error) {
	start := time.Now()
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	sum := Summary{Subject: o.Subject, Anomalies: map[string]int{}, FirstAt: map[string]int{}}
	wall := WallFor(o.Subject)
	g := Gen(o.Gen)
	for i := range o.Seeds {
		if o.Budget > 0 && time.Since(start) > o.Budget {
			logf("budget %s spent after %d schedules", o.Budget, i)
			break
		}
		seed := o.FirstSeed + uint64(i)
		s := g.Example(int(seed))
		w := time.Now()
		tr, err := Run(t, s, RunOptions{Subject: o.Subject, Wall: wall, Seed: seed, OnFrozen: frozenWriter(o, seed, s), StopOnSpin: true})
		sum.RunWall += time.Since(w)
		sum.Schedules++
		if tr == nil || tr.History == nil {
			sum.RunErrors++
			logf("seed %d: harness error: %v", seed, err)
			continue
		}
		an := Check(tr)
		seen := map[string]bool{}
		for _, a := range an {
			if seen[a.Name] {
				continue
			}
			seen[a.Name] = true
			sum.Anomalies[a.Name]++
			if _, ok := sum.FirstAt[a.Name]; ok {
				continue
			}
			sum.FirstAt[a.Name] = i + 1
			logf("seed %d (schedule %d, %s): %s", seed, i+1, s, a)
			f := Finding{Seed: seed, Anomaly: a, Original: s, Shrunk: s, ShrunkTo: a}
			if o.ShrinkTime >= 0 {
				f = shrink(t, o, f, wall)
				logf("seed %d: %s shrunk from size %d to %d in %d runs: %s", seed, a.Name, s.Size(), f.Shrunk.Size(), f.ShrinkRuns, f.ShrunkTo)
			}
			if o.Out != "" {
				files, err := writeFinding(o.Out, o.Subject, f)
				if err != nil {
					return sum, err
				}
				f.Files = files
			}
			sum.Findings = append(sum.Findings, f)
		}
	}
	sum.Wall = time.Since(start)
	return sum, nil
}

// rapidFlags serializes setting rapid's flags (process-wide).
var rapidFlags sync.Mutex

// shrink minimizes f.Original while it still shows f.Anomaly's name, with
// rapid's shrinker started from the same seed (its first test case is
// Gen().Example(seed)). A schedule that does not reproduce (scheduling in
// the bubble differs) ends the shrink; the smallest schedule that showed
// the anomaly is kept either way.
func shrink(t *testing.T, o Options, f Finding, wall bool) Finding {
	tries := ShrinkTries
	if wall {
		tries = 1 // seconds per run on the wall clock
	}
	began := time.Now()
	shows := func(s Schedule) bool {
		for range tries {
			tr, _ := Run(t, s, RunOptions{Subject: o.Subject, Wall: wall, Seed: f.Seed, StopOnSpin: true})
			if tr == nil || tr.History == nil {
				return false
			}
			for _, a := range Check(tr) {
				if a.Name == f.Anomaly.Name {
					return true
				}
			}
		}
		return false
	}
	out := shrinkWith(o, f, shows)
	// rapid shrinks the bit stream the schedule was drawn from: deleting
	// one action shifts every later draw, so items that do not matter can
	// stay. One-item deletions on the value finish the job (bounded by a
	// second shrink time).
	var runs int
	out.Shrunk, runs = deleteItems(out.Shrunk, func(s Schedule) bool {
		return time.Since(began) < 2*shrinkBudget(o) && shows(s)
	})
	out.ShrinkRuns += runs
	if out.Shrunk.Size() < f.Original.Size() || out.Shrunk.Length < f.Original.Length {
		// The anomaly as the smallest schedule showed it: run it once more.
		out.ShrunkTo = f.ShrunkTo
		if tr, _ := Run(t, out.Shrunk, RunOptions{Subject: o.Subject, Wall: wall, Seed: f.Seed, StopOnSpin: true}); tr != nil && tr.History != nil {
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
		_, _ = writeFinding(o.Out, o.Subject, Finding{Seed: seed, Anomaly: a, Original: s, Shrunk: s, ShrunkTo: a})
	}
}

// writeFinding writes f as DIR/<subject>-<anomaly>-seed<N>.json (the
// shrunk schedule, replayable with -explore.replay) and .yaml (a scenario
// file), and returns their paths.
func writeFinding(dir, subject string, f Finding) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	base := filepath.Join(dir, fmt.Sprintf("%s-%s-seed%d", subject, f.Anomaly.Name, f.Seed))
	rep := Report{Seed: f.Seed, Subject: subject, Anomaly: f.ShrunkTo.String(), OriginalSize: f.Original.Size(), Schedule: f.Shrunk}
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
