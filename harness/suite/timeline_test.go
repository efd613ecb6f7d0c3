package suite

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/measure"
	"github.com/kreactor/kreactor/harness/subjects"
	"github.com/kreactor/kreactor/harness/subjects/ours"
	"github.com/kreactor/kreactor/harness/targets"
	"github.com/kreactor/kreactor/reactor"
	"github.com/kreactor/kreactor/reports"
)

// fakeCluster implements Cluster (nil methods panic) plus the abilities a test asks for.
type fakeCluster struct{ harness.Cluster }
type fakeLT struct {
	fakeCluster
	harness.LogTrimmer
}
type fakeTC struct {
	fakeCluster
	harness.TopicCreator
}
type fakeLTTC struct {
	fakeCluster
	harness.LogTrimmer
	harness.TopicCreator
}

func TestRecordedClusterKeepsAbilities(t *testing.T) {
	// Every interface declared in the core's abilities.go is an ability the wrapper must keep.
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "../abilities.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok {
			if _, ok := ts.Type.(*ast.InterfaceType); ok {
				declared = append(declared, ts.Name.Name)
			}
		}
		return true
	})
	var kept []string
	for _, a := range clusterAbilities {
		kept = append(kept, reflect.TypeOf(a).Elem().Name())
	}
	slices.Sort(declared)
	slices.Sort(kept)
	if !slices.Equal(declared, kept) {
		t.Fatalf("abilities.go declares %v, the recording wrapper keeps %v: add the new ability to clusterAbilities and wrapCluster", declared, kept)
	}
	rec := &recording{start: time.Now()}
	for _, inner := range []harness.Cluster{fakeCluster{}, fakeLT{}, fakeTC{}, fakeLTTC{}} {
		w := wrapCluster(inner, rec)
		for _, a := range clusterAbilities {
			it := reflect.TypeOf(a).Elem()
			if reflect.TypeOf(inner).Implements(it) != reflect.TypeOf(w).Implements(it) {
				t.Errorf("%T wrapped as %T: implements %s %v, want %v", inner, w, it.Name(), reflect.TypeOf(w).Implements(it), reflect.TypeOf(inner).Implements(it))
			}
		}
	}
}

func TestRecordedSubjectKeepsShare(t *testing.T) {
	t.Setenv(subjects.Env, "")
	t.Setenv(targets.Env, "")
	_, s := Selected()
	tg := Recorded(namedTarget{})
	if _, ok := s.(harness.ShareSubject); !ok || s.Name() != "reactor" || tg.Name() != "named" {
		t.Fatalf("Selected subject = %T, Recorded = %T: want recorded wrappers keeping ShareSubject", s, tg)
	}
	if RecordedSubject(s) != s || Recorded(tg) != tg {
		t.Error("wrapping twice should be a no-op")
	}
	// Outside a spec nothing is recorded: consumers come back unwrapped.
	cfg := consumer.DefaultConfig()
	cfg.BootstrapServers = []string{"127.0.0.1:1"}
	c, err := s.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if _, wrapped := c.(harness.UnwrapConsumer); wrapped {
		t.Error("a consumer built outside a spec was wrapped")
	}
}

func TestSeriesBuckets(t *testing.T) {
	start := time.Now()
	rec := &recording{start: start}
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	rec.requests = []harness.Request{
		{Key: 10, ClientID: "c", At: at(50)},   // FindCoordinator, bucket 0
		{Key: 10, ClientID: "c", At: at(150)},  // bucket 1
		{Key: 10, ClientID: "c", At: at(160)},  // bucket 1
		{Key: 1, ClientID: "other", At: at(5)}, // another client: not counted
		{Key: 0, ClientID: harness.ProducerClientID, At: at(5)},
	}
	tr := &consumerTrack{client: "c", kind: "consumer", cpuOK: true, cpuScope: "process", calls: map[string]*reservoir{}}
	tr.stats = func() reactor.Stats { return reactor.Stats{} }
	tr.samples = []sample{{at: at(0)}, {at: at(90), steps: 5, cpu: 2 * time.Millisecond}, {at: at(190), steps: 105, cpu: 3 * time.Millisecond}}
	tr.call("poll", 1500*time.Microsecond)
	rec.consumers = []*consumerTrack{tr}
	fr := &faultRecord{kind: "hold", detail: "Fetch", from: at(100)}
	rec.faults = []*faultRecord{fr}
	s := rec.series(at(200))
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if s.Buckets != 2 || s.BucketMS != 100 || len(s.Requests) != 1 || s.Requests[0].Key != "FindCoordinator" || !slices.Equal(s.Requests[0].Counts, []int64{1, 2}) {
		t.Errorf("requests %+v", s)
	}
	c := s.Consumers[0]
	// Interpolated at the 100 ms edge: 5 + 10% of the next 100 steps; CPU likewise.
	if !slices.Equal(c.Steps, []int64{15, 90}) || math.Abs(c.CPUMS[0]-2.1) > 1e-9 || math.Abs(c.CPUMS[1]-0.9) > 1e-9 || c.Calls[0].Count != 1 || c.Calls[0].MaxMS != 1.5 {
		t.Errorf("consumer %+v", c)
	}
	if len(s.Faults) != 1 || s.Faults[0].FromMS != 100 || s.Faults[0].ToMS != -1 {
		t.Errorf("faults %+v", s.Faults)
	}
	// A long spec doubles the bucket width until it fits.
	long := rec.series(start.Add(5 * time.Minute))
	if long.Buckets > reports.MaxBuckets || long.BucketMS != 800 {
		t.Errorf("5 min: %d buckets of %d ms", long.Buckets, long.BucketMS)
	}
}

func TestReservoir(t *testing.T) {
	var v reservoir
	for i := 1; i <= 10*reports.MaxDurationSamples; i++ {
		v.add(float64(i))
	}
	if v.count != int64(10*reports.MaxDurationSamples) || v.min != 1 || v.max != float64(10*reports.MaxDurationSamples) || len(v.samples) != reports.MaxDurationSamples {
		t.Fatalf("reservoir count %d min %v max %v samples %d", v.count, v.min, v.max, len(v.samples))
	}
}

func TestProcessCPU(t *testing.T) {
	a, err := measure.ProcessCPU()
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(50 * time.Millisecond); time.Now().Before(deadline); {
	}
	b, _ := measure.ProcessCPU()
	if b <= a {
		t.Errorf("CPU did not advance over 50 ms of spinning: %v -> %v", a, b)
	}
}

func TestDiffHash(t *testing.T) {
	if DiffHash([]byte("a"), []byte("b")) != DiffHash([]byte("a"), []byte("b")) || len(DiffHash(nil, nil)) != 12 {
		t.Error("DiffHash is not a stable 12-digit hash")
	}
}

// namedTarget is a Target that only has a name (Start is never called).
type namedTarget struct{ harness.Target }

func (namedTarget) Name() string { return "named" }

// TestProbesThroughRecordedWrappers: the suites take their subject wrapped
// (Selected), so every probe lookup must see through the wrappers,
// or probe specs would skip as n/a on our own subjects.
func TestProbesThroughRecordedWrappers(t *testing.T) {
	s := RecordedSubject(ours.Reactor{})
	if _, ok := unwrapSubject(s).(ours.EngineSubject); !ok {
		t.Fatalf("EngineOf(%T) would skip: the recorded wrapper hides the engine", s)
	}
	cfg := consumer.DefaultShareConfig()
	cfg.BootstrapServers, cfg.GroupID, cfg.ClientID = []string{"127.0.0.1:1"}, "g", "c"
	sc, err := ours.Reactor{}.NewShare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close(context.Background())
	wrapped := &recordedShareConsumer{ShareConsumer: sc}
	if _, ok := harness.ShareProbeOf(wrapped); !ok {
		t.Fatal("ShareProbeOf does not see through the recorded share consumer")
	}
	if d := harness.Diagnose(wrapped); strings.Contains(d, harness.NotApplicableText) {
		t.Fatalf("Diagnose of a wrapped share consumer: %s", d)
	}
}
