// Package fidelity holds the fake broker's fidelity probes as a Ginkgo
// suite: small raw requests (kmsg through a kgo client, one broker, one
// pinned version, nothing retried or merged) whose answers are compared with
// Apache Kafka 4.4's, the real broker being the oracle. Every probe states
// Kafka's behaviour and runs on every target: on kafka it documents the
// truth, on kfake it must agree (fakebroker answers as Kafka does where kfake
// differs), and on kfake-raw (kfake's own answers) it fails where kfake
// differs. A difference that remains is a catalogue item excluded on that
// target: its spec measures the target's answer and skips as a known
// difference, and fails once the target answers as Kafka does.
//
// The probes do not depend on the subject; the suite runs once per subject
// like the others (make conformance), so they are kept cheap. Run it with
// `go tool ginkgo ./specs/fidelity`; choose the target with KREACTOR_TARGET
// (package harness/targets).
package fidelity

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/subjects/java"
	"github.com/kreactor/kreactor/harness/targets"
)

func TestFidelity(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "kreactor fake broker fidelity")
}

// target and subject are what every spec in the suite runs on and against.
var (
	target  = targets.MustSelect()
	subject = harness.MustSelectSubject()
)

// Goroutines started by specs (clusters, clients, their connections) must
// all be gone once every spec's cleanup ran; Ginkgo's and the runtime's own
// are in the baseline taken before any spec. The Java driver processes the
// cross-check starts must all be reaped.
var _ = BeforeSuite(harness.SuiteSetup)

var _ = AfterSuite(func() {
	Expect(targets.CloseShared()).To(Succeed(), "terminate the kafka target's pooled clusters")
	Expect(java.CheckNoLiveDrivers()).To(Succeed(), "Java driver processes still running after the suite")
	Expect(harness.LeakedGoroutines()).To(Succeed(), "goroutines still running after the suite")
})
