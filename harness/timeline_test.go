package harness

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/reactor"
	"github.com/kreactor/kreactor/reports"
)

// fakeCluster implements Cluster (nil methods panic) plus the abilities a test asks for.
type fakeCluster struct{ Cluster }
type fakeLT struct {
	fakeCluster
	LogTrimmer
}
type fakeTC struct {
	fakeCluster
	TopicCreator
}
type fakeLTTC struct {
	fakeCluster
	LogTrimmer
	TopicCreator
}

func TestRecordedClusterKeepsAbilities(t *testing.T) {
	// Every interface declared in abilities.go is an ability the wrapper must keep.
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "abilities.go", nil, 0)
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
	for _, inner := range []Cluster{fakeCluster{}, fakeLT{}, fakeTC{}, fakeLTTC{}} {
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
	t.Setenv(EnvTarget, "")
	t.Setenv(EnvSubject, "")
	tg, s := MustSelect()
	if _, ok := s.(ShareSubject); !ok || s.Name() != "reactor" || tg.Name() != "kfake" {
		t.Fatalf("MustSelect = %T %T: want recorded wrappers keeping ShareSubject", tg, s)
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
	if _, wrapped := c.(UnwrapConsumer); wrapped {
		t.Error("a consumer built outside a spec was wrapped")
	}
}

func TestSeriesBuckets(t *testing.T) {
	start := time.Now()
	rec := &recording{start: start}
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	rec.requests = []Request{
		{Key: 10, ClientID: "c", At: at(50)},   // FindCoordinator, bucket 0
		{Key: 10, ClientID: "c", At: at(150)},  // bucket 1
		{Key: 10, ClientID: "c", At: at(160)},  // bucket 1
		{Key: 1, ClientID: "other", At: at(5)}, // another client: not counted
		{Key: 0, ClientID: ProducerClientID, At: at(5)},
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
	a, err := processCPU()
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(50 * time.Millisecond); time.Now().Before(deadline); {
	}
	b, _ := processCPU()
	if b <= a {
		t.Errorf("CPU did not advance over 50 ms of spinning: %v -> %v", a, b)
	}
}

func TestDiffHash(t *testing.T) {
	if DiffHash([]byte("a"), []byte("b")) != DiffHash([]byte("a"), []byte("b")) || len(DiffHash(nil, nil)) != 12 {
		t.Error("DiffHash is not a stable 12-digit hash")
	}
}

// seen is what the Ginkgo suite below captured after each spec, for TestTimelineSuite.
var seen []types.SpecReport

// TestTimelineSuite runs a real spec on the kfake target and the reactor subject through
// MustSelect and checks what the report will read: a provenance entry on BeforeSuite and one
// series entry per spec with the consumer's requests, loop steps, call durations and the
// fault window, and no goroutine left behind (TestMain's goleak).
func TestTimelineSuite(t *testing.T) {
	t.Setenv(EnvTarget, "kfake")
	t.Setenv(EnvSubject, "reactor")
	t.Setenv(EnvRun, "2")
	t.Setenv(EnvRuns, "3")
	gomega.RegisterFailHandler(ginkgo.Fail)
	seen = nil
	suite, reporter := ginkgo.GinkgoConfiguration()
	reporter.NoColor = true // plain text in `go test` logs
	reporter.Succinct = true
	ginkgo.RunSpecs(t, "harness timeline", suite, reporter)
	var prov, series int
	for _, r := range seen {
		for _, e := range r.ReportEntries {
			// In process an entry holds the Go value; AsJSON is filled when the
			// report is written. Encode it as the JSON report would.
			raw, err := json.Marshal(e.GetRawValue())
			if err != nil {
				t.Fatal(err)
			}
			e.Value.AsJSON = string(raw)
			switch e.Name {
			case reports.EntryProvenance:
				prov++
				var p reports.Provenance
				if err := json.Unmarshal([]byte(e.Value.AsJSON), &p); err != nil || p.Run != 2 || p.Runs != 3 || p.Subject != "reactor" || p.SuiteDir != "harness" || p.Modules["franz-go"] == "" {
					t.Errorf("provenance %s (%v)", e.Value.AsJSON, err)
				}
			case reports.EntrySeries:
				series++
				var s reports.Series
				if err := json.Unmarshal([]byte(e.Value.AsJSON), &s); err != nil || s.Validate() != nil {
					t.Fatalf("series: %v", err)
				}
				if len(s.Consumers) != 1 || len(s.Requests) == 0 || len(s.Faults) != 1 || s.Faults[0].Kind != "coordinator-unavailable" || s.Faults[0].ToMS < s.Faults[0].FromMS {
					t.Errorf("series %s", e.Value.AsJSON)
				}
				var steps int64
				for _, n := range s.Consumers[0].Steps {
					steps += n
				}
				calls := map[string]int64{}
				for _, c := range s.Consumers[0].Calls {
					calls[c.Call] = c.Count
				}
				if steps == 0 || calls["poll"] == 0 || calls["close"] != 1 {
					t.Errorf("consumer steps %d, calls %v", steps, calls)
				}
			}
		}
	}
	if prov != 1 || series != 1 {
		t.Errorf("%d provenance and %d series entries, want 1 and 1", prov, series)
	}
}

var _ = ginkgo.BeforeSuite(SuiteSetup)

var _ = ginkgo.ReportAfterEach(func(r types.SpecReport) { seen = append(seen, r) })
var _ = ginkgo.ReportAfterSuite("capture suite nodes", func(r types.Report) {
	for _, sr := range r.SpecReports {
		if sr.LeafNodeType == types.NodeTypeBeforeSuite {
			seen = append(seen, sr)
		}
	}
})

var _ = ginkgo.It("records a spec's requests, loop steps, call durations and fault windows", func(ctx ginkgo.SpecContext) {
	target, subject := MustSelect()
	cl := StartCluster(ctx, target, TargetConfig{Brokers: 1, Topics: map[string]int32{"t": 1}})
	_, err := cl.Produce(ctx, "t", 10, nil)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	c := NewConsumer(subject, ConsumerConfig(cl, UniqueName("tl"), UniqueName("tl-client")))
	gomega.Expect(c.Subscribe("t")).To(gomega.Succeed())
	pctx, cancel := context.WithTimeout(ctx, WaitTimeout)
	defer cancel()
	_, _, err = PollUntil(pctx, c, 10)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	_, ok := ProbeOf(c)
	gomega.Expect(ok).To(gomega.BeTrue(), "the probe stays visible through the recording wrapper")
	f, err := cl.CoordinatorUnavailable(ctx, "some-group")
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	// The fault must span a few samples to be visible; the sleep is the
	// window under test, not a wait for a condition.
	time.Sleep(3 * SampleInterval)
	f.Heal()
	cctx, ccancel := context.WithTimeout(ctx, CloseTimeout)
	defer ccancel()
	gomega.Expect(c.Close(cctx)).To(gomega.Succeed())
}, ginkgo.SpecTimeout(time.Minute))
