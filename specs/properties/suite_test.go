// Package properties holds the kreactor KIP-1371 properties as a Ginkgo suite. Run it with
// `go test ./specs/properties` or `go tool ginkgo ./specs/properties`; choose the target and
// subject with KREACTOR_TARGET (package harness/targets) and KREACTOR_SUBJECT (package harness).
package properties

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/targets"
)

func TestProperties(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "kreactor KIP-1371 properties")
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
