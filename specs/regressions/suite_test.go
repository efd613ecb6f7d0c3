// Package regressions holds the kreactor Jira regressions as a Ginkgo suite. Run it with
// `go test ./specs/regressions` or `go tool ginkgo ./specs/regressions`; choose the target and
// subject with KREACTOR_TARGET (package harness/targets) and KREACTOR_SUBJECT (package harness).
package regressions

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/targets"
)

func TestRegressions(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "kreactor Jira regressions")
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
