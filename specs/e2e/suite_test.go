// Package e2e holds the kreactor end-to-end scenarios as a Ginkgo suite. Run it with
// `go test ./specs/e2e` or `go tool ginkgo ./specs/e2e`; choose the target and
// subject with KREACTOR_TARGET (package harness/targets) and KREACTOR_SUBJECT (package harness).
package e2e

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/targets"
)

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "kreactor end-to-end scenarios")
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
