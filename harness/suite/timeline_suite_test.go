package suite

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/consume"
	"github.com/kreactor/kreactor/harness/subjects"
	"github.com/kreactor/kreactor/harness/targets"
	"github.com/kreactor/kreactor/reports"
)

// seen is what the Ginkgo suite below captured after each spec, for TestTimelineSuite.
var seen []types.SpecReport

// TestTimelineSuite runs a real spec on the kfake target and the reactor subject through
// Selected and checks what the report will read: a provenance entry on BeforeSuite and one
// series entry per spec with the consumer's requests, loop steps, call durations and the
// fault window, and no goroutine left behind (TestMain's goleak).
func TestTimelineSuite(t *testing.T) {
	t.Setenv(targets.Env, "kfake")
	t.Setenv(subjects.Env, "reactor")
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
				if err := json.Unmarshal([]byte(e.Value.AsJSON), &p); err != nil || p.Run != 2 || p.Runs != 3 || p.Subject != "reactor" || p.SuiteDir != "harness/suite" || p.Modules["franz-go"] == "" {
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

var _ = ginkgo.BeforeSuite(Setup)

var _ = ginkgo.ReportAfterEach(func(r types.SpecReport) { seen = append(seen, r) })
var _ = ginkgo.ReportAfterSuite("capture suite nodes", func(r types.Report) {
	for _, sr := range r.SpecReports {
		if sr.LeafNodeType == types.NodeTypeBeforeSuite {
			seen = append(seen, sr)
		}
	}
})

var _ = ginkgo.It("records a spec's requests, loop steps, call durations and fault windows", func(ctx ginkgo.SpecContext) {
	target, subject := Selected()
	cl := StartCluster(ctx, target, harness.TargetConfig{Brokers: 1, Topics: map[string]int32{"t": 1}})
	_, err := cl.Produce(ctx, "t", 10, nil)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	c := NewConsumer(subject, ConsumerConfig(cl, UniqueName("tl"), UniqueName("tl-client")))
	gomega.Expect(c.Subscribe("t")).To(gomega.Succeed())
	pctx, cancel := context.WithTimeout(ctx, harness.WaitTimeout)
	defer cancel()
	_, _, err = consume.PollUntil(pctx, c, 10)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	_, ok := harness.ProbeOf(c)
	gomega.Expect(ok).To(gomega.BeTrue(), "the probe stays visible through the recording wrapper")
	f, err := cl.CoordinatorUnavailable(ctx, "some-group")
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	// The fault must span a few samples to be visible; the sleep is the
	// window under test, not a wait for a condition.
	time.Sleep(3 * SampleInterval)
	f.Heal()
	cctx, ccancel := context.WithTimeout(ctx, harness.CloseTimeout)
	defer ccancel()
	gomega.Expect(c.Close(cctx)).To(gomega.Succeed())
}, ginkgo.SpecTimeout(time.Minute))
