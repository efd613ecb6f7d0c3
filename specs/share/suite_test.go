// Package share holds the share consumer (KIP-932) specs as a Ginkgo suite:
// the same execution mechanics as the regular consumer (P5), no spin while
// nothing can progress, delivery semantics of acknowledgements and locks,
// and the close sequence. Choose the target and subject with
// KREACTOR_TARGET (package harness/targets) and KREACTOR_SUBJECT (package
// harness).
package share

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/targets"
)

func TestShare(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "kreactor share consumer")
}

var (
	target  = targets.MustSelect()
	subject = harness.MustSelectSubject()
)

var _ = BeforeSuite(harness.SuiteSetup)

var _ = AfterSuite(func() {
	Expect(targets.CloseShared()).To(Succeed(), "terminate the kafka target's pooled clusters")
	Expect(harness.LeakedGoroutines()).To(Succeed(), "goroutines still running after the suite")
})
