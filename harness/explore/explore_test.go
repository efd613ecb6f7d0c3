package explore

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Flags of TestExplore, the entry `kreactor explore` and `make explore`
// run (a simulation needs a test binary: synctest needs a *testing.T).
var (
	flagSubject = flag.String("explore.subject", "", "TestExplore: the subject (reactor, baseline, kgo, null, java, java-classic); empty skips TestExplore, or with -explore.replay replays on the file's subject")
	flagSeeds   = flag.Int("explore.seeds", 100, "TestExplore: schedules to run")
	flagFirst   = flag.Uint64("explore.first", 1, "TestExplore: the first schedule seed")
	flagBudget  = flag.Duration("explore.budget", 0, "TestExplore: wall-time budget (0: none)")
	flagOut     = flag.String("explore.out", "", "TestExplore: directory for findings (shrunk schedule .json, scenario .yaml)")
	flagShrink  = flag.Duration("explore.shrinktime", DefaultShrinkTime, "TestExplore: time bound of each shrink (negative: no shrinking)")
	flagKinds   = flag.String("explore.groups", "regular,share", "TestExplore: group kinds to draw (regular, share)")
	flagReplay  = flag.String("explore.replay", "", "TestExplore: run this finding (.json) -explore.replays times (at least once) and print its anomalies and rate instead of exploring")
	flagSummary = flag.String("explore.summary", "", "TestExplore: write the summary as JSON to this file")
	flagPar     = flag.Int("explore.parallel", 0, "TestExplore: schedules at once on the wall clock (0: the number of CPUs)")
	flagReplays = flag.Int("explore.replays", DefaultReplays, "TestExplore: replays of each shrunk finding for its rate (negative: none); with -explore.replay, the runs of the file")
)

func TestExplore(t *testing.T) {
	if *flagSubject == "" && *flagReplay == "" {
		t.Skip("set -explore.subject or -explore.replay (kreactor explore does)")
	}
	if *flagSubject != "" {
		if err := CheckSubject(*flagSubject); err != nil {
			t.Fatalf("-explore.subject: %v", err)
		}
	}
	gen, err := ParseGroups(*flagKinds)
	if err != nil {
		t.Fatalf("-explore.groups: %v", err)
	}
	if *flagSeeds < 1 {
		t.Fatalf("-explore.seeds %d: must be >= 1", *flagSeeds)
	}
	if *flagBudget < 0 {
		t.Fatalf("-explore.budget %s: must be >= 0", *flagBudget)
	}
	if *flagReplay != "" {
		replay(t, *flagReplay, *flagSubject, max(*flagReplays, 1), *flagPar)
		return
	}
	sum, err := Explore(t, Options{
		Subject: *flagSubject, FirstSeed: *flagFirst, Seeds: *flagSeeds, Budget: *flagBudget, Out: *flagOut,
		Gen: gen, ShrinkTime: *flagShrink, Parallel: *flagPar, Replays: *flagReplays, Logf: t.Logf,
	})
	if err != nil {
		t.Fatal(err)
	}
	printSummary(t, sum)
	if *flagSummary != "" {
		if err := os.MkdirAll(filepath.Dir(*flagSummary), 0o755); err != nil {
			t.Fatal(err)
		}
		b, _ := json.MarshalIndent(sum, "", "  ")
		if err := os.WriteFile(*flagSummary, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if sum.RunErrors > 0 {
		t.Errorf("%d of %d schedules ended in a harness error (see the log): the exploration is incomplete", sum.RunErrors, sum.Schedules)
	}
	// An anomaly is the exploration's result and a failure of the run, so
	// CI and scripts can gate on the exit status.
	if n := sum.AnomalyCount(); n > 0 {
		t.Errorf("ANOMALIES: %d schedule-anomalies in %d schedules on %s (%d findings; see the summary above)", n, sum.Schedules, sum.Subject, len(sum.Findings))
	}
}

func printSummary(t *testing.T, sum Summary) {
	budget := "none"
	if sum.Budget > 0 {
		budget = sum.Budget.String()
	}
	release := ""
	if sum.Release != "" {
		release = " (" + sum.Release + ")"
	}
	t.Logf("subject %s%s: %d schedules in %s of running, %d at once (%.1f per minute; budget %s), %s in all; harness errors %d",
		sum.Subject, release, sum.Schedules, sum.RunWall.Round(time.Millisecond), sum.Parallel, sum.PerMinute(), budget, sum.Wall.Round(time.Millisecond), sum.RunErrors)
	if len(sum.NotChecked) > 0 {
		t.Logf("  not checked: %v", sum.NotChecked)
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range sum.Anomalies {
			if !yield(n) {
				return
			}
		}
	}) {
		t.Logf("  %-22s in %d schedules, first at schedule %d", name, sum.Anomalies[name], sum.FirstAt[name])
	}
	var sizes []int
	for _, f := range sum.Findings {
		sizes = append(sizes, f.Shrunk.Size())
		t.Logf("  finding seed %d %s: size %d -> %d (%d runs), shown in %s replays %v", f.Seed, f.Anomaly.Name, f.Original.Size(), f.Shrunk.Size(), f.ShrinkRuns, f.Rate, f.Files)
	}
	if len(sizes) > 0 {
		slices.Sort(sizes)
		t.Logf("  median shrunk size %d (of %d findings)", sizes[len(sizes)/2], len(sizes))
	}
}

// readFinding reads the finding (a Report explore wrote) in file.
func readFinding(t *testing.T, file string) Report {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseReport(b)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return r
}

// replay runs a finding's schedule runs times (par at a time on the wall
// clock) on subject ("" the file's), prints what each run shows and the
// rate of the recorded anomaly, and fails t when any run shows an anomaly.
func replay(t *testing.T, file, subject string, runs, par int) {
	r := readFinding(t, file)
	if subject == "" {
		subject = r.Subject
	}
	name, _, _ := strings.Cut(r.Anomaly, " ")
	if *flagOut != "" { // rewrite the finding's files with this version's writers
		a := Anomaly{Name: name, Evidence: r.Anomaly}
		f := Finding{Seed: r.Seed, Anomaly: a, Original: r.Schedule, Shrunk: r.Schedule, ShrunkTo: a}
		if r.Rate != nil {
			f.Rate = *r.Rate
		}
		files, err := writeFinding(*flagOut, r.Subject, r.Release, f)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("written: %v", files)
	}
	if par <= 0 {
		par = parallelFor(Options{Subject: subject})
	}
	if !WallFor(subject) {
		par = 1
	}
	var mu sync.Mutex
	shown, any := 0, 0
	for done := 0; done < runs; {
		batch := min(par, runs-done)
		var wg sync.WaitGroup
		for j := range batch {
			one := func() {
				tr, err := Run(t, r.Schedule, RunOptions{Subject: subject, Wall: WallFor(subject), Seed: r.Seed, NoLeakCheck: par > 1 || IsProcess(subject)})
				mu.Lock()
				defer mu.Unlock()
				if tr == nil || tr.History == nil {
					t.Errorf("%s run %d: harness error: %v", file, done+j+1, err)
					return
				}
				an := Check(tr)
				t.Logf("%s on %s, run %d (recorded: %s): %d anomalies", file, subject, done+j+1, r.Anomaly, len(an))
				hit := false
				for _, a := range an {
					t.Logf("  %s", a)
					hit = hit || a.Name == name
				}
				if hit {
					shown++
				}
				if len(an) > 0 {
					any++
				}
			}
			if batch == 1 {
				one()
				continue
			}
			wg.Go(one)
		}
		wg.Wait()
		done += batch
	}
	t.Logf("RATE: %s shown in %s runs of %s on %s", name, newRate(shown, runs), file, subject)
	if any > 0 {
		t.Errorf("ANOMALIES: %d of %d replays of %s on %s showed an anomaly (%s in %d)", any, runs, file, subject, name, shown)
	}
}

// TestGenSameSeedSameSchedule: a seed draws the same schedule every time,
// and rapid's first test case for that seed (what shrinking starts from)
// is that schedule.
func TestGenSameSeedSameSchedule(t *testing.T) {
	g := Gen(GenOptions{Regular: true, Share: true})
	distinct := map[string]bool{}
	for seed := 1; seed <= 30; seed++ {
		a, b := g.Example(seed), g.Example(seed)
		if string(a.JSON()) != string(b.JSON()) {
			t.Fatalf("seed %d drew two schedules:\n%s\n%s", seed, a.JSON(), b.JSON())
		}
		distinct[string(a.JSON())] = true
		if err := a.Validate(); err != nil {
			t.Fatalf("seed %d: invalid schedule: %v", seed, err)
		}
		back, err := ParseSchedule(a.JSON())
		if err != nil || string(back.JSON()) != string(a.JSON()) {
			t.Fatalf("seed %d: JSON round trip: %v", seed, err)
		}
	}
	if len(distinct) < 25 {
		t.Fatalf("30 seeds drew only %d distinct schedules", len(distinct))
	}
}

// TestShrinkFindsSmallerSchedule: shrinking a schedule that shows an
// anomaly of a predicate (here, a synthetic one: a schedule with a fault
// of kind hold, seen through a detector stub) keeps it and makes it
// smaller; the result still shows it.
func TestShrinkStartsFromSeed(t *testing.T) {
	g := Gen(GenOptions{Regular: true})
	// Find a seed whose schedule has at least 2 members and a fault.
	seed := 0
	for s := 1; s < 500; s++ {
		x := g.Example(s)
		if len(x.Members) >= 2 && len(x.Faults) >= 2 {
			seed = s
			break
		}
	}
	if seed == 0 {
		t.Fatal("no seed below 500 drew 2 members and 2 faults")
	}
	orig := g.Example(seed)
	f := shrinkWith(Options{Gen: GenOptions{Regular: true}, ShrinkTime: 5 * time.Second}, Finding{Seed: uint64(seed), Anomaly: Anomaly{Name: "synthetic"}, Original: orig, Shrunk: orig},
		func(s Schedule) bool { return len(s.Members) >= 2 && len(s.Faults) >= 1 })
	if f.ShrinkRuns < 2 {
		t.Fatalf("shrink ran %d times", f.ShrinkRuns)
	}
	if f.Shrunk.Size() >= orig.Size() || len(f.Shrunk.Members) < 2 || len(f.Shrunk.Faults) < 1 {
		t.Fatalf("shrunk %d -> %d (members %d, faults %d)", orig.Size(), f.Shrunk.Size(), len(f.Shrunk.Members), len(f.Shrunk.Faults))
	}
	if f.Shrunk.Size() != 3 {
		t.Errorf("shrunk to size %d, the minimum is 3 (2 members, 1 fault, no action): %s", f.Shrunk.Size(), f.Shrunk.JSON())
	}
}

// allAnomalies is every anomaly name Check can report.
var allAnomalies = []string{
	AnomalyLost, AnomalyDuplicate, AnomalyNonmonotonic, AnomalySkipped, AnomalyCommitPast, AnomalyCommitAfterLeft,
	AnomalyCallbackTwice, AnomalyCallbackNever, AnomalyClosePast, AnomalyRetryStorm, AnomalySpin, AnomalyLeak,
	AnomalyAckTwice, AnomalyAckLost, AnomalyAckUndelivered, AnomalyPanic, "model-trace",
	AnomalyCrossDuplicate, AnomalyCommitBackward, AnomalyKeptRevoked, AnomalyAckForeign,
}

// TestScenarioRoundTrip: every generated schedule, regular or share, with
// any anomaly, is written as a scenario file that harness/scenario's
// loader (what `kreactor check` and `kreactor run` read) accepts; Format of
// the parsed file parses to the same scenario again. Several members,
// share groups, wakeups and node faults are among them.
func TestScenarioRoundTrip(t *testing.T) {
	g := Gen(GenOptions{Regular: true, Share: true})
	dir := t.TempDir()
	seeds := 200
	if testing.Short() || raceEnabled {
		seeds = 60 // loading is several times slower under -race
	}
	seen := map[string]int{}
	for seed := 1; seed <= seeds; seed++ {
		s := g.Example(seed)
		if len(s.Members) > 1 {
			seen["several members"]++
		}
		if s.Share {
			seen["share"]++
		}
		for _, m := range s.Members {
			for _, a := range m.Actions {
				if a.Kind == ActWakeup {
					seen["wakeup"]++
				}
			}
		}
		for _, f := range s.Faults {
			if f.Kind == FaultDrop || f.Kind == FaultStop || f.Kind == FaultBlackHole || f.Kind == FaultRefuse || f.Kind == FaultCoordinatorMove {
				seen["node fault"]++
			}
		}
		for j := range 2 { // two anomaly names per seed, in turn: every name over many schedules
			name := allAnomalies[(2*seed+j)%len(allAnomalies)]
			f := Finding{Seed: uint64(seed), Anomaly: Anomaly{Name: name, Evidence: "e"}, Original: s, Shrunk: s, ShrunkTo: Anomaly{Name: name, Evidence: "e"}}
			y, err := Scenario(f, "reactor")
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, name, err)
			}
			file := filepath.Join(dir, fmt.Sprintf("s%d-%s.yaml", seed, name))
			if err := os.WriteFile(file, y, 0o644); err != nil {
				t.Fatal(err)
			}
			sc, err := loadScenario(file)
			if err != nil {
				t.Fatalf("seed %d %s: %v\n%s", seed, name, err, y)
			}
			if len(sc.Consumers) != len(s.Members) {
				t.Fatalf("seed %d %s: %d consumers for %d members", seed, name, len(sc.Consumers), len(s.Members))
			}
			if err := formatRoundTrip(sc); err != nil {
				t.Fatalf("seed %d %s: %v\n%s", seed, name, err, y)
			}
		}
	}
	for _, k := range []string{"several members", "share", "wakeup", "node fault"} {
		if seen[k] == 0 {
			t.Errorf("%d seeds drew no schedule with %s", seeds, k)
		}
	}
	t.Logf("%d schedules, two of the %d anomaly names each, written and loaded; %v", seeds, len(allAnomalies), seen)
}

// TestDeleteItems: the one-item deletion pass keeps exactly what the
// predicate needs.
func TestDeleteItems(t *testing.T) {
	s := Gen(GenOptions{Regular: true}).Example(1)
	s.Members = []Member{
		{Name: "c1", Actions: []Action{{Kind: ActPoll}, {Kind: ActCommitAsync}, {Kind: ActPause}}},
		{Name: "c2", Actions: []Action{{Kind: ActClose, At: 5}}},
	}
	s.Faults = []Fault{{Kind: FaultHold, Key: 1}, {Kind: FaultBrokersDown}}
	s.Produce.Batch, s.Produce.Every = 5, 50*time.Millisecond
	needs := func(c Schedule) bool { // a commit-async and a brokers-down fault
		async := false
		for _, m := range c.Members {
			for _, a := range m.Actions {
				async = async || a.Kind == ActCommitAsync
			}
		}
		return async && slices.ContainsFunc(c.Faults, func(f Fault) bool { return f.Kind == FaultBrokersDown })
	}
	got, runs := deleteItems(s, needs)
	if got.Size() != 3 || !needs(got) || got.Produce.Batch != 0 || runs == 0 {
		t.Fatalf("kept size %d (want 3: a member, its commit-async, the fault), batch %d, %d runs: %s", got.Size(), got.Produce.Batch, runs, got.JSON())
	}
}

// TestScenarioNodeFaults: the faults the generator leaves out (they run on
// the wall clock only) still have their scenario form, and a hand-made
// schedule with them and a wakeup loads.
func TestScenarioNodeFaults(t *testing.T) {
	s := Schedule{Brokers: 2, Topics: []Topic{{Name: "t0", Partitions: 2}}, Length: 2 * time.Second,
		Members: []Member{
			{Name: "c1", MaxPollInterval: 5 * time.Second, PollTimeout: 100 * time.Millisecond, Actions: []Action{{At: 500 * time.Millisecond, Kind: ActWakeup}}},
			{Name: "c2", Start: 200 * time.Millisecond, MaxPollInterval: 5 * time.Second, PollTimeout: 50 * time.Millisecond},
		},
		Faults: []Fault{
			{At: 100 * time.Millisecond, For: 300 * time.Millisecond, Kind: FaultBlackHole, Node: 1},
			{At: 600 * time.Millisecond, For: 300 * time.Millisecond, Kind: FaultRefuse, Node: 0},
			{At: 1000 * time.Millisecond, For: 300 * time.Millisecond, Kind: FaultCoordinatorMove},
		}}
	f := Finding{Seed: 1, Anomaly: Anomaly{Name: AnomalySpin}, Original: s, Shrunk: s, ShrunkTo: Anomaly{Name: AnomalySpin}}
	y, err := Scenario(f, "java")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kind: black-hole, node: 1", "kind: refuse, node: 0", "kind: stop-broker, node: coordinator", "wakeup: {consumer: c1, at: 500ms}"} {
		if !strings.Contains(string(y), want) {
			t.Errorf("file lacks %q:\n%s", want, y)
		}
	}
	file := filepath.Join(t.TempDir(), "f.yaml")
	if err := os.WriteFile(file, y, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadScenario(file); err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
	if _, err := Run(t, s, RunOptions{Subject: "reactor"}); err == nil || !strings.Contains(err.Error(), "freeze a bubble") {
		t.Fatalf("a bubble run of a schedule with a black hole: %v, want refused", err)
	}
}
