// Package contract holds the Java consumer contract the reference consumers
// keep (catalogue items CONTRACT-*) as a Ginkgo suite: what only a
// Go spec can express (committed offsets after Close, Close with a zero
// timeout, max.poll.interval.ms, share acknowledgements at a close deadline
// under controlled timing); the contract cases a scenario file can express
// are in specs/scenarios (contract-*.yaml). Run it with
// `go test ./specs/contract` or `go tool ginkgo ./specs/contract`; choose
// the target and subject with KREACTOR_TARGET (package harness/targets)
// and KREACTOR_SUBJECT (package harness).
package contract

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/targets"
)

func TestContract(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "kreactor Java consumer contract")
}

// target and subject are what every spec in the suite runs on and against.
var (
	target  = targets.MustSelect()
	subject = harness.MustSelectSubject()
)

// Goroutines started by specs (clusters, consumers, their connections) must
// all be gone once every spec's cleanup ran; Ginkgo's and the runtime's own
// are in the baseline taken before any spec.
var _ = BeforeSuite(harness.SuiteSetup)

var _ = AfterSuite(func() {
	Expect(targets.CloseShared()).To(Succeed(), "terminate the kafka target's pooled clusters")
	Expect(harness.LeakedGoroutines()).To(Succeed(), "goroutines still running after the suite")
})
