// Package share holds the share consumer (KIP-932) specs as a Ginkgo suite:
// the same execution mechanics as the regular consumer (P5), no spin while
// nothing can progress, delivery semantics of acknowledgements and locks,
// and the close sequence. Choose the target and subject with
// KREACTOR_TARGET (package harness/targets) and KREACTOR_SUBJECT (package
// harness/subjects).
package share

import (
	"testing"

	"github.com/kreactor/kreactor/harness/suite"
)

func TestShare(t *testing.T) { suite.Run(t, "kreactor share consumer") }

// target and subject are what every spec in the suite runs on and against.
var target, subject = suite.Selected()
