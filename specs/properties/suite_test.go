// Package properties holds the kreactor KIP-1371 properties as a Ginkgo suite. Run it with
// `go test ./specs/properties` or `go tool ginkgo ./specs/properties`; choose the target and
// subject with KREACTOR_TARGET (package harness/targets) and KREACTOR_SUBJECT (package harness/subjects).
package properties

import (
	"testing"

	"github.com/kreactor/kreactor/harness/suite"
)

func TestProperties(t *testing.T) { suite.Run(t, "kreactor KIP-1371 properties") }

// target and subject are what every spec in the suite runs on and against.
var target, subject = suite.Selected()
