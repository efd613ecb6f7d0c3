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

	"github.com/kreactor/kreactor/harness/suite"
)

func TestFidelity(t *testing.T) { suite.Run(t, "kreactor fake broker fidelity") }

// target and subject are what every spec in the suite runs on and against.
var target, subject = suite.Selected()
